// Redis's own clock may run fast: a key then expires before its lease in true
// time, and the classifier names the drift (redis-clock-drift) when the holder
// would have left in time had its key lived its whole lease.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "locksim/props/defaults.hpp"
#include "locksim/props/explorer.hpp"
#include "scenario_text.hpp"

using namespace locksim;
using namespace locksim::props;

namespace {
}  // namespace

TEST_CASE("redis drift: the scenario word reads back, names a node the deployment has", "[redis-drift]") {
  const Scenario s = scenario("set-nx-px seed=2 clients=2 redis-drift=redis:+900000");
  CHECK(s.redis_drifts_ppm == std::vector<int64_t>{900000});
  CHECK(to_string(s) == "set-nx-px seed=2 clients=2 redis-drift=redis:+900000");
  const Scenario r = scenario("redlock seed=1 masters=3 redis-drift=redis3:-5000 redis-drift=redis1:+7");
  CHECK(r.redis_drifts_ppm == std::vector<int64_t>{7, 0, -5000});
  CHECK(scenario(to_string(r)) == r);
  std::string error;
  CHECK_FALSE(parse_scenario("set-nx-px redis-drift=redis2:+5", &error));
  CHECK(error.find("redis2") != std::string::npos);
  CHECK_FALSE(parse_scenario("set-nx-px redis-drift=redis:fast", &error));
  CHECK_FALSE(parse_scenario("set-nx-px redis-drift=redis:+1000001", &error));
  CHECK(kinds_in(s) == std::vector<FaultFamily>{FaultFamily::RedisDrift});
  CHECK(parse_fault_kind("redis-drift") == FaultFamily::RedisDrift);
}

TEST_CASE("redis drift: a fast Redis clock expires the key early, the cause is the drift", "[redis-drift]") {
  // A works 800ms, inside its 1s lease; Redis's clock runs 1.9x fast, so the
  // key goes after about 526ms and B gets in while A works.
  const std::string base = "set-nx-px seed=2 clients=2 iterations=1 slow=A:0:800ms";
  const Verdict drifting = run_scenario(scenario(base + " redis-drift=redis:+900000")).verdict;
  const Violation* v = drifting.find(Property::MutualExclusion);
  REQUIRE(v);
  CHECK(v->cause == Cause::RedisClockDrift);
  CHECK(v->clients == std::vector<uint32_t>{0, 1});
  CHECK(v->fault == "redis-drift=redis:+900000");
  // Without the drift the same run holds; a slow clock only keeps keys longer.
  CHECK(run_scenario(scenario(base)).verdict.holds(Property::MutualExclusion));
  CHECK(run_scenario(scenario(base + " redis-drift=redis:-500000")).verdict.holds(Property::MutualExclusion));
  // Work past the lease is the holder's own doing, even on a drifting Redis.
  const Verdict outworked =
      run_scenario(scenario("set-nx-px seed=2 clients=2 iterations=1 slow=A:0:1.5s redis-drift=redis:+10000")).verdict;
  REQUIRE(outworked.find(Property::MutualExclusion));
  CHECK(outworked.find(Property::MutualExclusion)->cause == Cause::LeaseOutworked);
}

TEST_CASE("redis drift: drawn by the default model, left out by sane-redis-clock", "[redis-drift]") {
  FaultModel m = default_model("set-nx-px");
  uint32_t drifting = 0;
  for (uint32_t run = 0; run < 40; ++run) drifting += !draw(m, 1, run).redis_drifts_ppm.empty();
  CHECK(drifting > 0);
  Assumptions sane;
  sane.sane_redis_clock = true;
  CHECK(breaks_assumptions(scenario("set-nx-px redis-drift=redis:+5000"), sane));
  CHECK_FALSE(breaks_assumptions(scenario("set-nx-px redis-drift=redis:+1000"), sane));
  // Assumed, the runs inside it drift at most 1000 ppm; the others show what the deployment must rule out.
  assume(m, sane);
  uint32_t inside = 0;
  for (uint32_t run = 0; run < 40; ++run) {
    const Scenario s = draw(m, 1, run);
    if (breaks_assumptions(s, sane)) continue;
    ++inside;
    for (int64_t ppm : s.redis_drifts_ppm) CHECK(std::abs(ppm) <= kSaneRedisDriftPpm);
  }
  CHECK(inside > 0);
}
