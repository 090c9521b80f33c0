#pragma once
// GoogleTest support for the test kit: GMock matchers over check_lock's
// report, which explain a mismatch with every failure they find, its cause
// and replay line, and printing of reports, replies and scenarios. (catch.hpp
// has the same matchers for Catch2; include one of the two in a file.)
//
//   auto report = locksim::testing::check_lock("my-lock", {.faults = "pause,delay", .runs = 2000});
//   EXPECT_THAT(report, locksim::testing::NoFailureOf(locksim::props::Property::OwnerOnlyRelease));
//
// Link GTest::gmock_main (or GTest::gmock and your own main).
#include <gmock/gmock.h>

#include <ostream>
#include <string>

#include "locksim/props/scenario.hpp"
#include "locksim/sim/redis/reply.hpp"
#include "locksim/testing/lock_check.hpp"

namespace locksim::testing {
inline namespace gtest {

class NoFailuresMatcher {
 public:
  using is_gtest_matcher = void;
  explicit NoFailuresMatcher(FailureFilter filter) : filter_(filter) {}
  bool MatchAndExplain(const CheckReport& report, std::ostream* why) const {
    const auto found = failures_matching(report, filter_);
    if (why && !found.empty()) {
      *why << "it has:";
      for (const Failure* f : found) *why << "\n" << testing::describe(*f);
    }
    return found.empty();
  }
  void DescribeTo(std::ostream* os) const { *os << "has " << filter_.describe(); }
  void DescribeNegationTo(std::ostream* os) const { *os << "does not have " << filter_.describe(); }

 private:
  FailureFilter filter_;
};

// No failure at all, the lock's own or inherent to its deployment.
inline ::testing::Matcher<const CheckReport&> NoFailures() { return NoFailuresMatcher(FailureFilter{}); }
// No failure of this property, whatever its cause.
inline ::testing::Matcher<const CheckReport&> NoFailureOf(props::Property property) {
  return NoFailuresMatcher(FailureFilter{property});
}
// No failure of the lock's own (Failure::own).
inline ::testing::Matcher<const CheckReport&> NoOwnFailures() {
  return NoFailuresMatcher(FailureFilter{std::nullopt, true});
}
// No failure of this property under the assumptions stated (one outside them is the deployment's to rule out),
// whether or not the lock claims it: a property named is judged.
inline ::testing::Matcher<const CheckReport&> NoOwnFailureOf(props::Property property) {
  return NoFailuresMatcher(FailureFilter{property, true});
}

}  // namespace gtest

// How GoogleTest prints a report in a failed assertion: its summary line.
inline void PrintTo(const CheckReport& report, std::ostream* os) { *os << summary(report); }

}  // namespace locksim::testing

namespace locksim::redis {
inline void PrintTo(const Reply& reply, std::ostream* os) { *os << to_string(reply); }
}  // namespace locksim::redis

namespace locksim::props {
inline void PrintTo(const Scenario& s, std::ostream* os) { *os << to_string(s); }
}  // namespace locksim::props
