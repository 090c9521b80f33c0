// Assumptions (parsed, broken by faults, shaping the draws, splitting the inventory),
// evidence for a clean result (bites, coverage, the bound, shards adding up)
// and the failover's drawn timing.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <set>

#include "locksim/lock/simulation.hpp"
#include "locksim/props/assumptions.hpp"
#include "locksim/props/defaults.hpp"
#include "locksim/props/evidence.hpp"
#include "locksim/props/inventory.hpp"
#include "scenario_text.hpp"

using namespace locksim;
using namespace locksim::props;

namespace {

}  // namespace

TEST_CASE("assumptions: every word reads back, bad input is refused with the word named", "[props]") {
  std::string error;
  auto a = parse_assumptions(
      "work<=10s,pause<=5s,delay<=100ms,clock<=50ms,durable-redis,no-failover,sane-redis-clock,sane-client-clock",
      &error);
  INFO(error);
  REQUIRE(a);
  CHECK(assumption_words(*a) == std::vector<std::string>{"durable-redis", "sane-redis-clock", "sane-client-clock",
                                                         "no-failover", "work<=10s", "pause<=5s", "delay<=100ms",
                                                         "clock<=50ms"});
  CHECK(parse_assumptions(fmt::format("{}", fmt::join(assumption_words(*a), ",")), &error) == a);
  CHECK(parse_assumptions("none", &error) == Assumptions{});
  for (const char* bad : {"durable", "pause<=soon", "work<=0s", "pause<=2h", "pause<=1s,pause<=2s",
                          "durable-redis,durable-redis", "none,durable-redis", "delay>=5ms", "durable-redis,"}) {
    INFO(bad);
    error.clear();
    CHECK_FALSE(parse_assumptions(bad, &error));
    CHECK_FALSE(error.empty());
  }
  CHECK(parse_assumptions("durable", &error) == std::nullopt);
  CHECK(error.find("unknown assumption 'durable'") == 0);
  // --assume adds to what the algorithm's documentation assumes.
  const Assumptions both = combined(default_assumptions("token-lua"), *parse_assumptions("pause<=5s"));
  CHECK(assumption_words(both) == std::vector<std::string>{"durable-redis", "sane-redis-clock", "no-failover", "redis-up", "pause<=5s"});
  CHECK(assumption_words(default_assumptions("db-for-update")).empty());
  CHECK(default_assumptions("redlock").sane_client_clock);
}

TEST_CASE("assumptions: each fault names the assumption it breaks", "[props]") {
  const Assumptions a = *parse_assumptions("durable-redis,sane-redis-clock,no-failover,pause<=1s,work<=2s,delay<=200ms");
  CHECK(broken_assumptions(scenario("token-lua"), a).empty());
  CHECK(broken_words(scenario("token-lua faults=[crash redis @1s; restart redis @1.1s]"), a) ==
        std::vector<std::string>{"durable-redis"});
  CHECK(broken_words(scenario("token-lua persistent=1 faults=[crash redis @1s; restart redis @1.1s]"), a).empty());
  // Down longer than the delay bound, Redis answers no one for longer: a cut of every client.
  CHECK(broken_words(scenario("token-lua persistent=1 faults=[crash redis @1s; restart redis @2s]"), a) ==
        std::vector<std::string>{"delay<=200ms"});
  CHECK(broken_assumptions(scenario("token-lua persistent=1 faults=[crash redis @1s; restart redis @2s]"), a) ==
        std::vector<std::string>{"delay<=200ms: 'crash redis @1s' keeps redis down for 1s"});
  // A lone restart is a crash and an immediate start: the data is gone all the same
  // (the tour's Redlock chapter found F18's restart counted as Redlock's own).
  CHECK(broken_assumptions(scenario("redlock masters=3 faults=[restart redis2 @7ms]"), a) ==
        std::vector<std::string>{"durable-redis: 'restart redis2 @7ms' restarts without persistence"});
  // A server down for good loses nothing durability would keep.
  CHECK(broken_words(scenario("token-lua faults=[crash redis @1s]"), a).empty());
  CHECK(broken_words(scenario("token-lua faults=[jump redis @1s by +2s]"), a) ==
        std::vector<std::string>{"sane-redis-clock"});
  CHECK(broken_words(scenario("token-lua faults=[pause A @1s for 1.5s]"), a) == std::vector<std::string>{"pause<=1s"});
  CHECK(broken_words(scenario("token-lua faults=[pause A @1s for 900ms]"), a).empty());
  CHECK(broken_words(scenario("token-lua slow=A:0:3s"), a) == std::vector<std::string>{"work<=2s"});
  CHECK(broken_words(scenario("token-lua replica=1 faults=[crash redis @1s]"), a) ==
        std::vector<std::string>{"no-failover"});
  CHECK(broken_words(scenario("token-lua faults=[cut A redis @1s for 500ms]"), a) ==
        std::vector<std::string>{"delay<=200ms"});
  CHECK(broken_words(scenario("token-lua call=A:2:pause:3s"), a) == std::vector<std::string>{"pause<=1s"});
}

