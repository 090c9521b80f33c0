// Issue 28: variants the way production locks are written. A replica that copies
// every type (a hash-based reentrant lock fails over as the string watchdog does), a
// variant's declared deployment and parameters, the liveness properties (a zombie
// lock, a stalled queue) and parallel calls (a parallel Redlock).
#include <catch2/catch.hpp>

#include "example_variants.hpp"
#include "locksim/lock/lua_variant.hpp"
#include "locksim/props/assumptions.hpp"
#include "locksim/props/defaults.hpp"
#include "locksim/props/inventory.hpp"
#include "locksim/props/explorer.hpp"
#include "seed_search.hpp"

using namespace locksim;
using namespace locksim::props;

namespace {

const lock::Algorithm* example(const std::string& file) { return locksim::props::testing::example_variant(file); }

Verdict verdict_of(const std::string& text) {
  std::string error;
  auto s = parse_scenario(text, &error);
  INFO(text << "\n" << error);
  REQUIRE(s);
  return run_scenario(*s).verdict;
}

std::string properties_violated(const Verdict& v) {
  std::string out;
  for (const Violation& each : v.violations) out += std::string(to_string(each.property)) + " ";
  return out;
}

// The first failure of `property` the default check of `algorithm` finds.
std::optional<Counterexample> found_by_check(const std::string& algorithm, Property property, uint32_t runs,
                                             uint64_t seed = 1) {
  FaultModel model = default_model(algorithm);
  ExploreOptions options;
  options.seed = seed;
  options.runs = runs;
  options.target = property;
  options.max_shrink_runs = 300;
  return explore(model, options).found;
}

// A failure of `property` that the algorithm shows under its default assumptions (its
// own, as check reports it), in `runs` drawn runs; nothing if none.
std::optional<Failure> own_failure(const std::string& algorithm, Property property, uint32_t runs) {
  FaultModel model = default_model(algorithm);
  assume(model, default_assumptions(algorithm));
  InventoryOptions options;
  options.runs = runs;
  options.target = property;
  options.max_shrink_runs = 60;
  for (const Failure& f : take_inventory(model, options).failures)
    if (f.property == property && !outside_assumptions(f)) return f;
  return std::nullopt;
}

}  // namespace

TEST_CASE("replication: a hash-based reentrant lock fails over as the string watchdog does", "[variants][replication]") {
  const std::string world =
      " seed=2 clients=2 iterations=1 replica=1 lag=5ms failover=136ms slow=A:0:500ms faults=[crash redis @214ms]";
  const Verdict reentrant = verdict_of("reentrant" + world);
  const Verdict watchdog = verdict_of("watchdog" + world);
  INFO("reentrant: " << properties_violated(reentrant) << "\nwatchdog: " << properties_violated(watchdog));
  CHECK(reentrant.holds(Property::MutualExclusion) == watchdog.holds(Property::MutualExclusion));
  CHECK(properties_violated(reentrant) == properties_violated(watchdog));
  CHECK(reentrant.holds(Property::MutualExclusion));
  // Redisson's hash lock, written as a variant, keeps its key across the same failover.
  const lock::Algorithm* redisson = example("redisson.lua");
  const Verdict lua = verdict_of(std::string(redisson->id) + world);
  INFO("redisson: " << properties_violated(lua));
  CHECK(lua.holds(Property::MutualExclusion));
}

