#pragma once
// Regression files: scenarios with the verdict they must keep, one per line,
// replayed by the test suite so a fixed bug stays fixed and a found failure
// stays found.
//
//   # comments and blank lines are ignored
//   violates mutual-exclusion: set-nx-px seed=2 clients=2 iterations=1 slow=A:0:1.02s
//   holds owner-only-release: token-lua seed=2 clients=2 iterations=1 slow=A:0:1.02s
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
};

std::string format_regression(const Regression& r);
// One line; on error, says what is wrong with it.
std::optional<Regression> parse_regression(std::string_view line, std::string* error = nullptr);
// A whole file; on error, names the file and the line.
std::optional<std::vector<Regression>> load_regressions(const std::string& path, std::string* error = nullptr);
// Appends one line (creating the file if needed); false with a reason on failure.
bool append_regression(const std::string& path, const Regression& r, std::string* error = nullptr);

}  // namespace locksim::props
