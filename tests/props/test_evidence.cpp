// Evidence for a clean result (issue 27, item 5): a fault bites only where it touched
// what the lock uses while a client was in a phase — a server the lock's clients call,
// a call in flight on a cut link, a message a delay spike held, a clock the lock read.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "locksim/props/evidence.hpp"
#include "locksim/props/explorer.hpp"
#include "locksim/props/inventory.hpp"
#include "locksim/props/search.hpp"
#include "scenario_text.hpp"

using namespace locksim;
using namespace locksim::props;

namespace {

size_t kind_index(FaultFamily k) {
  const auto it = std::find(std::begin(kAllFaultFamilies), std::end(kAllFaultFamilies), k);
  REQUIRE(it != std::end(kAllFaultFamilies));
  return static_cast<size_t>(it - std::begin(kAllFaultFamilies));
}

// The phases kind `k` bit in one replayed line (a bit per Phase), checking it was drawn.
uint8_t bit_phases(const std::string& text, FaultFamily k) {
  INFO(text);
  const RunEvidence e = run_scenario(scenario(text)).evidence;
  CHECK(e.drawn[kind_index(k)]);
  return e.phases[kind_index(k)];
}

bool bit_in(uint8_t phases, Phase p) { return ((phases >> static_cast<unsigned>(p)) & 1u) != 0; }

// What `check ALGO --faults KINDS --runs N` counts as evidence (no shrinking: the evidence is the draws').
Evidence evidence_of_check(const std::string& algorithm, const std::string& kinds, uint32_t runs) {
  SearchSettings settings;
  settings.algorithm = algorithm;
  settings.faults = kinds;
  InventoryOptions o;
  o.runs = runs;
  o.shrink = false;
  o.inside_search_runs = 0;
  return take_inventory(search_model(settings), o).evidence;
}

}  // namespace

TEST_CASE("evidence: no Redis fault bites a database lock, whose clients never call Redis", "[props]") {
  const Evidence e = evidence_of_check("db-for-update", "redis-restart,master-crash", 300);
  for (FaultFamily k : {FaultFamily::RedisRestart, FaultFamily::MasterCrash}) {
    INFO(to_string(k));
    CHECK(e.drawn[kind_index(k)] > 0);
    CHECK(e.bitten[kind_index(k)] == 0);
  }
  CHECK(e.runs_bitten == 0);
  CHECK(detection_bound(e.runs_bitten) == 1.0);
  // The same restart bites a lock that lives in Redis, while it is held there.
  const std::string restart =
      " clients=1 iterations=1 work=300ms..300ms faults=[crash redis @100ms; restart redis @150ms]";
  CHECK(bit_in(bit_phases("set-nx-px" + restart, FaultFamily::RedisRestart), Phase::Holding));
  CHECK(bit_phases("db-for-update" + restart, FaultFamily::RedisRestart) == 0);
  // And a Redis node's drift: only where the lock's keys live.
  CHECK(bit_in(bit_phases("set-nx-px clients=1 iterations=1 redis-drift=redis:+100000", FaultFamily::RedisDrift),
               Phase::Holding));
  CHECK(bit_phases("db-for-update clients=1 iterations=1 redis-drift=redis:+100000", FaultFamily::RedisDrift) == 0);
}

TEST_CASE("evidence: a client's clock offset bites only a lock that reads that clock", "[props]") {
  // set-nx-px and token-lua keep the lease in Redis and never read the client's wall clock.
  const Evidence e = evidence_of_check("set-nx-px", "skew", 200);
  CHECK(e.drawn[kind_index(FaultFamily::ClockSkew)] > 0);
  CHECK(e.bitten[kind_index(FaultFamily::ClockSkew)] == 0);
  CHECK(bit_phases("token-lua clients=1 iterations=1 clock=A:+300ms:0", FaultFamily::ClockSkew) == 0);
  CHECK(bit_phases("token-lua clients=1 iterations=1 faults=[jump A @0s by +2s]", FaultFamily::ClockJump) == 0);
  // A timestamp lock writes its expiry from the client's clock: offset and jump both bite.
  CHECK(bit_in(bit_phases("del-setnx clients=1 iterations=1 clock=A:+300ms:0", FaultFamily::ClockSkew),
               Phase::Acquiring));
  CHECK(bit_in(bit_phases("getset clients=1 iterations=1 faults=[jump A @0s by +2s]", FaultFamily::ClockJump),
               Phase::Acquiring));
  // A jump after the client's last reading of its clock changes nothing it read.
  CHECK(bit_phases("getset clients=1 iterations=1 faults=[jump A @5s by +2s]", FaultFamily::ClockJump) == 0);
}

