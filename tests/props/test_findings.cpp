// The findings of tests/regressions/findings.txt, with their causes: failures
// of algorithms once taken for fixes.
#include <catch2/catch.hpp>

#include "locksim/props/explorer.hpp"

using namespace locksim;
using namespace locksim::props;

namespace {
Scenario scenario(std::string_view text) {
  std::string error;
  auto s = parse_scenario(text, &error);
  INFO(error);
  REQUIRE(s);
  return *s;
}
}  // namespace

TEST_CASE("findings: a fencing counter kept in a Redis that forgets it starts over (not a fix for F23)", "[finding]") {
  // Found as documented: check fenced --faults redis-restart --property fenced-writes, seed 1, run 216.
  FaultModel model;
  model.base = scenario("fenced");
  model.kinds = {FaultFamily::RedisRestart};
  ExploreOptions x;
  x.seed = 1;
  x.runs = 300;
  x.target = Property::FencedWrites;
  ExploreResult r = explore(model, x);
  REQUIRE(r.found);
  CHECK(r.found->run == 216);  // as check prints it
  // The shrunk run: B holds token 2 before the restart; after it, INCR starts
  // over and A's newer hold gets token 1; B's late write is accepted after A's.
  const std::string shrunk = "fenced seed=151422 clients=2 iterations=2 faults=[restart redis @80ms]";
  Verdict v = run_scenario(scenario(shrunk)).verdict;
  const Violation* stale = v.find(Property::FencedWrites);
  REQUIRE(stale);
  CHECK(stale->clients == std::vector<uint32_t>{1, 0});
  CHECK(stale->sentence.find("accepted B's stale write") != std::string::npos);
  // With a durable Redis the counter survives and the write is rejected.
  CHECK(run_scenario(scenario("fenced seed=151422 clients=2 iterations=2 persistent=1 faults=[restart redis @80ms]"))
            .verdict.holds(Property::FencedWrites));
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