TEST_CASE("variant parameters: deployment and own parameters are declared, drawn, set and read",
          "[variants][params]") {
  std::string error;
  auto v = lock::load_lua_variant_text(R"(
name = "declares-params"
params = {
  masters = 3,
  lease = "2s",
  ["lock-at-least-for"] = { default = "200ms", min = "0ms", max = "1s", help = "ShedLock's minimum hold" },
  ["mode"] = { default = "strict" },
}
function acquire()
  local reply = call_on(1, "SET", param("key"), tostring(param("lock-at-least-for")) .. param("mode"), "NX", "PX", param("lease"))
  return reply ~= false
end
function release() return call_on(1, "DEL", param("key")) == 1 end
)",
                                       "declares.lua", &error);
  INFO(error);
  REQUIRE(v);
  CHECK(v->masters == 3);
  REQUIRE(v->own_params.size() == 2);
  const lock::Algorithm* a = lock::find_algorithm("declares-params");
  if (!a) a = lock::register_lua_variant(v, &error);
  REQUIRE(a);
  // check starts from the declared deployment and draws the ranged parameter.
  FaultModel model = default_model("declares-params");
  CHECK(model.base.masters == 3);
  std::set<std::string> drawn;
  for (uint32_t run = 0; run < 40; ++run) {
    const Scenario s = draw(model, 1, run);
    CHECK(s.masters == 3);
    CHECK(s.lock.custom.count("mode") == 0);  // no range: never drawn
    if (auto it = s.lock.custom.find("lock-at-least-for"); it != s.lock.custom.end()) drawn.insert(it->second);
  }
  CHECK(drawn.size() > 5);
  // Set on the command line's terms, validated, and kept in the scenario line.
  const lock::ParamInfo* param = lock::find_lock_param("param");
  REQUIRE(param);
  lock::LockParams p = a->defaults;
  CHECK_FALSE(param->set(p, "lock-at-least-for=750ms"));
  CHECK(p.custom.at("lock-at-least-for") == "750ms");
  CHECK(param->set(p, "no-such=1"));
  CHECK(param->set(p, "lock-at-least-for=soon"));
  auto s = parse_scenario("declares-params seed=1 clients=1 masters=3 param=lock-at-least-for=750ms,mode=lax", &error);
  INFO(error);
  REQUIRE(s);
  CHECK(to_string(*s).find("param=lock-at-least-for=750ms,mode=lax") != std::string::npos);
  // param() reads them: the value the client wrote is what it was given.
  const RunResult run = run_scenario(*s);
  CHECK(run.verdict.holds(Property::VariantError));
  // Refused at load: a range without an end, a typo'd built-in, a replica with several masters.
  CHECK_FALSE(lock::load_lua_variant_text("params = { x = { default = 1, min = 0 } } function acquire() return true end "
                                          "function release() return true end",
                                          "bad1.lua", &error));
  CHECK_FALSE(lock::load_lua_variant_text(
      "params = { leese = 3 } function acquire() return true end function release() return true end", "bad2.lua",
      &error));
  CHECK_FALSE(lock::load_lua_variant_text("params = { masters = 3, replica = true } function acquire() return true "
                                          "end function release() return true end",
                                          "bad3.lua", &error));
}

TEST_CASE("liveness: a renewal that outlives a failed unlock is a zombie lock (F24)", "[variants][liveness]") {
  const lock::Algorithm* a = example("buggy/zombie_renewal.lua");
  // A's unlock is lost in a short cut: its renewal, answered again after the cut,
  // goes on re-arming the lock nobody holds; A's own next acquire waits on it.
  // The first schedule (seed) on which it shows (tests/props/seed_search.hpp).
  auto scenario = seedsearch::first_seed_showing(
      std::string(a->id) + " clients=2 iterations=2 faults=[cut A redis @260ms for 100ms]", Property::NoZombieLock);
  REQUIRE(scenario);
  const std::string world = to_string(*scenario).substr(std::string(a->id).size());
  const Verdict v = verdict_of(std::string(a->id) + world);
  const Violation* zombie = v.find(Property::NoZombieLock);
  INFO(properties_violated(v));
  REQUIRE(zombie);
  CHECK(zombie->cause == Cause::RenewalOutlivedRelease);
  CHECK(zombie->clients == std::vector<uint32_t>{0});
  // The built-in watchdog stops its renewal before it unlocks: the same world, no zombie.
  CHECK(verdict_of("watchdog" + world).holds(Property::NoZombieLock));
  CHECK(verdict_of(std::string(example("watchdog.lua")->id) + world).holds(Property::NoZombieLock));
  // And the default check finds it.
  auto found = found_by_check(std::string(a->id), Property::NoZombieLock, 3000);
  REQUIRE(found);
  CHECK(found->violation.cause == Cause::RenewalOutlivedRelease);
}

