// A correct lock passes: token + atomic Lua compare-and-delete, written as a
// Lua variant, checked over locksim check's whole inventory.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <locksim/testing/gtest.hpp>
#include <locksim/testing/lock_check.hpp>

using locksim::props::Property;
using locksim::testing::check_lock;
using locksim::testing::NoFailureOf;
using locksim::testing::NoOwnFailureOf;

TEST(TokenLua, NeverReleasesAnotherClientsLock) {
  auto report = check_lock("lua-token-lua", {.faults = "pause,delay", .runs = 500, .variant = LOCKS "/token_lua.lua"});
  EXPECT_EQ(report.runs, 500u);
  EXPECT_THAT(report, NoFailureOf(Property::OwnerOnlyRelease));
}

TEST(TokenLua, WithBoundedPausesKeepsMutualExclusion) {
  auto report =
      check_lock("lua-token-lua",
                 {.faults = "pause,delay", .runs = 500, .variant = LOCKS "/token_lua.lua", .assume = "pause<=200ms"});
  EXPECT_NE(report.assumptions.find("pause<=200ms"), std::string::npos);  // beside the lock's defaults
  EXPECT_THAT(report, NoOwnFailureOf(Property::MutualExclusion));
}