TEST_CASE("assumptions shape the draws: most faults of a bounded kind fall inside the bound, some beyond",
          "[props]") {
  FaultModel m = default_model("token-lua");
  m.kinds = {FaultFamily::Pause, FaultFamily::SlowWork};
  assume(m, *parse_assumptions("work<=10s,pause<=5s"));
  int inside = 0, beyond = 0;
  for (uint32_t run = 0; run < 200; ++run) {
    const Scenario s = draw(m, 1, run);
    CHECK(s.workload.work_max <= sim::seconds(10));
    (broken_assumptions(s, m.assumed).empty() ? inside : beyond) += 1;
  }
  CHECK(inside > beyond);
  CHECK(beyond > 0);
}

TEST_CASE("a correct 30 s-lease token lock has no failure of its own under work<=10s,pause<=5s", "[props]") {
  FaultModel m = default_model("token-lua");
  m.base.lock.lease = sim::seconds(30);
  m.nested = 0;  // token-lua is not reentrant, and does not say it is
  assume(m, combined(default_assumptions("token-lua"), *parse_assumptions("work<=10s,pause<=5s")));
  InventoryOptions o;
  o.runs = 300;
  o.max_shrink_runs = 60;
  o.target = Property::MutualExclusion;  // what it claims (it is not fair, and says so: F20)
  const Inventory inv = take_inventory(m, o);
  for (const Failure& f : inv.failures) {
    INFO(to_string(f.property) << " by " << to_string(f.cause) << ": " << to_string(f.example.shrunk));
    CHECK(outside_assumptions(f));
  }
  CHECK(inv.evidence.runs_bitten > 0);
}

TEST_CASE("inventory: a failure that needs a fault outside the assumptions is listed outside them", "[props]") {
  FaultModel m = default_model("watchdog");
  m.kinds = {FaultFamily::RedisRestart, FaultFamily::SlowWork};
  assume(m, *parse_assumptions("durable-redis"));
  InventoryOptions o;
  o.runs = 120;
  o.max_shrink_runs = 80;
  const Inventory inv = take_inventory(m, o);
  bool restart_outside = false;
  for (const Failure& f : inv.failures) {
    if (f.cause != Cause::RedisRestartLost) continue;
    restart_outside = outside_assumptions(f);
    REQUIRE_FALSE(f.breaks.empty());
    CHECK(f.breaks.front().starts_with("durable-redis:"));
  }
  CHECK(restart_outside);
  // The runs inside the assumptions are the evidence; the others are counted apart.
  CHECK(inv.evidence.runs + inv.runs_outside == inv.runs);
  CHECK(inv.runs_outside > 0);
}

TEST_CASE("evidence: a fault bites when it strikes a phase of some client, and a late one never does", "[props]") {
  auto evidence = [](const char* text) {
    const Scenario s = scenario(text);
    return run_scenario(s).evidence;
  };
  const size_t pause = 2;  // kAllFaultFamilies order
  REQUIRE(kAllFaultFamilies[pause] == FaultFamily::Pause);
  const RunEvidence held = evidence("token-lua clients=1 iterations=1 work=200ms..200ms faults=[pause A @100ms for 50ms]");
  CHECK(held.drawn[pause]);
  CHECK(held.any_bit());
  CHECK((held.phases[pause] >> static_cast<int>(Phase::Holding) & 1) == 1);
  const RunEvidence late = evidence("token-lua clients=1 iterations=1 faults=[pause A @100s for 50ms]");
  CHECK(late.any_drawn());
  CHECK_FALSE(late.any_bit());
  const RunEvidence none = evidence("token-lua clients=1 iterations=1");
  CHECK_FALSE(none.any_drawn());
}

TEST_CASE("evidence: the bound, and shards that add up to the unsharded inventory", "[props]") {
  CHECK(detection_bound(0) == 1.0);
  CHECK(detection_bound(59) <= 0.05);
  CHECK(detection_bound(58) > 0.05);
  CHECK(biting_runs_for(0.05) == 59);
  FaultModel m = default_model("watchdog");
  assume(m, default_assumptions("watchdog"));
  InventoryOptions o;
  o.runs = 40;
  o.shrink = false;
  const Inventory whole = take_inventory(m, o);
  InventoryOptions even = o, odd = o;
  even.stride = odd.stride = 2;
  even.runs = odd.runs = 20;
  odd.first_run = 1;
  Evidence sum = take_inventory(m, even).evidence;
  sum.add(take_inventory(m, odd).evidence);
  CHECK(sum == whole.evidence);
  CHECK(whole.evidence.runs_bitten > 0);
}

