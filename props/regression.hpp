#pragma once
// Regression files: scenarios with the verdict they must keep, one per line,
// replayed by the test suite so a fixed bug stays fixed and a found failure
// stays found.
//
//   # comments and blank lines are ignored
//   violates mutual-exclusion: set-nx-px seed=2 clients=2 iterations=1 slow=A:0:1.02s
//   holds owner-only-release: token-lua seed=2 clients=2 iterations=1 slow=A:0:1.02s
//   violates owner-only-release variant='locks/my_lock.lua' sha1=5f0c...: my-lock seed=2 clients=2 ...
//
// A line whose algorithm is a Lua variant names the variant's file (relative
// to the regression file's folder) and the SHA-1 of its content when saved:
// reading the line loads that file, so the line replays with no other step.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/props/property.hpp"
#include "locksim/props/scenario.hpp"

namespace locksim::props {

struct Regression {
  bool violates = true;  // false: the property must hold
  Property property = Property::MutualExclusion;
  Scenario scenario;
  int line = 0;
  // A Lua variant's file, as written on the line (relative to the regression
  // file's folder), and the SHA-1 of its content when the line was saved.
  std::string variant;
  std::string variant_sha1;
  // When read: the file as resolved, and the SHA-1 of its content now.
  std::string variant_path;
  std::string variant_sha1_now;
  bool variant_changed() const { return !variant.empty() && variant_sha1 != variant_sha1_now; }
};

std::string format_regression(const Regression& r);
// One line; on error, says what is wrong with it. A line naming a variant
// loads it (resolved against `folder`, the regression file's) before its
// scenario is read.
std::optional<Regression> parse_regression(std::string_view line, std::string* error = nullptr,
                                           const std::string& folder = "");
// A whole file; on error, names the file and the line.
std::optional<std::vector<Regression>> load_regressions(const std::string& path, std::string* error = nullptr);
// Appends one line (creating the file if needed); false with a reason on failure.
// A scenario of a Lua variant is saved with the variant's file (relative to
// the regression file's folder) and its content's SHA-1.
bool append_regression(const std::string& path, const Regression& r, std::string* error = nullptr);

}  // namespace locksim::props
