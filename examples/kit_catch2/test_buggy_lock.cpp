// A buggy lock fails the same test, and the failure says what, why and how to
// replay it: a release that GETs, compares in the client, then DELs (F09).
// CTest expects this program to fail (buggy_lock_fails) and to print the
// failure with its cause and replay line (buggy_lock_says_why).
#include <catch2/catch.hpp>
#include <locksim/testing/catch.hpp>
#include <locksim/testing/lock_check.hpp>

#include <cstdio>
#include <cstdlib>

using locksim::props::Property;
using locksim::testing::check_lock;
using locksim::testing::NoFailureOf;

namespace {
locksim::testing::CheckReport check_buggy_lock() {
  return check_lock("buggy-compare-then-del",
                    {.faults = "pause-at-call,delay", .runs = 500, .variant = LOCKS "/buggy/compare_then_del.lua"});
}
}  // namespace

TEST_CASE("the buggy release never deletes another client's lock (it does: this test fails)") {
  REQUIRE_THAT(check_buggy_lock(), NoFailureOf(Property::OwnerOnlyRelease));
}

// Run alone ("[save]"): the failures go to $SAVE_TO as regression lines.
TEST_CASE("save the buggy lock's failures", "[.][save]") {
  const char* path = std::getenv("SAVE_TO");
  REQUIRE(path != nullptr);
  std::remove(path);
  auto report = check_buggy_lock();
  REQUIRE_FALSE(report.ok());
  REQUIRE_THAT(report, !NoFailureOf(Property::OwnerOnlyRelease));
  locksim::testing::save_failures(report, path);
}