TEST_CASE("liveness: a fair queue stalled by a dead waiter (F25)", "[variants][liveness]") {
  const lock::Algorithm* a = example("buggy/fair_dead_waiter.lua");
  // A queues behind B's hold and dies there; C waits behind the dead A while the lock is free.
  auto scenario =
      seedsearch::first_seed_showing(std::string(a->id) + " clients=3 iterations=1 faults=[crash A @50ms]",
                                     Property::NoStalledWait);
  REQUIRE(scenario);
  const std::string world = to_string(*scenario).substr(std::string(a->id).size());
  const Verdict v = verdict_of(std::string(a->id) + world);
  INFO(properties_violated(v));
  const Violation* stalled = v.find(Property::NoStalledWait);
  REQUIRE(stalled);
  CHECK(stalled->cause == Cause::QueueStalled);
  CHECK(stalled->sentence.find("A died waiting") != std::string::npos);
  REQUIRE(stalled->clients.size() == 1);  // one of the live waiters, behind the dead A
  CHECK(stalled->clients.front() != 0);
  // The built-in fair lock skips the dead waiter's ticket: the same world, no stall.
  CHECK(verdict_of("fair" + world).holds(Property::NoStalledWait));
  auto found = found_by_check(std::string(a->id), Property::NoStalledWait, 3000);
  REQUIRE(found);
  CHECK(found->violation.cause == Cause::QueueStalled);
  CHECK(found->shrunk.faults.faults.size() + found->shrunk.workload.call_faults.size() >= 1);  // a waiter's death
}

TEST_CASE("liveness: correct locks show no liveness failure of their own", "[variants][liveness]") {
  std::vector<std::string> correct = {"watchdog", "fair", "token-lua", "reentrant"};
  for (const char* file : {"watchdog.lua", "redisson.lua", "redis_py.lua", "token_lua.lua"})
    correct.push_back(std::string(example(file)->id));
  for (const std::string& algorithm : correct) {
    for (Property p : {Property::NoZombieLock, Property::NoStalledWait}) {
      INFO(algorithm << " " << to_string(p));
      // Of their own: a Redis clock that jumps, say, is the deployment's to rule out.
      auto found = own_failure(algorithm, p, 400);
      const std::string shown = found ? to_string(found->example.shrunk) + "\n" + found->example.violation.sentence : "";
      INFO(shown);
      CHECK_FALSE(found);
    }
  }
}

TEST_CASE("parallel: a parallel Redlock holds on 3 masters, and without its validity check it does not",
          "[variants][parallel]") {
  const lock::Algorithm* good = example("redlock_parallel.lua");
  const lock::Algorithm* bad = example("buggy/redlock_no_validity.lua");
  CHECK(good->masters == 3);
  // B is slow answering master 2 for longer than the lease: its quorum arrives with no validity left.
  // The first schedule on which the pause falls inside B's acquire (tests/props/seed_search.hpp).
  auto scenario =
      seedsearch::first_seed_showing(std::string(bad->id) + " clients=2 iterations=1 faults=[pause B @5ms for 1.2s]",
                                     Property::MutualExclusion, Cause::NoValidityLeft);
  REQUIRE(scenario);
  const std::string world = to_string(*scenario).substr(std::string(bad->id).size());
  const Verdict ok = verdict_of(std::string(good->id) + world);
  const Verdict broken = verdict_of(std::string(bad->id) + world);
  INFO(properties_violated(ok) << " / " << properties_violated(broken));
  CHECK(ok.holds(Property::MutualExclusion));
  // Blamed on what the ledger shows: B's quorum came back after its instances had
  // expired, and B entered; the pause that made the acquire slow is the fault.
  const Violation* late = broken.find(Property::MutualExclusion);
  REQUIRE(late);
  CHECK(late->cause == Cause::NoValidityLeft);
  CHECK(late->clients == std::vector<uint32_t>{1, 0});
  CHECK(late->fault == "pause B @5ms for 1.2s");
  // Under client faults the correct one shows no failure of its own.
  FaultModel model = default_model(std::string(good->id));
  model.kinds = {FaultFamily::Pause, FaultFamily::DelaySpikes, FaultFamily::ClientCrash};  // work within the lease
  model.max_pause = sim::milliseconds(300);
  ExploreOptions options;
  options.runs = 500;
  options.target = Property::MutualExclusion;
  options.shrink = false;
  const auto own = explore(model, options).found;
  const std::string shown = own ? to_string(own->original) + "\n" + own->violation.sentence : "";
  INFO(shown);
  CHECK_FALSE(own);
  auto found = found_by_check(std::string(bad->id), Property::MutualExclusion, 3000);
  REQUIRE(found);
}
