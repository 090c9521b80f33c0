// The property checkers on runs whose outcome is known from docs/failures.md:
// each violation names the property, the clients and the interval.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "locksim/lock/simulation.hpp"

#include "locksim/props/explorer.hpp"
#include "seed_search.hpp"

using namespace locksim;
using namespace locksim::props;

namespace {
Verdict verdict_of(std::string_view text) {
  std::string error;
  auto s = parse_scenario(text, &error);
  INFO(error);
  REQUIRE(s);
  return run_scenario(*s).verdict;
}
Verdict verdict_of(const Scenario& s) { return run_scenario(s).verdict; }
// The first schedule on which `text` shows `property` (tests/props/seed_search.hpp).
Scenario showing(std::string_view text, Property property) {
  auto s = seedsearch::first_seed_showing(text, property);
  REQUIRE(s);
  return *s;
}
const std::string kSlowA = " clients=2 iterations=1 slow=A:0:1.5s";
}  // namespace

TEST_CASE(
    "checks: set-nx-px with work longer than the lease breaks mutual exclusion and owner-only release (F07, F08)") {
  const Scenario slow_a = showing("set-nx-px" + kSlowA, Property::MutualExclusion);
  Verdict v = verdict_of(slow_a);
  const Violation* me = v.find(Property::MutualExclusion);
  REQUIRE(me);
  CHECK(me->clients == std::vector<uint32_t>{0, 1});  // A held first, B came in
  CHECK(me->key == "lock");
  CHECK(me->from >= sim::Instant{} + sim::seconds(1));        // not before A's lease ran out
  CHECK(me->to <= sim::Instant{} + sim::milliseconds(1600));  // nor after A left
  CHECK(me->sentence.find("A and B both held lock") == 0);
  CHECK(me->cause == Cause::LeaseOutworked);  // classified from the run: A worked past its lease
  CHECK(me->fault == "slow=A:0:1.5s");
  CHECK(me->sentence.find("A's lease expired at") != std::string::npos);
  // F08: when A's slow work ends while B holds, A's DEL removes B's lock.
  Verdict late = verdict_of(showing("set-nx-px clients=2 iterations=1 slow=A:0:1.017s", Property::OwnerOnlyRelease));
  const Violation* owner = late.find(Property::OwnerOnlyRelease);
  REQUIRE(owner);
  CHECK(owner->clients == std::vector<uint32_t>{1, 0});  // B's lock, A's release
  CHECK(owner->sentence.find("A's release deleted the lock B had acquired") == 0);
  CHECK(owner->cause == Cause::StaleRelease);
}

TEST_CASE("checks: token-lua on the same schedule overlaps, but its late release is harmless (F10)") {
  Verdict v = verdict_of(seedsearch::with_algorithm(showing("set-nx-px" + kSlowA, Property::MutualExclusion), "token-lua"));
  CHECK_FALSE(v.holds(Property::MutualExclusion));
  CHECK(v.holds(Property::OwnerOnlyRelease));
}

TEST_CASE("checks: the watchdog keeps the same schedule safe") {
  Verdict v = verdict_of(seedsearch::with_algorithm(showing("set-nx-px" + kSlowA, Property::MutualExclusion), "watchdog"));
  CHECK(v.violations.empty());
}

TEST_CASE("checks: a holder that dies leaves setnx-del's key forever, but set-nx-px's expires (F01)") {
  const Scenario crash_a = showing("setnx-del clients=2 iterations=1 faults=[crash A @14ms]", Property::NoDeadlock);
  Verdict broken = verdict_of(crash_a);
  const Violation* v = broken.find(Property::NoDeadlock);
  REQUIRE(v);
  CHECK(v->clients.front() == 0);
  CHECK(v->sentence.find("A died at 0.014s holding lock") == 0);
  Verdict fixed = verdict_of(seedsearch::with_algorithm(crash_a, "set-nx-px"));
  CHECK(fixed.holds(Property::NoDeadlock));
  CHECK(fixed.metrics.unavailability <= sim::seconds(1));
}

