// The classifier names what made each violation possible from the run
// itself; the inventory lists every distinct failure (property + cause) with
// counts, first run, catalogue entry, needs and whether the deployment's
// best-known lock fails the same way; assumptions narrow the fault model.
#include <catch2/catch.hpp>

#include <algorithm>

#include "locksim/props/catalogue.hpp"
#include "locksim/props/defaults.hpp"
#include "locksim/props/inventory.hpp"
#include "scenario_text.hpp"
#include "seed_search.hpp"

using namespace locksim;
using namespace locksim::props;

namespace {

const Violation* violation(const Verdict& v, Property p) { return v.find(p); }

const Failure* failure(const Inventory& inv, Property p, Cause c) {
  for (const auto& f : inv.failures)
    if (f.property == p && f.cause == c) return &f;
  return nullptr;
}

// The example (there on the watchdog written as data; the CLI test
// runs it on the Lua watchdog): a crash and restart of A that play no part,
// and a jump of Redis's clock that does.
const char* kJumpRun = " clients=2 iterations=2 faults=[crash A @0s; restart A @1ms; jump redis @119ms by +923ms]";

}  // namespace

TEST_CASE("classify: the watchdog's key expired early because Redis's clock jumped, not because a lease ran out") {
  for (const char* algorithm : {"watchdog"}) {
    INFO(algorithm);
    auto found = seedsearch::first_seed_showing(std::string(algorithm) + kJumpRun, Property::MutualExclusion);
    REQUIRE(found);
    const Scenario s = *found;
    const Verdict v = run_scenario(s).verdict;
    const Violation* me = violation(v, Property::MutualExclusion);
    REQUIRE(me);
    // Whoever held when Redis's clock jumped lost its key early, and the other got in.
    REQUIRE(me->clients.size() == 2);
    CHECK(me->clients[0] != me->clients[1]);
    CHECK(me->cause == Cause::RedisClockJump);
    CHECK(me->fault == "jump redis @119ms by +923ms");
    CHECK(me->sentence.find("redis's clock jumped") != std::string::npos);

    // Shrinking keeps the cause and drops the crash and restart that play no part.
    const Scenario small = simplified(s, fails_with(Property::MutualExclusion, {Cause::RedisClockJump}, {}), 300);
    REQUIRE(small.faults.faults.size() == 1);
    CHECK(small.faults.faults.front().kind == sim::FaultKind::ClockJump);
    CHECK(kinds_in(small) == std::vector<FaultFamily>{FaultFamily::ClockJump});
    CHECK(run_scenario(small).verdict.find(Property::MutualExclusion)->cause == Cause::RedisClockJump);
  }
}

TEST_CASE("classify: causes read from the run, one per mechanism") {
  struct Case {
    const char* text;
    Property property;
    Cause cause;
    std::vector<uint32_t> clients;
  };
  const Case cases[] = {
      {"set-nx-px clients=2 iterations=1 slow=A:0:1.5s",
       Property::MutualExclusion,
       Cause::LeaseOutworked,
       {0, 1}},
      {"set-nx-px clients=2 iterations=1 slow=A:0:1.017s",
       Property::OwnerOnlyRelease,
       Cause::StaleRelease,
       {1, 0}},
      {"watchdog clients=2 iterations=1 work=300ms..300ms faults=[pause A @100ms for 2s]",
       Property::MutualExclusion,
       Cause::LeasePaused,
       {0, 1}},
      {"watchdog clients=2 iterations=1 work=300ms..300ms faults=[crash redis @100ms; restart redis @110ms]",
       Property::MutualExclusion,
       Cause::RedisRestartLost,
       {0, 1}},
      {"getset clients=2 iterations=1 clock=A:-722ms:0 clock=B:+171ms:0",
       Property::MutualExclusion,
       Cause::ClientClockSkew,
       {0, 1}},
      {"setnx-del clients=2 iterations=1 faults=[crash A @14ms]", Property::NoDeadlock, Cause::CrashNoTtl, {0}},
      {"token-lua clients=1 iterations=1 nested=1 lease=30s wait-limit=2s",
       Property::Reentrancy,
       Cause::SelfDeadlock,
       {0}},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    auto s = seedsearch::first_seed_showing(c.text, c.property);
    REQUIRE(s);
    const Verdict v = run_scenario(*s).verdict;
    const Violation* found = v.find(c.property);
    REQUIRE(found);
    CHECK(found->cause == c.cause);
    CHECK(found->clients == c.clients);
  }
}

