// Verdicts read from the lock ledger (lock/ledger.hpp): the causes that were
// wrong while every checker rebuilt ownership from raw key changes, and a
// renewal that is a fact (a command that re-armed the caller's own instance),
// not wherever a command came from.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "locksim/lock/lua_variant.hpp"
#include "locksim/lock/simulation.hpp"
#include "locksim/props/explorer.hpp"
#include "scenario_text.hpp"
#include "seed_search.hpp"

using namespace locksim;
using namespace locksim::props;

namespace {

RunResult run_line(const std::string& text) { return run_scenario(scenario(text)); }

// The run of the first schedule on which `text` shows `property` (tests/props/seed_search.hpp).
RunResult run_showing(const std::string& text, Property property) {
  auto s = seedsearch::first_seed_showing(text, property);
  REQUIRE(s);
  return run_scenario(*s);
}

const lock::Algorithm& variant(const std::string& path, const char* name) {
  std::string error;
  const lock::Algorithm* a = lock::find_algorithm(name);
  if (!a) a = lock::register_lua_variant_file(path, &error);
  INFO(error);
  REQUIRE(a);
  return *a;
}

}  // namespace

TEST_CASE("ledger causes: a parallel Redlock's spawned acquires are not renewals", "[causes][ledger]") {
  // node-redlock and redsync ask their masters at once: here from spawned tasks.
  // B's section outlasts its lease on every master; the verdict is the sequential
  // Redlock's: the work outlasted the lease (it once read as a renewal that stopped).
  const std::string parallel(variant(LOCKSIM_TESTS_DIR "/variants/parallel_redlock.lua", "parallel-redlock").id);
  const std::string sequential(variant(LOCKSIM_EXAMPLES_DIR "/redlock.lua", "redlock-lua").id);
  for (const std::string& algorithm : {parallel, sequential}) {
    INFO(algorithm);
    auto found = seedsearch::first_seed_showing(algorithm + " clients=2 iterations=1 masters=3 slow=B:0:2.5s",
                                                Property::MutualExclusion);
    REQUIRE(found);
    const std::string line = to_string(*found);
    const RunResult run = run_line(line);
    const Violation* v = run.verdict.find(Property::MutualExclusion);
    REQUIRE(v);
    CHECK(v->cause == Cause::LeaseOutworked);
    CHECK(v->clients == std::vector<uint32_t>{1, 0});
    CHECK(v->fault == "slow=B:0:2.5s");
    // Nothing renewed: no spawned SET or DEL re-armed its sender's own instance.
    lock::Simulation sim(scenario(line));
    sim.run();
    for (const auto& e : sim.history().events()) {
      CHECK(e.step != lock::Step::Renewed);
      CHECK(e.step != lock::Step::RenewFailed);
    }
  }
}

// The wrong causes of issue 27 that came from rebuilding ownership out of key
// changes: each replayed, its property, cause, clients and fault asserted.

TEST_CASE("ledger causes: a nested acquire against a Redis that died is not waiting on itself", "[causes][ledger]") {
  // Redis crashed for good at 13ms and took A's lock with it: the nested acquire
  // found no store to ask. It once read nested-acquire-waits-on-itself, then
  // redis-restart-forgot-key, though Redis never came back.
  const RunResult run = run_showing("reentrant clients=1 iterations=1 nested=1 explicit-lease=1s faults=[crash redis @13ms]",
                                Property::Reentrancy);
  const Violation* v = run.verdict.find(Property::Reentrancy);
  REQUIRE(v);
  CHECK(v->cause == Cause::RedisDown);
  CHECK(v->clients == std::vector<uint32_t>{0});
  CHECK(v->fault == "crash redis @13ms");
}

TEST_CASE("ledger causes: a database lock's lapse is never a Redis failover", "[causes][ledger]") {
  // The lock lives in the database; the crashed Redis node is one it never uses.
  auto found = seedsearch::first_seed_showing(
      "db-insert-expiry clients=2 replica=1 lag=98ms failover=805ms slow=A:1:2.874s slow=B:1:1.511s ids=1,2 "
      "faults=[crash redis @879ms]",
      Property::MutualExclusion);
  REQUIRE(found);
  const RunResult with_crash = run_scenario(*found);
  found->faults.faults.clear();
  const RunResult without = run_scenario(*found);
  const Violation* v = with_crash.verdict.find(Property::MutualExclusion);
  const Violation* w = without.verdict.find(Property::MutualExclusion);
  REQUIRE(v);
  REQUIRE(w);
  CHECK(v->cause == Cause::LeaseOutworked);
  CHECK(v->cause == w->cause);
  CHECK(v->clients == w->clients);
  CHECK(v->fault == w->fault);
  CHECK(v->fault.find("crash redis") == std::string::npos);
}

TEST_CASE("ledger causes: del-setnx deleting a timestamp that had lapsed by its own rule is no fresh lock",
          "[causes][ledger]") {
  // A's section outlasts its timestamp; B deletes it as the lock's rule says it may,
  // takes the lock, and both hold. It once read "B's acquire deleted A's fresh lock".
  const RunResult run = run_showing("del-setnx clients=2 iterations=1 slow=A:0:1.051s", Property::MutualExclusion);
  const Violation* v = run.verdict.find(Property::MutualExclusion);
  REQUIRE(v);
  CHECK(v->cause == Cause::LeaseOutworked);
  CHECK(v->clients == std::vector<uint32_t>{0, 1});
  CHECK(v->fault == "slow=A:0:1.051s");
  CHECK(v->sentence.find("fresh") == std::string::npos);
}

TEST_CASE("ledger causes: an EXEC run on the promoted replica lost its WATCH", "[causes][ledger]") {
  // B watched on the old master; the master died and its EXEC ran unwatched on the
  // promoted replica, over A's lock. It once read takeover-race, then watch-lost-on-reconnect
  // (a reset's mechanism, inside no-failover where this one is not).
  const RunResult run = run_showing(
      "watch-multi clients=2 iterations=2 replica=1 lag=51ms failover=296ms call=B:9:pause:1.103s "
      "faults=[crash redis @76ms]",
      Property::MutualExclusion);
  const Violation* v = run.verdict.find(Property::MutualExclusion);
  REQUIRE(v);
  CHECK(v->cause == Cause::WatchLostInFailover);
  CHECK(v->clients == std::vector<uint32_t>{0, 1});
  CHECK(v->fault == "crash redis @76ms");
}
