// A correct lock passes: token + atomic Lua compare-and-delete, written as a
// Lua variant, checked over locksim check's whole inventory.
#include <catch2/catch.hpp>
#include <locksim/testing/catch.hpp>
#include <locksim/testing/lock_check.hpp>

using locksim::props::Property;
using locksim::testing::check_lock;
using locksim::testing::NoFailureOf;
using locksim::testing::NoOwnFailureOf;

TEST_CASE("token + Lua compare-and-delete never releases another client's lock") {
  auto report = check_lock("lua-token-lua", {.faults = "pause,delay", .runs = 500, .variant = LOCKS "/token_lua.lua"});
  REQUIRE(report.runs == 500);
  REQUIRE_THAT(report, NoFailureOf(Property::OwnerOnlyRelease));
}

TEST_CASE("with pauses bounded well under the lease, two clients never hold it at once") {
  auto report =
      check_lock("lua-token-lua",
                 {.faults = "pause,delay", .runs = 500, .variant = LOCKS "/token_lua.lua", .assume = "pause<=200ms"});
  REQUIRE(report.assumptions.find("pause<=200ms") != std::string::npos);  // beside the lock's defaults
  REQUIRE_THAT(report, NoOwnFailureOf(Property::MutualExclusion));
}
