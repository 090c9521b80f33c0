// Simulations whose Redis servers take Lua states from the pool (reused, put back
// to as built) run exactly as on fresh states: the same trace hashes.
#include <catch2/catch.hpp>

#include <string>

#include "locksim/props/explorer.hpp"
#include "locksim/props/scenario.hpp"
#include "locksim/sim/redis/lua_state_pool.hpp"
#include "scenario_text.hpp"

using namespace locksim::props;

namespace {

}  // namespace

TEST_CASE("Simulations on reused Lua states have the trace hashes of fresh ones", "[props]") {
  const std::string faults = " faults=[crash redis @1s; restart redis @1.5s; cut A redis @2s for 300ms]";
  for (const char* algorithm : {"token-lua", "watchdog", "fenced", "fair", "reentrant", "redlock"}) {
    CAPTURE(algorithm);
    const Scenario s = scenario(std::string(algorithm) + " seed=11 clients=3 iterations=4" + faults);
    const Scenario other = scenario(std::string(algorithm) + " seed=12 clients=2 iterations=6");
    locksim::redis::set_lua_state_reuse(false);
    const uint64_t fresh = run_scenario(s).trace_hash;
    locksim::redis::set_lua_state_reuse(true);
    run_scenario(other);  // leaves its servers' states in the pool
    const size_t restored = locksim::redis::lua_states_restored();
    const size_t reused = locksim::redis::lua_states_reused();
    CHECK(run_scenario(s).trace_hash == fresh);
    CHECK(run_scenario(s).trace_hash == fresh);
    CHECK(locksim::redis::lua_states_reused() > reused);
    CHECK(locksim::redis::lua_states_restored() > restored);
  }
}
