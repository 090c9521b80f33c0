#pragma once
// The GMock matchers of locksim/testing/gtest.hpp, asked from a file without
// Catch2 (whose FAIL and SUCCEED macros gtest's would clash with).
#include <string>

#include "locksim/testing/lock_check.hpp"

namespace locksim::testing::gmock_probe {

struct Outcome {
  bool matched = false;
  std::string explanation;  // what the matcher said about the report
  std::string description;  // what it expects
};
Outcome no_failure_of(const CheckReport& report, props::Property p);
Outcome no_failures(const CheckReport& report);
Outcome no_own_failures(const CheckReport& report);
// How gtest prints the report in a failed assertion.
std::string printed(const CheckReport& report);

}  // namespace locksim::testing::gmock_probe
