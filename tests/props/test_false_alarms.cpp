// Checkers on the scenarios that once raised false alarms on correct
// algorithms: each scenario replays the run that raised it, and the property
// now holds — while on the same kind of schedule the failure it was mistaken
// for is still caught.
#include <catch2/catch.hpp>

#include "locksim/props/explorer.hpp"
#include "seed_search.hpp"

using namespace locksim;
using namespace locksim::props;

namespace {
Verdict verdict_for(std::string_view text) {
  std::string error;
  auto s = parse_scenario(text, &error);
  INFO(error);
  REQUIRE(s);
  return run_scenario(*s).verdict;
}
}  // namespace

TEST_CASE("false alarms: fenced-writes orders holds by token, not by when a client learned it acquired",
          "[false-alarm]") {
  // B is paused right after its SET NX; its lease runs out, A takes the lock
  // and its token, B then draws the next token: A learned first, but B's hold
  // (token 2) is the newer one, and A's write (token 1) went in before B's.
  auto overlapped = seedsearch::first_seed_showing(
      "fenced clients=2 iterations=1 slow=A:0:500ms ids=0,2 faults=[pause B @10ms for 1.083s]",
      Property::MutualExclusion);
  REQUIRE(overlapped);
  Verdict v = run_scenario(*overlapped).verdict;
  CHECK(v.holds(Property::FencedWrites));
  CHECK_FALSE(v.holds(Property::MutualExclusion));  // they did overlap: the fencing is what kept the writes safe
  CHECK(v.metrics.acquisitions > 0);
}

TEST_CASE("false alarms: fair's bounded wait counts from the waiter's place in the queue", "[false-alarm]") {
  // A is paused before its first command (before it took a ticket), then crashes.
  CHECK(verdict_for("fair seed=3 clients=2 spikes=0.01:1ms:1.5:50ms call=A:1:pause:548ms faults=[crash A @548ms]")
            .holds(Property::BoundedWait));
  // B's ticket request is delayed: the others took tickets before it.
  CHECK(verdict_for("fair seed=898745 clients=3 iterations=2 spikes=0.26:15ms:1.5:217ms").holds(Property::BoundedWait));
  // A is cut off from Redis: it is in no queue until the cut heals.
  CHECK(verdict_for("fair seed=1 clients=3 iterations=2 faults=[cut A redis @0s for 2.243s]")
            .holds(Property::BoundedWait));
  // Redis restarts without persistence and forgets the queue: the waiters queue again.
  CHECK(verdict_for("fair seed=3 clients=3 faults=[crash redis @17ms; restart redis @1.112s]")
            .holds(Property::BoundedWait));
  // B's request went out while it was cut off and was lost: after the heal it
  // only waits for that call's timeout, in no queue, and then crashes.
  CHECK(verdict_for("fair seed=716560 clients=3 iterations=2 call=C:4:crash call=B:11:crash call=B:9:pause:2.886s "
                   "faults=[crash C @212ms; cut A redis @429ms for 2.894s; cut B redis @1.428s for 1.983s; "
                   "pause B @2.573s for 118ms; crash C @2.636s; restart C @3.285s]")
            .holds(Property::BoundedWait));
  // Redis's clock jumps and drops B's heartbeat; the replica's copy of B's
  // earlier heartbeat is not B arriving again: B queues when it takes ticket 5.
  CHECK(verdict_for("fair seed=604511 clients=3 iterations=2 replica=1 lag=86ms failover=952ms "
                   "spikes=0.2:35ms:1.5:802ms faults=[jump redis @397ms by +2.785s]")
            .holds(Property::BoundedWait));
  // Plain retries on the same kind of workload are still caught overtaking (F20).
  Verdict spin = verdict_for("token-lua seed=4 clients=5 iterations=5 work=20ms..100ms think=0s..50ms");
  Verdict fair = verdict_for("fair seed=4 clients=5 iterations=5 work=20ms..100ms think=0s..50ms");
  CHECK(fair.holds(Property::BoundedWait));
  CHECK(fair.metrics.max_overtakes < spin.metrics.max_overtakes);
}

