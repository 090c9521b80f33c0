#include "gtest_matchers.hpp"

#include <sstream>

#include "locksim/testing/gtest.hpp"

namespace locksim::testing::gmock_probe {

namespace {

Outcome ask(const ::testing::Matcher<const CheckReport&>& m, const CheckReport& report) {
  Outcome o;
  ::testing::StringMatchResultListener listener;
  o.matched = m.MatchAndExplain(report, &listener);
  o.explanation = listener.str();
  std::ostringstream d;
  m.DescribeTo(&d);
  o.description = d.str();
  return o;
}

}  // namespace

Outcome no_failure_of(const CheckReport& report, props::Property p) { return ask(NoFailureOf(p), report); }
Outcome no_failures(const CheckReport& report) { return ask(NoFailures(), report); }
Outcome no_own_failures(const CheckReport& report) { return ask(NoOwnFailures(), report); }
std::string printed(const CheckReport& report) { return ::testing::PrintToString(report); }

}  // namespace locksim::testing::gmock_probe
