#pragma once
// Catch2 (v2) support for the test kit: matchers over check_lock's report,
// which print every failure they find with its cause and replay line, and
// printing of replies and scenarios in assertion messages. (gtest.hpp has the
// same matchers for GoogleTest; include one of the two in a file.)
//
//   auto report = locksim::testing::check_lock("my-lock", {.faults = "pause,delay", .runs = 2000});
//   REQUIRE_THAT(report, locksim::testing::NoFailureOf(locksim::props::Property::OwnerOnlyRelease));
//   REQUIRE_THAT(report, locksim::testing::NoOwnFailures());
//
// Link Catch2::Catch2WithMain for Catch2's main, or write your own (a C++
// lock you register must be registered before the tests run).
#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "locksim/props/scenario.hpp"
#include "locksim/sim/redis/reply.hpp"
#include "locksim/testing/lock_check.hpp"

namespace locksim::testing {
inline namespace catch2 {

// Holds when the report has no failure the filter picks; otherwise its
// description lists each of them.
class NoFailuresMatcher : public Catch::MatcherBase<CheckReport> {
 public:
  explicit NoFailuresMatcher(FailureFilter filter) : filter_(filter) {}
  bool match(const CheckReport& report) const override {
    found_.clear();
    for (const Failure* f : failures_matching(report, filter_)) found_ += "\n" + testing::describe(*f);
    return found_.empty();
  }
  std::string describe() const override {
    return "has " + filter_.describe() + (found_.empty() ? "" : "; it has:" + found_);
  }

 private:
  FailureFilter filter_;
  mutable std::string found_;  // what the last match found (Catch2 describes after matching)
};

// No failure at all, the lock's own or inherent to its deployment.
inline NoFailuresMatcher NoFailures() { return NoFailuresMatcher(FailureFilter{}); }
// No failure of this property, whatever its cause.
inline NoFailuresMatcher NoFailureOf(props::Property property) { return NoFailuresMatcher(FailureFilter{property}); }
// No failure of the lock's own (Failure::own).
inline NoFailuresMatcher NoOwnFailures() { return NoFailuresMatcher(FailureFilter{std::nullopt, true}); }
// No failure of this property under the assumptions stated (one outside them is the deployment's to rule out),
// whether or not the lock claims it: a property named is judged.
inline NoFailuresMatcher NoOwnFailureOf(props::Property property) {
  return NoFailuresMatcher(FailureFilter{property, true});
}

}  // namespace catch2
}  // namespace locksim::testing

namespace Catch {

template <>
struct StringMaker<locksim::testing::CheckReport> {
  static std::string convert(const locksim::testing::CheckReport& report) { return locksim::testing::summary(report); }
};

template <>
struct StringMaker<locksim::redis::Reply> {
  static std::string convert(const locksim::redis::Reply& reply) { return locksim::redis::to_string(reply); }
};

template <>
struct StringMaker<locksim::props::Scenario> {
  static std::string convert(const locksim::props::Scenario& s) { return locksim::props::to_string(s); }
};

}  // namespace Catch
