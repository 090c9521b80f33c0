// (b) A user's lock checked over drawn scenarios; a failure prints its replay line.
#include <catch2/catch.hpp>
#include <locksim/testing/catch.hpp>
#include <locksim/testing/lock_check.hpp>

using locksim::props::Property;
using locksim::testing::check_lock;
using locksim::testing::NoFailureOf;

TEST_CASE("my-lock never releases another client's lock") {
  auto report =
      check_lock("my-lock", {.faults = "pause,slow-work,delay", .runs = 300, .property = Property::OwnerOnlyRelease});
  REQUIRE(report.runs == 300);
  REQUIRE_THAT(report, NoFailureOf(Property::OwnerOnlyRelease));
}

TEST_CASE("a pause longer than the lease breaks my-lock's mutual exclusion, with a replay line") {
  auto report =
      check_lock("my-lock", {.faults = "pause,slow-work", .runs = 2000, .property = Property::MutualExclusion});
  REQUIRE_THAT(report, !NoFailureOf(Property::MutualExclusion));
  REQUIRE(report.failures.front().replay.rfind("locksim replay 'my-lock ", 0) == 0);
}
