// The GoogleTest matchers (locksim/testing/gtest.hpp) say what the Catch2
// ones say: a mismatch is explained by every failure it found, with its cause
// and replay line; gtest prints a report as its summary.
#include <catch2/catch.hpp>

#include "gtest_matchers.hpp"
#include "kit_helpers.hpp"
#include "locksim/testing/lock_check.hpp"

using Catch::Matchers::Contains;
using locksim::props::Property;
using locksim::testing::check_lock;
namespace probe = locksim::testing::gmock_probe;

TEST_CASE("EXPECT_THAT(report, NoFailureOf(P)) fails on token-check-del with every failure of P, cause and replay") {
  const auto report = check_lock("token-check-del", {.faults = "pause,delay", .runs = 2000});
  const auto* f = kit_test::failure_of(report, Property::OwnerOnlyRelease);
  REQUIRE(f != nullptr);
  const auto o = probe::no_failure_of(report, Property::OwnerOnlyRelease);
  CHECK_FALSE(o.matched);
  CHECK(o.description == "has no failure of owner-only-release");
  CHECK_THAT(o.explanation, Contains("owner-only-release by " + std::string(locksim::props::to_string(f->cause))));
  CHECK_THAT(o.explanation, Contains("cause:  " + f->cause_text));
  CHECK_THAT(o.explanation, Contains("replay: " + f->replay));
  for (const auto& other : report.failures)
    if (other.property != Property::OwnerOnlyRelease) CHECK_THAT(o.explanation, !Contains(other.replay));
  CHECK_FALSE(probe::no_failures(report).matched);
  CHECK_FALSE(probe::no_own_failures(report).matched);
  CHECK(probe::printed(report) == summary(report));
}

TEST_CASE("and holds on token-lua, whose release compares and deletes atomically") {
  const auto report = check_lock("token-lua", {.faults = "pause,delay", .runs = 2000});
  CHECK(probe::no_failure_of(report, Property::OwnerOnlyRelease).matched);
  CHECK(probe::no_failure_of(report, Property::OwnerOnlyRelease).explanation.empty());
  auto inherent_only = report;
  std::erase_if(inherent_only.failures, [](const auto& f) { return f.own; });
  CHECK(probe::no_failures(inherent_only).matched == inherent_only.failures.empty());
  CHECK(probe::no_own_failures(inherent_only).matched);
}