TEST_CASE("false alarms: a timestamp lock whose holder died is taken over, not kept forever", "[false-alarm]") {
  // A dies holding; the value is its expiry timestamp, which any later client
  // takes over once it passes (none is left in this run to do it).
  for (const char* algorithm : {"getset", "del-setnx"}) {
    INFO(algorithm);
    // The first schedule, and command of A's, before which a crash strikes while A holds the lock.
    std::optional<Verdict> found;
    for (uint64_t n = 0; n < 20 * 200 && !found; ++n) {
      const uint64_t seed = n / 20, call = n % 20 + 1;
      const std::string text = std::string(algorithm) + " seed=" + std::to_string(seed) +
                               " clients=2 iterations=1 call=A:" + std::to_string(call) + ":crash";
      lock::Simulation sim(*parse_scenario(text));
      sim.run();
      bool inside = false, died_inside = false;
      for (const lock::HistoryEvent& e : sim.history().events()) {
        if (e.client != 0) continue;
        if (e.step == lock::Step::Acquired && e.depth == 0) inside = true;
        if (e.step == lock::Step::Released && e.depth == 0) inside = false;
        if (e.step == lock::Step::Crashed && inside) died_inside = true;
      }
      if (died_inside) found = verdict_for(text);
    }
    REQUIRE(found);
    const Verdict& v = *found;
    CHECK(v.holds(Property::NoDeadlock));
    CHECK(v.metrics.unavailability > sim::Duration{});
    CHECK(v.metrics.unavailability <= sim::seconds(1));
  }
  // setnx-del's plain "1" has no deadline: the same death is still a deadlock (F01).
  auto dead = seedsearch::first_seed_showing("setnx-del clients=2 iterations=1 faults=[crash A @14ms]",
                                             Property::NoDeadlock);
  REQUIRE(dead);
  Verdict plain = run_scenario(*dead).verdict;
  const Violation* v = plain.find(Property::NoDeadlock);
  REQUIRE(v);
  CHECK(v->sentence.find("stays forever") != std::string::npos);
}

TEST_CASE("fair: a ticket drawn before a Redis restart does not take the place the new queue gave another waiter",
          "[false-alarm]") {
  // A draws ticket 1, Redis restarts without persistence, B draws ticket 1 of
  // the new queue (its next request is then delayed). A's old ticket 1 used to
  // pass as B's: A took B's place, and B fell to the back (4 overtakes). The
  // heartbeat key now holds its waiter's token, so A queues again instead.
  const Verdict v = verdict_for(
      "fair seed=342405 clients=3 iterations=2 spikes=0.09:47ms:1.5:528ms faults=[crash redis @8ms; "
      "restart redis @237ms]");
  CHECK(v.holds(Property::BoundedWait));
  CHECK(v.holds(Property::MutualExclusion));
  CHECK(v.metrics.acquisitions >= 6);  // everyone still gets through
}

TEST_CASE("fair: a waiter whose winning acquire lost its reply holds the lock on its retry", "[false-alarm]") {
  // A's acquire set the lock but its reply was lost in a delay spike; A used
  // to queue again at the back while its orphaned key blocked the others, and
  // three later arrivals got in first. Its retry now finds its own token.
  const Verdict v = verdict_for(
      "fair seed=584976 clients=3 spikes=0.23:49ms:1.5:504ms slow=C:0:1.04s faults=[cut B redis @197ms for 2.48s; "
      "crash redis @617ms; restart redis @1.184s; cut B redis @1.442s for 2.826s; crash redis @2.082s; restart redis "
      "@3.472s]");
  CHECK(v.holds(Property::BoundedWait));
  CHECK(v.holds(Property::MutualExclusion));
}