TEST_CASE("checks: a long lease costs its whole length when the holder dies (F11's metric)") {
  // The schedule on which A dies holding setnx-del's lock, under a 30s-lease token-lua.
  Scenario s = showing("setnx-del clients=2 iterations=1 faults=[crash A @14ms]", Property::NoDeadlock);
  s.algorithm = "token-lua";
  s.lock.lease = sim::seconds(30);
  s.lock.wait_limit = sim::seconds(2);
  Verdict v = verdict_of(s);
  CHECK(v.holds(Property::NoDeadlock));
  CHECK(v.metrics.unavailability > sim::seconds(29));
  CHECK(v.metrics.unavailability <= sim::seconds(30));
}

TEST_CASE("checks: token-lua deadlocks on itself when nested, reentrant does not (F16)") {
  Verdict broken = verdict_of(showing("token-lua clients=1 iterations=1 nested=1 lease=30s wait-limit=2s", Property::Reentrancy));
  const Violation* v = broken.find(Property::Reentrancy);
  REQUIRE(v);
  CHECK(v->clients == std::vector<uint32_t>{0});
  CHECK(v->to - v->from >= sim::seconds(2));
  for (uint64_t seed = 0; seed < 20; ++seed)
    CHECK(verdict_of("reentrant seed=" + std::to_string(seed) + " clients=1 iterations=1 nested=2 lease=30s wait-limit=2s")
              .violations.empty());
}

TEST_CASE("checks: fixed-interval spinning lets newcomers overtake, the fair lock does not (F20)") {
  const Scenario contention =
      showing("token-lua clients=3 iterations=2 work=20ms..100ms think=0s..50ms", Property::BoundedWait);
  Verdict spin = verdict_of(contention);
  REQUIRE(spin.find(Property::BoundedWait));
  CHECK(spin.metrics.max_overtakes > 2);
  Verdict fair = verdict_of(seedsearch::with_algorithm(contention, "fair"));
  CHECK(fair.holds(Property::BoundedWait));
  CHECK(fair.holds(Property::MutualExclusion));
}

TEST_CASE("checks: a client whose clock runs ahead takes a live getset lock (F04)") {
  const Scenario skewed =
      showing("getset clients=2 iterations=1 clock=A:-722ms:0 clock=B:+171ms:0", Property::MutualExclusion);
  Verdict v = verdict_of(skewed);
  const Violation* me = v.find(Property::MutualExclusion);
  REQUIRE(me);
  CHECK(me->cause == Cause::ClientClockSkew);
  // Both clocks are off: it is how far they disagree that counts, and both are named.
  CHECK(me->sentence.find("judged A's timestamp expired at") != std::string::npos);
  CHECK(me->sentence.find("A's clock wrote it and B's read it") != std::string::npos);
  CHECK(me->fault == "clock=B:+171ms:0; clock=A:-722ms:0");
  CHECK(verdict_of(seedsearch::with_algorithm(skewed, "set-nx-px")).violations.empty());
}

TEST_CASE("checks: the ledger keeps the locks' bookkeeping - a queue's places and a fence counter - beside the lock's facts") {
  // fair: its queue keys; fenced: its counter, whose value is each hold's token.
  for (const char* text : {"fair seed=1 clients=3 iterations=2", "fenced seed=1 clients=3 iterations=2"}) {
    INFO(text);
    auto s = parse_scenario(text);
    REQUIRE(s);
    lock::Simulation sim(*s);
    sim.run();
    const lock::Ledger& ledger = sim.history().ledger();
    REQUIRE_FALSE(ledger.writes().empty());
    std::set<uint64_t> seqs;
    uint64_t last = 0;
    for (const lock::KeyWrite& w : ledger.writes()) {
      CHECK_FALSE(ledger.tracks(w.key));  // never the lock
      CHECK((seqs.empty() || w.seq > last));
      last = w.seq;
      seqs.insert(w.seq);
    }
    for (const lock::LockFact& f : ledger.facts())
      if (f.kind != lock::FactKind::Ended || f.client != lock::kNoClient) CHECK(seqs.count(f.seq) == 0);  // one order
    if (s->algorithm != "fenced") continue;
    for (const lock::HistoryEvent& e : sim.history().events()) {
      if (e.step != lock::Step::Acquired || e.depth != 0) continue;
      const bool issued = std::any_of(ledger.writes().begin(), ledger.writes().end(), [&](const lock::KeyWrite& w) {
        return w.client == e.client && w.key == "lock:fence" && w.value == std::to_string(e.token) && w.at <= e.at;
      });
      CHECK(issued);
    }
  }
}
