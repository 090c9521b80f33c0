#pragma once
// The algorithms in evolution order, by the ids of failures.md, with what
// each changes, where it is documented, and which parameters it reads.
#include <memory>
#include <string_view>
#include <vector>

#include "lock/lock.hpp"

namespace locksim::lock {

struct Algorithm {
  std::string_view id;
  std::string_view summary;      // one line
  std::string_view documents;    // which seeds describe it
  std::string_view failures;     // catalogue entries it shows or fixes
  std::vector<std::string_view> params;  // names in lock_param_table() it reads
  // Holds mutual exclusion when nothing fails, even if the work outlasts the
  // lease (no expiry at all, or a renewal). The others rely on short work.
  bool safe_without_faults;
  std::unique_ptr<Lock> (*make)(const LockParams&);
};

const std::vector<Algorithm>& algorithms();
const Algorithm* find_algorithm(std::string_view id);
// A user-written variant joins the registry (for examples and tests); ids must be unique.
void register_algorithm(Algorithm algorithm);

}  // namespace locksim::lock