TEST_CASE("a replica's failover timing is drawn, so F17 shows without the catalogue's tuning", "[props]") {
  FaultModel m = default_model("watchdog");
  m.base.replica = true;
  m.failover_on_master_crash = false;
  m.kinds = {FaultFamily::MasterCrash};
  m.lag_min = sim::milliseconds(1);
  m.lag_max = sim::milliseconds(100);
  m.failover_min = sim::milliseconds(50);
  m.failover_max = sim::seconds(1);
  std::set<int64_t> lags;
  for (uint32_t run = 0; run < 20; ++run) lags.insert(draw(m, 1, run).replication_lag.ns);
  CHECK(lags.size() > 5);
  // Pinned: exactly the value given, the rest drawn as before.
  FaultModel pinned = m;
  pinned.lag_min = pinned.lag_max = sim::milliseconds(30);
  for (uint32_t run = 0; run < 5; ++run) {
    const Scenario a = draw(m, 1, run), b = draw(pinned, 1, run);
    CHECK(b.replication_lag == sim::milliseconds(30));
    CHECK(a.faults == b.faults);
  }
}

TEST_CASE("causes proven by replay: removing any element of a reported example makes its failure go", "[props]") {
  for (const char* algorithm : {"set-nx-px", "token-lua", "watchdog", "getset"}) {
    INFO(algorithm);
    FaultModel m = default_model(algorithm);
    assume(m, default_assumptions(algorithm));
    InventoryOptions o;
    o.runs = 120;
    o.max_shrink_runs = 60;  // a small budget: the 1-minimal pass runs whatever it leaves
    const Inventory inv = take_inventory(m, o);
    REQUIRE_FALSE(inv.failures.empty());
    for (const Failure& f : inv.failures) {
      const Scenario& shown = f.example.shrunk;
      INFO(to_string(f.property) << " by " << to_string(f.cause) << ": " << to_string(shown));
      // The lock's own failure is shown inside the assumptions: an element whose removal would
      // break one (a crashed Redis's restart, under redis-up) is necessary to it.
      // The replay shows the cause the classifier names; a proof may have re-labelled it.
      const StillFails any = fails_with(f.property, {f.proof.classified}, {});
      const Assumptions in_force = m.assumed;
      const bool inside = !outside_assumptions(f);
      const StillFails same = [any, in_force, inside](const Scenario& c) -> std::optional<Violation> {
        if (inside && !broken_assumptions(c, in_force).empty()) return std::nullopt;
        return any(c);
      };
      CHECK(same(shown));
      for (const Element& e : elements_of(shown)) {
        INFO("without " << e.what);
        CHECK_FALSE(same(e.without));
      }
    }
  }
}

TEST_CASE("every other run is drawn wholly inside the assumptions, flags honoured, the others as without flags",
          "[props]") {
  for (const char* algorithm : {"set-nx-px", "redlock"}) {
    INFO(algorithm);
    FaultModel m = default_model(algorithm);
    assume(m, combined(default_assumptions(algorithm), *parse_assumptions("pause<=300ms,work<=500ms")));
    int odd_beyond = 0;
    std::set<std::string> odd_words;
    for (uint32_t run = 0; run < 120; ++run) {
      const Scenario s = draw(m, 3, run);
      CHECK(drawn_inside(m, run) == (run % 2 == 0));
      if (run % 2 == 0) {
        INFO(to_string(s));
        CHECK(broken_assumptions(s, m.assumed).empty());
      } else {
        const std::vector<std::string> words = broken_words(s, m.assumed);
        odd_beyond += !words.empty();
        odd_words.insert(words.begin(), words.end());
      }
    }
    // The odd runs still meet the faults the deployment must rule out, flags' and bounds' alike.
    CHECK(odd_beyond > 10);
    CHECK(odd_words.count("durable-redis") == 1);
    CHECK(odd_words.count("sane-redis-clock") == 1);
    CHECK(odd_words.count("pause<=300ms") == 1);
  }
  // Nothing assumed: every run draws as before (the odd runs' way).
  FaultModel none = default_model("set-nx-px");
  CHECK_FALSE(drawn_inside(none, 0));
}