TEST_CASE("evidence: a drift bites only where a reading of the clock decided something about the lock", "[props]") {
  // token-lua times its wait limit on the monotonic clock: pacing, which decides nothing about
  // a holder, so a drift that only moved it did not bite B's acquire, long as B waited; A's
  // section is timed on its clock, so the drift bites the hold.
  const std::string contended = "token-lua clients=2 iterations=1 clock=B:+0s:100000 slow=A:0:500ms";
  const uint8_t waiter = bit_phases(contended, FaultFamily::ClockDrift);
  CHECK_FALSE(bit_in(waiter, Phase::Acquiring));
  CHECK_FALSE(bit_in(waiter, Phase::Waiting));
  CHECK(bit_in(waiter, Phase::Holding));
  // setnx-del's key has no lease for a section to outlast, nor a timestamp: a drift bites nothing.
  CHECK(bit_phases("setnx-del clients=2 iterations=1 clock=A:+0s:100000 clock=B:+0s:100000 slow=A:0:500ms",
                   FaultFamily::ClockDrift) == 0);
  // Redlock computes the validity left after its acquire on the monotonic clock.
  CHECK(bit_in(bit_phases("redlock clients=1 iterations=1 masters=3 clock=A:+0s:100000", FaultFamily::ClockDrift),
               Phase::Acquiring));
  // The watchdog's renewals are timed on it.
  CHECK(bit_in(bit_phases("watchdog clients=1 iterations=1 clock=A:+0s:100000 slow=A:0:2s", FaultFamily::ClockDrift),
               Phase::Renewing));
}

TEST_CASE("evidence: each reading of a client's clock is recorded with what it was for", "[props]") {
  // B waits on A's hold: its wait limit is read for pacing; A's section is timed on its clock.
  std::vector<lock::ClockRead> reads;
  run_scenario(scenario("token-lua clients=2 iterations=1 slow=A:0:500ms"), {},
               [&](const lock::History& h) { reads = h.touches().clock_reads(); });
  auto has = [&](uint32_t client, lock::ClockUse use) {
    return std::any_of(reads.begin(), reads.end(),
                       [&](const lock::ClockRead& r) { return r.client == client && r.use == use; });
  };
  CHECK(has(1, lock::ClockUse::Pacing));
  CHECK(has(0, lock::ClockUse::Work));
  CHECK_FALSE(has(0, lock::ClockUse::Validity));
  CHECK(lock::decides(lock::ClockUse::Work));
  CHECK_FALSE(lock::decides(lock::ClockUse::Pacing));
  // Redlock's validity and the watchdog's renewals.
  run_scenario(scenario("redlock clients=1 iterations=1 masters=3"), {},
               [&](const lock::History& h) { reads = h.touches().clock_reads(); });
  CHECK(has(0, lock::ClockUse::Validity));
  run_scenario(scenario("watchdog clients=1 iterations=1 slow=A:0:2s"), {},
               [&](const lock::History& h) { reads = h.touches().clock_reads(); });
  CHECK(has(0, lock::ClockUse::Renewal));
}

TEST_CASE("evidence: a cut bites only a call in flight on its link, a reset only a client of that server", "[props]") {
  // The acquire's SET is in flight at 0s; during a 300ms hold with no call, a cut loses nothing.
  const std::string held = "set-nx-px clients=1 iterations=1 work=300ms..300ms faults=";
  CHECK(bit_in(bit_phases(held + "[cut A redis @0s for 50ms]", FaultFamily::Cut), Phase::Acquiring));
  CHECK(bit_phases(held + "[cut A redis @100ms for 50ms]", FaultFamily::Cut) == 0);
  CHECK(bit_in(bit_phases(held + "[reset A redis @100ms]", FaultFamily::Reset), Phase::Holding));
  // A database lock's transaction lives on its connection to the database, not to Redis.
  const std::string db = "db-for-update clients=1 iterations=1 work=300ms..300ms faults=";
  CHECK(bit_phases(db + "[reset A redis @100ms]", FaultFamily::Reset) == 0);
  CHECK(bit_phases(db + "[cut A redis @0s for 500ms]", FaultFamily::Cut) == 0);
  // Its client's own crash while it holds the row lock bites, as for any lock.
  CHECK(bit_in(bit_phases(db + "[crash A @100ms]", FaultFamily::ClientCrash), Phase::Holding));
}

TEST_CASE("evidence: delay spikes bite only where they held one of the lock's messages", "[props]") {
  // Every message spiked: the acquire's among them.
  CHECK(bit_in(bit_phases("token-lua clients=1 iterations=1 spikes=1:20ms:1.5:100ms", FaultFamily::DelaySpikes),
               Phase::Acquiring));
  // Spikes so rare that none of this run's few messages drew one.
  const RunEvidence rare =
      run_scenario(scenario("token-lua clients=1 iterations=1 spikes=0.000001:20ms:1.5:100ms")).evidence;
  CHECK(rare.drawn[kind_index(FaultFamily::DelaySpikes)]);
  CHECK(rare.phases[kind_index(FaultFamily::DelaySpikes)] == 0);
  CHECK_FALSE(rare.any_bit());
}
