// A Lua variant's spawned task renews as the built-in watchdog's loop does:
// its commands are recorded as renewals, so a lapse after they stopped
// reaching Redis reads renewal-stopped, as it does for the built-in watchdog.
#include <catch2/catch.hpp>

#include "locksim/lock/lua_variant.hpp"
#include "locksim/props/explorer.hpp"

using namespace locksim;
using namespace locksim::props;

TEST_CASE("lua variant: a cut that stops the watchdog's renewals is named renewal-stopped", "[lua-renewal]") {
  std::string error;
  const lock::Algorithm* a = lock::find_algorithm("lua-watchdog");  // registered once per process
  if (!a) a = lock::register_lua_variant_file(LOCKSIM_EXAMPLES_DIR "/watchdog.lua", &error);
  INFO(error);
  REQUIRE(a);
  for (const std::string& algorithm : {std::string(a->id), std::string("watchdog")}) {
    INFO(algorithm);
    auto s = parse_scenario(algorithm + " seed=2 clients=2 iterations=1 slow=A:0:3s faults=[cut A redis @100ms for 2s]",
                            &error);
    INFO(error);
    REQUIRE(s);
    const RunResult run = run_scenario(*s);
    const Violation* v = run.verdict.find(Property::MutualExclusion);
    REQUIRE(v);
    CHECK(v->cause == Cause::RenewalStopped);
    CHECK(v->clients == std::vector<uint32_t>{0, 1});
    CHECK(v->fault == "cut A redis @100ms for 2s");
  }
}