TEST_CASE("held_inside makes each assumption hold and changes nothing else", "[props]") {
  const Assumptions a = *parse_assumptions(
      "durable-redis,sane-redis-clock,sane-client-clock,no-failover,redis-up,pause<=1s,work<=2s,delay<=200ms,clock<=50ms");
  const Scenario s = scenario(
      "token-lua seed=4 clients=2 slow=A:0:3s slow=B:0:1s call=A:2:pause:3s clock=B:+200ms:-5000 redis-drift=redis:+50000 "
      "faults=[restart redis @10ms; jump redis @20ms by +2s; jump A @30ms by +1s; pause B @40ms for 1.5s; "
      "cut A redis @50ms for 500ms]");
  REQUIRE_FALSE(broken_assumptions(s, a).empty());
  const Scenario in = held_inside(s, a);
  INFO(to_string(in));
  CHECK(broken_assumptions(in, a).empty());
  CHECK(in.persistent_redis);
  CHECK(in.redis_drifts_ppm == std::vector<int64_t>{kSaneDriftPpm});
  CHECK(in.workload.drifts_ppm == std::vector<int64_t>{0, -kSaneDriftPpm});
  CHECK(in.workload.clock_offsets[1] == sim::milliseconds(50));
  CHECK(in.workload.slow_work[0].work == sim::seconds(2));
  CHECK(in.workload.slow_work[1].work == sim::seconds(1));  // inside already: untouched
  CHECK(in.workload.call_faults[0].pause == sim::seconds(1));
  CHECK(in.seed == s.seed);
  // The jumps go; the restart (made durable) and the pause stay, clamped; the cut goes, as
  // it loses the messages it catches, which no bound on delay admits.
  CHECK(to_string(in).find("jump") == std::string::npos);
  CHECK(to_string(in).find("restart redis @10ms") != std::string::npos);
  CHECK(to_string(in).find("pause B @40ms for 1s") != std::string::npos);
  CHECK(to_string(in).find("cut") == std::string::npos);
  // The crash that promotes a replica goes (no-failover), and so does one that leaves Redis down (redis-up).
  CHECK(to_string(held_inside(scenario("token-lua replica=1 faults=[crash redis @1s]"), a)).find("crash") ==
        std::string::npos);
  CHECK(to_string(held_inside(scenario("token-lua faults=[crash redis @1s]"), a)).find("crash") == std::string::npos);
  // A scenario inside already is itself.
  CHECK(held_inside(scenario("token-lua seed=3 clients=2 slow=A:0:1.5s"), a) == scenario("token-lua seed=3 clients=2 slow=A:0:1.5s"));
}

TEST_CASE("a failure met only beyond the assumptions is the lock's own when its replay inside them fails the same way",
          "[props]") {
  // One odd run (drawn as without flags): a Redis clock drifting far beyond the sane bound and
  // a section longer than the lease. The overlap needs the long section, not the drift.
  FaultModel m = default_model("set-nx-px");
  m.kinds = {FaultFamily::RedisDrift, FaultFamily::SlowWork};
  m.swarm = false;
  m.nested = 0;
  m.contention = false;
  m.explicit_lease_mode = false;
  assume(m, default_assumptions("set-nx-px"));
  InventoryOptions o;
  o.target = Property::MutualExclusion;
  o.max_shrink_runs = 60;
  o.runs = 1;
  bool moved = false;
  for (uint32_t run = 1; run < 40 && !moved; run += 2) {
    o.first_run = run;
    const Scenario drawn = draw(m, 1, run);
    if (broken_words(drawn, m.assumed) != std::vector<std::string>{"sane-redis-clock"}) continue;
    for (const Failure& f : take_inventory(m, o).failures) {
      if (f.cause != Cause::LeaseOutworked) continue;
      INFO(to_string(f.example.shrunk));
      CHECK(f.moved_inside);
      CHECK(own_failure(f));
      CHECK_FALSE(f.first_inside_run.has_value());
      CHECK(f.example.run == run);
      CHECK(broken_assumptions(f.example.shrunk, m.assumed).empty());
      CHECK(f.necessary.size() == 1);  // the long section alone
      CHECK(f.example.shrunk.workload.slow_work.size() == 1);
      moved = true;
    }
  }
  CHECK(moved);
  // A failure that needs what broke the assumptions stays outside: a restart that forgot the key.
  FaultModel r = default_model("watchdog");
  r.kinds = {FaultFamily::RedisRestart, FaultFamily::SlowWork};
  assume(r, *parse_assumptions("durable-redis"));
  InventoryOptions all;
  all.runs = 120;
  all.max_shrink_runs = 60;
  for (const Failure& f : take_inventory(r, all).failures)
    if (f.cause == Cause::RedisRestartLost) {
      CHECK_FALSE(f.moved_inside);
      CHECK(outside_assumptions(f));
    }
}