TEST_CASE("inventory: every distinct failure, counted, matched to the catalogue, the same for any number of jobs") {
  FaultModel m = default_model("set-nx-px");
  m.kinds = {FaultFamily::SlowWork, FaultFamily::RedisRestart};
  InventoryOptions o;
  o.seed = 1;
  o.runs = 120;
  const Inventory one = take_inventory(m, o, 1);
  const Inventory two = take_inventory(m, o, 2);
  REQUIRE(one.failures.size() == two.failures.size());
  for (size_t i = 0; i < one.failures.size(); ++i) {
    CHECK(one.failures[i].runs == two.failures[i].runs);
    CHECK(one.failures[i].first_run == two.failures[i].first_run);
    CHECK(to_string(one.failures[i].example.shrunk) == to_string(two.failures[i].example.shrunk));
  }
  const Failure* f07 = failure(one, Property::MutualExclusion, Cause::LeaseOutworked);
  REQUIRE(f07);
  CHECK(f07->catalogue == "F07");
  CHECK_FALSE(f07->inherent);  // the watchdog renews through slow work
  CHECK(std::find(f07->needs.begin(), f07->needs.end(), FaultFamily::SlowWork) != f07->needs.end());
  CHECK(f07->runs >= 1);
  const Failure* lost = failure(one, Property::MutualExclusion, Cause::RedisRestartLost);
  REQUIRE(lost);
  CHECK(lost->inherent);           // the watchdog on one Redis loses its key the same way
  CHECK(lost->catalogue.empty());  // F23 is the watchdog's entry, not set-nx-px's
  // Under set-nx-px's documented assumptions (a durable Redis among them) the lost key is
  // outside them, and the lock's own failures come first.
  FaultModel assumed = m;
  assume(assumed, default_assumptions("set-nx-px"));
  const Inventory split = take_inventory(assumed, o, 1);
  REQUIRE_FALSE(split.failures.empty());
  CHECK_FALSE(outside_assumptions(split.failures.front()));
  const Failure* lost_outside = failure(split, Property::MutualExclusion, Cause::RedisRestartLost);
  REQUIRE(lost_outside);
  CHECK(outside_assumptions(*lost_outside));
  // Counts add up over shards, and the first run is a global index.
  InventoryOptions even = o, odd = o;
  even.stride = odd.stride = 2;
  even.runs = odd.runs = 60;
  odd.first_run = 1;
  const Inventory a = take_inventory(m, even), b = take_inventory(m, odd);
  const Failure* fa = failure(a, Property::MutualExclusion, Cause::LeaseOutworked);
  const Failure* fb = failure(b, Property::MutualExclusion, Cause::LeaseOutworked);
  CHECK((fa ? fa->runs : 0) + (fb ? fb->runs : 0) == f07->runs);
  CHECK(std::min(fa ? fa->first_run : 1u << 30, fb ? fb->first_run : 1u << 30) == f07->first_run);
}

TEST_CASE("assumptions: the restart failures need a Redis without persistence, and short pauses never outlast a lease") {
  FaultModel m = default_model("watchdog");
  m.kinds = {FaultFamily::RedisRestart, FaultFamily::Pause};
  InventoryOptions o;
  o.runs = 200;
  const Inventory plain = take_inventory(m, o);
  REQUIRE(failure(plain, Property::MutualExclusion, Cause::RedisRestartLost));
  CHECK(failure(plain, Property::MutualExclusion, Cause::RedisRestartLost)->catalogue == "F23");
  Assumptions durable;
  durable.durable_redis = true;
  durable.max_pause = sim::milliseconds(100);
  assume(m, durable);
  const Inventory split = take_inventory(m, o);
  // Still found, but outside the assumptions: what the deployment must rule out.
  for (const Failure& f : split.failures) {
    INFO(to_string(f.cause) << ": " << to_string(f.example.shrunk));
    if (f.cause == Cause::RedisRestartLost || f.cause == Cause::LeasePaused) CHECK(outside_assumptions(f));
  }
  // Inside them, restarts keep the data and pauses stay at most 100ms.
  for (uint32_t run = 0; run < 40; ++run) {
    const Scenario s = draw(m, 1, run);
    if (breaks_assumptions(s, durable)) continue;
    for (const sim::Fault& f : s.faults.faults)
      if (f.kind == sim::FaultKind::Pause) CHECK(f.amount <= sim::milliseconds(100));
  }
}

TEST_CASE("defaults: each algorithm's deployment and what check draws for it") {
  CHECK(default_model("redlock").base.masters == 3);
  CHECK(default_model("watchdog").base.masters == 1);
  CHECK(default_model("token-lua").nested == 1);  // its story includes F16
  CHECK(default_model("reentrant").nested == 1);
  CHECK(default_model("set-nx-px").nested == 0);
  CHECK(default_model("watchdog").explicit_lease_mode);
  // Nested acquires are drawn: some runs of token-lua nest, and they deadlock on themselves.
  const FaultModel m = default_model("token-lua");
  uint32_t nested = 0;
  for (uint32_t run = 0; run < 20; ++run) nested += draw(m, 1, run).workload.nested > 0;
  CHECK(nested > 0);
  CHECK(nested < 20);
}

TEST_CASE("catalogue: an entry is found only with its documented cause") {
  const CatalogueEntry* f07 = find_entry("F07");
  REQUIRE(f07);
  EntryOptions o;
  o.check_fix = false;
  o.budget = 200;
  const EntryOutcome out = run_entry(*f07, o);
  CHECK(out.cause_found);
  REQUIRE(out.counterexample);
  CHECK(out.counterexample->violation.cause == Cause::LeaseOutworked);
  CHECK(documented_causes("F23") == std::vector<Cause>{Cause::RedisRestartLost});
  CHECK(match_entry(scenario("watchdog"), Property::MutualExclusion, Cause::LeasePaused) == find_entry("F13"));
  CHECK(match_entry(scenario("watchdog explicit-lease=1s"), Property::MutualExclusion, Cause::LeaseOutworked) ==
        find_entry("F15"));
  CHECK(match_entry(scenario("watchdog"), Property::MutualExclusion, Cause::LeaseOutworked) == nullptr);
}
