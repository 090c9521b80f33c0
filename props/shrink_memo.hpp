#pragma once
// What each scenario tried while shrinking answered. Shrinking meets the same
// candidate more than once (rapidcheck's shrinks repeat themselves; dropping a
// fault kind can equal dropping its only fault), and a run's verdict is a function
// of its scenario, so a candidate met again is answered without simulating it.
// The caller still counts it against its budget: shrinking takes the same path
// and ends at the same counterexample as without the memo.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "locksim/props/explorer.hpp"

namespace locksim::props {

class ShrinkMemo {
 public:
  explicit ShrinkMemo(StillFails inner) : inner_(std::move(inner)) {}
  std::optional<Violation> operator()(const Scenario& candidate);
  size_t hits() const { return hits_; }

 private:
  StillFails inner_;
  // Keyed by a digest of the fields shrinking changes (cheap next to the scenario's text,
  // which cost more than a tenth of a replay); the scenario itself is compared too, so
  // two scenarios share an answer only when they are equal. Looked up, never iterated.
  std::unordered_map<uint64_t, std::vector<std::pair<Scenario, std::optional<Violation>>>> seen_;
  size_t hits_ = 0;
};

// `still_fails` behind a memo of its own.
StillFails memoized(StillFails still_fails);

}  // namespace locksim::props
