#pragma once
// Catch2 (v2) support for the test kit: a matcher over check_lock's report
// that prints every failure with its replay line when it fails, and printing
// of replies and scenarios in assertion messages.
//
//   REQUIRE_THAT(locksim::testing::check_lock("my-lock"), locksim::testing::NoFailures());
//   REQUIRE_THAT(report, locksim::testing::NoFailureOf(locksim::props::Property::MutualExclusion));
#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "locksim/props/scenario.hpp"
#include "locksim/sim/redis/reply.hpp"
#include "locksim/testing/lock_check.hpp"

namespace locksim::testing {

class NoFailuresMatcher : public Catch::MatcherBase<CheckReport> {
 public:
  explicit NoFailuresMatcher(std::optional<props::Property> property) : property_(property) {}
  bool match(const CheckReport& report) const override {
    for (const Failure& f : report.failures)
      if (!property_ || f.property == *property_) return false;
    return true;
  }
  std::string describe() const override {
    return property_ ? "has no failure of " + std::string(props::to_string(*property_)) : "has no failure";
  }

 private:
  std::optional<props::Property> property_;
};

inline NoFailuresMatcher NoFailures() { return NoFailuresMatcher(std::nullopt); }
inline NoFailuresMatcher NoFailureOf(props::Property property) { return NoFailuresMatcher(property); }

}  // namespace locksim::testing

namespace Catch {

template <>
struct StringMaker<locksim::testing::CheckReport> {
  static std::string convert(const locksim::testing::CheckReport& report) { return locksim::testing::describe(report); }
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
