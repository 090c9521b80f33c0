// The findings of tests/regressions/findings.txt, with their causes: failures
// of algorithms once taken for fixes.
#include <catch2/catch.hpp>

#include <algorithm>

#include "locksim/props/explorer.hpp"
#include "scenario_text.hpp"

using namespace locksim;
using namespace locksim::props;

namespace {
}  // namespace

TEST_CASE("findings: a fencing counter kept in a Redis that forgets it starts over (not a fix for F23)", "[finding]") {
  // Found as documented: check fenced --faults redis-restart --property fenced-writes, seed 1 (run 123).
  FaultModel model;
  model.base = scenario("fenced");
  model.kinds = {FaultFamily::RedisRestart};
  ExploreOptions x;
  x.seed = 1;
  x.runs = 2000;
  x.target = Property::FencedWrites;
  ExploreResult r = explore(model, x);
  REQUIRE(r.found);
  // The shrunk run: one client holds a token before the restart; after it, INCR
  // starts over and the other's newer hold gets a token no greater; the older
  // holder's late write is accepted after the newer one's.
  Scenario shrunk = r.found->shrunk;
  INFO(to_string(shrunk));
  Verdict v = run_scenario(shrunk).verdict;
  const Violation* stale = v.find(Property::FencedWrites);
  REQUIRE(stale);
  CHECK(stale->cause == Cause::FenceBackwards);
  REQUIRE(stale->clients.size() == 2);
  CHECK(stale->sentence.find("accepted " + lock::client_name(stale->clients[0]) + "'s stale write") !=
        std::string::npos);
  REQUIRE(shrunk.faults.faults.size() >= 1);
  CHECK(std::all_of(shrunk.faults.faults.begin(), shrunk.faults.faults.end(),
                    [](const sim::Fault& f) { return f.node == "redis"; }));
  // With a durable Redis the counter survives and the write is rejected.
  shrunk.persistent_redis = true;
  CHECK(run_scenario(shrunk).verdict.holds(Property::FencedWrites));
}

TEST_CASE("findings: watch-multi's WATCH is lost on reconnect and both EXECs succeed", "[finding]") {
  const std::string base = "watch-multi seed=1 clients=2 iterations=1 spread=0s call=A:3:pause:50ms";
  Verdict v = run_scenario(scenario(base + " faults=[reset A redis @10ms]")).verdict;
  const Violation* both = v.find(Property::MutualExclusion);
  REQUIRE(both);
  CHECK(both->clients == std::vector<uint32_t>{1, 0});  // B won first, A's unwatched EXEC overwrote it
  CHECK(both->cause == Cause::WatchLost);
  CHECK(both->fault.find("reset A") != std::string::npos);
  // The same pause without the reset: A's WATCH sees B's SET and its EXEC fails.
  CHECK(run_scenario(scenario(base)).verdict.holds(Property::MutualExclusion));
}
