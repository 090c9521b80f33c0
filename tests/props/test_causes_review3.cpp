// Causes a third review found misnamed by replaying `check`'s counterexamples on seeds 7
// and 8 and reading their timelines and ledgers (issue 27): each scenario is a replay line
// `check` printed, and must now name the true mechanism, read from the ledger and the
// history, for the clients and the faults that produced it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "locksim/lock/lua_variant.hpp"
#include "locksim/lock/registry.hpp"
#include "locksim/props/explorer.hpp"
#include "replayed.hpp"

using namespace locksim;
using namespace locksim::props;

using test::exact_violation;
using test::necessary_for;

namespace {
void load_buggy(const char* name, const char* file) {
  std::string error;
  if (!lock::find_algorithm(name)) REQUIRE(lock::register_lua_variant_file(file, &error));
}
}  // namespace

TEST_CASE("review3: a release held in flight from before the next grant deleted the next holder's lock",
          "[causes]") {
  // A leaves at 0.224s and sends its DEL (call 3), which a fault holds 2.449s in flight:
  // A's lease expires at 1.117s, B acquires at 1.913s, and the DEL lands at 2.673s and
  // deletes B's lock. A's release was not sent stale; it landed stale. (Before: "A's lock
  // was never seen to end", with no fault named.)
  const std::string text =
      "set-nx-px seed=973705 clients=3 clock=B:+0s:-113266 call=A:3:delay:2.449s faults=[pause B @1.92s for 2.317s]";
  const Violation v = exact_violation(text, Property::OwnerOnlyRelease);
  CHECK(v.cause == Cause::StaleRelease);
  CHECK(v.clients == std::vector<uint32_t>{1, 0});
  CHECK(v.fault == "call=A:3:delay:2.449s");
  CHECK(v.sentence.find("release sent its call 3 at 0.224s, before B acquired at 1.913s") != std::string::npos);
  CHECK(v.sentence.find("never seen to end") == std::string::npos);
  // B's pause keeps B holding when the DEL lands (B's clock drift only timed it).
  CHECK(necessary_for(text, Property::OwnerOnlyRelease, Cause::StaleRelease) ==
        std::vector<std::string>{"'pause B @892.19ms for 2.317s'", "A's 2.449s delay of its call 3"});
  // The overlap it lets in is told the same way.
  const Violation m = exact_violation(text, Property::MutualExclusion);
  CHECK(m.cause == Cause::StaleRelease);
  CHECK(m.fault == "call=A:3:delay:2.449s");
}

TEST_CASE("review3: a crashed holder's row outlived it by the deadline its fast clock dated", "[causes]") {
  // A's clock, 1.644s ahead and then jumped +2.506s, dates its row's expires_at 4.15s
  // past a lease; A crashes, and the cleanup deletes the row only at 6.000s, after B gave
  // up. (Before: "its lock outlived lease + slack", no clock named.)
  const std::string text =
      "db-insert-expiry seed=4 clients=2 clock=A:+1.644s:0 faults=[jump A @127.174ms by +2.506s; crash A @320.903ms]";
  const Violation v = exact_violation(text, Property::NoDeadlock);
  CHECK(v.cause == Cause::CrashBlocked);
  CHECK(v.clients == std::vector<uint32_t>{0, 1});
  CHECK(v.fault == "crash A @320.903ms");
  CHECK(v.sentence.find("A's clock, 4.15s ahead of true time, dated its lock's deadline at 5.413s") !=
        std::string::npos);
  CHECK(v.sentence.find("jump A @127.174ms by +2.506s") != std::string::npos);
  CHECK(necessary_for(text, Property::NoDeadlock, Cause::CrashBlocked) ==
        std::vector<std::string>{"'jump A @127.174ms by +2.506s'", "'crash A @320.903ms'",
                                 "A's clock offset of 1.644s"});
}

TEST_CASE("review3: a replica whose older copy the new grant's write reached carries the lock on", "[causes]") {
  // The master's fast clock expires B's first lock at 0.871s; B's second SET at 0.882s
  // reaches the replica (lag 1ms) as one write over its still-live older copy, which then
  // holds the new lock's value. The failover at 1.751s carries it on, and it expires at
  // 2.022s while B, working 1.172s on a 1s lease, is still inside. (Before:
  // failover-lost-key, "the promoted replica never had it".)
  const std::string text =
      "token-lua seed=0 clients=2 iterations=2 replica=1 lag=1ms failover=480ms redis-drift=redis:+158733 "
      "slow=B:1:1.172s call=B:2:request-lost ids=0,2 faults=[crash redis @1.271s]";
  const Violation v = exact_violation(text, Property::MutualExclusion);
  CHECK(v.cause == Cause::LeaseOutworked);
  CHECK(v.clients == std::vector<uint32_t>{1, 0});
  CHECK(v.fault == "slow=B:1:1.172s");
  CHECK(necessary_for(text, Property::MutualExclusion, Cause::LeaseOutworked) ==
        std::vector<std::string>{"B's 2nd section of 1.172s"});
}

TEST_CASE("review3: a client that entered after its own lease ran out, beside a holder Redis then lost",
          "[causes]") {
  // B's SETNX and EXPIRE land by 1.251s; B pauses 1.541s before it enters, its lease
  // ends at 2.251s, A acquires at 2.384s, Redis dies for good at 2.493s, and B enters at
  // 2.862s on a lock it lost 0.6s before. Without the crash the overlap is the same.
  // (redis-down before: A's lock lost with the server let nobody in.)
  const std::string text =
      "setnx-expire seed=928007 clients=2 spikes=0.27:13ms:1.5:279ms clock=A:+0s:-47766 clock=B:+0s:54115 "
      "call=A:write2:delay:2.947s faults=[pause B @1.321s for 1.541s; crash redis @2.493s]";
  const Violation v = exact_violation(text, Property::MutualExclusion);
  CHECK(v.cause == Cause::NoValidityLeft);
  CHECK(v.clients == std::vector<uint32_t>{0, 1});
  CHECK(v.fault == "pause B @1.321s for 1.541s");
  CHECK(v.sentence.find("B entered after it with no validity left") != std::string::npos);
}

TEST_CASE("review3: a Redlock that forgets the time its acquire took enters with no validity left",
          "[causes]") {
  load_buggy("redlock-validity-from-grant", LOCKSIM_EXAMPLES_DIR "/buggy/redlock_validity_from_grant.lua");
  // A wins redis1 and redis2 at 0.01s, pauses 1.959s before asking redis3 (cut off), and
  // counts its two votes as held at 2.471s, long after they expired at 1.01s. B held and
  // wrote between. The stale write is A's, and so is the lapse. (entered-without-quorum
  // before, counting B's votes after B had given them back.)
  const std::string text =
      "redlock-validity-from-grant seed=0 clients=2 iterations=1 masters=3 call=A:3:pause:1.959s "
      "faults=[cut A redis3 @1.058s for 914ms]";
  const Violation v = exact_violation(text, Property::FencedWrites);
  CHECK(v.cause == Cause::NoValidityLeft);
  CHECK(v.clients == std::vector<uint32_t>{0, 1});
  CHECK(v.fault == "call=A:3:pause:1.959s");
  CHECK(necessary_for(text, Property::FencedWrites, Cause::NoValidityLeft) ==
        std::vector<std::string>{"'cut A redis3 @1.058s for 914ms'", "A's 1.959s pause before its call 3"});
}

TEST_CASE("review3: an unlock retried by key after its answer came late deleted the next holder's lock",
          "[causes]") {
  load_buggy("unlock-falls-back-to-del", LOCKSIM_EXAMPLES_DIR "/buggy/unlock_falls_back_to_del.lua");
  // B's compare-and-delete ran at about 1.33s and deleted B's own lock, but a delay
  // spike held its answer past the call timeout; the variant then DELs the key by name
  // and deletes the lock C has held since. (Before: "B's lock was never seen to end".)
  const std::string text =
      "unlock-falls-back-to-del seed=398003 clients=3 iterations=2 spikes=0.14:45ms:1.5:440ms call=B:5:request-lost";
  const Violation v = exact_violation(text, Property::OwnerOnlyRelease);
  CHECK(v.cause == Cause::StaleRelease);
  CHECK(v.clients == std::vector<uint32_t>{2, 1});
  CHECK(v.fault == "delay spikes");
  CHECK(v.sentence.find("B's release deleted B's own lock at") != std::string::npos);
  CHECK(v.sentence.find("never seen to end") == std::string::npos);
}

TEST_CASE("review3: a restarted holder that re-entered its row was paused while the waiter gave up", "[causes]") {
  // A crashes at 0.221s holding its row; restarted at 2.412s under the same owner name, it
  // re-enters that row at 2.414s and pauses 2.858s at once: B gives up at 5.046s waiting on
  // a live holder, paused 2.63s of its wait. (Before: the pause that kept A inside was not named.)
  const std::string text =
      "db-reentrant seed=0 clients=2 iterations=1 nested=1 spikes=0.01:36ms:1.5:1.81s call=A:6:crash "
      "call=A:9:pause:2.858s ids=0,2 faults=[crash A @742ms; restart A @2.412s]";
  const Violation v = exact_violation(text, Property::NoDeadlock);
  CHECK(v.cause == Cause::CrashBlocked);
  CHECK(v.clients == std::vector<uint32_t>{0, 1});
  CHECK(v.sentence.find("re-entered at 2.414s the lock its crashed incarnation held") != std::string::npos);
  CHECK(v.sentence.find("A was paused 2.63s of that time while B waited (call=A:9:pause:2.858s)") !=
        std::string::npos);
}

TEST_CASE("review3: a Redis outage that covered the lease's end stopped the renewals, not a later cut or pause",
          "[causes]") {
  // Redis is down from 0.533s to 1.578s (persistent); B's renewals fail from its first
  // after the crash; B's lease, last re-armed at 0.186s, ends at 1.186s. A cut of B at
  // 0.982s and B's pause at 1.037s came after the renewals had stopped. (Before: the cut
  // was named; without it, lease-expired-paused.)
  const std::string text =
      "watchdog seed=0 clients=2 iterations=2 persistent=1 spikes=0.07:10ms:1.5:379ms slow=B:1:838ms slow=A:0:500ms "
      "call=A:1:pause:1.725s call=B:9:pause:1.463s faults=[crash redis @533ms; cut B redis @982ms for 1.233s; "
      "restart redis @1.578s]";
  const Violation v = exact_violation(text, Property::MutualExclusion);
  CHECK(v.cause == Cause::RenewalStopped);
  CHECK(v.clients == std::vector<uint32_t>{1, 0});
  CHECK(v.fault == "crash redis @533ms; restart redis @1.578s");
  const std::vector<std::string> needs = necessary_for(text, Property::MutualExclusion, Cause::RenewalStopped);
  CHECK(std::find(needs.begin(), needs.end(), "'crash redis @533ms'") != needs.end());
  CHECK(std::find(needs.begin(), needs.end(), "'cut B redis @982ms for 1.233s'") == needs.end());
  // B's pause keeps B inside until A enters; A's pause and section time A's entry.
  CHECK(needs == std::vector<std::string>{"'crash redis @533ms'", "'restart redis @1.578s'", "B's 2nd section of 838ms",
                                          "A's 1st section of 500ms", "A's 1.725s pause before its call 1",
                                          "B's 1.463s pause before its call 9", "the delay spikes",
                                          "Redis's persistence"});
}

TEST_CASE("review3: a release slowed by the network landed after the next holder's grant", "[causes]") {
  // B's clock, 1.459s ahead, judges A's fresh stamp expired and takes the lock at 0.171s;
  // A's DEL, sent at 0.146s as it left (it crashes at once), is slowed by a delay spike
  // and lands at 0.247s on B's lock. (Before: "A's lock was never seen to end".)
  const std::string text =
      "del-setnx seed=161050 clients=2 iterations=1 spikes=0.29:45ms:1.5:1.894s clock=B:+1.459s:0 "
      "call=B:write1:delay:1.925s ids=0,2 faults=[crash A @146.992ms; restart A @247.252ms]";
  const Violation v = exact_violation(text, Property::OwnerOnlyRelease);
  CHECK(v.cause == Cause::StaleRelease);
  CHECK(v.clients == std::vector<uint32_t>{1, 0});
  CHECK(v.fault == "delay spikes");
  CHECK(v.sentence.find("begun at 0.146s before B acquired at 0.171s, reached the store only at 0.247s") !=
        std::string::npos);
  const Violation m = exact_violation(text, Property::MutualExclusion);
  CHECK(m.cause == Cause::StaleRelease);
  CHECK(m.sentence.find("never seen to end") == std::string::npos);
}

TEST_CASE("review3: a call held in flight during the acquire took the lease before the work began", "[causes]") {
  // B's second acquire wins its votes at 0.189s, then waits 500ms for its call 9, held
  // 2.576s in flight, before it enters at 0.691s; its 506ms of work then outlasts the
  // votes' lease. (Before: the held call "kept it inside", as if it struck the work.)
  const std::string text =
      "redlock seed=0 clients=2 iterations=2 masters=3 slow=B:1:506ms call=A:1:pause:407ms call=B:9:delay:2.576s "
      "ids=0,2 faults=[crash redis1 @249ms]";
  const Violation v = exact_violation(text, Property::MutualExclusion);
  CHECK(v.cause == Cause::LeaseDelayed);
  CHECK(v.clients == std::vector<uint32_t>{1, 0});
  CHECK(v.fault == "call=B:9:delay:2.576s");
  CHECK(v.sentence.find("its acquire waited on a call of its held in flight and entered only at 0.691s") !=
        std::string::npos);
}

TEST_CASE("review3: a fair waiter whose request was held in flight is overtaken, and the sentence says why",
          "[causes]") {
  // A's call 3, a request of its wait in fair's queue, is held 1.2s in flight; B and C,
  // arriving later, get the lock first three times. (Before: no fault named.)
  const std::string text = "fair seed=0 clients=3 iterations=2 call=A:3:delay:1.2s";
  const Violation v = exact_violation(text, Property::BoundedWait);
  CHECK(v.cause == Cause::Overtaken);
  CHECK(v.clients.front() == 0);
  CHECK(v.fault == "call=A:3:delay:1.2s");
  CHECK(v.sentence.find("a request of A's acquire was held in flight while it waited") != std::string::npos);
}

TEST_CASE("review3: an unlock whose request was lost, retried by key after a pause, deleted the next lock",
          "[causes]") {
  load_buggy("unlock-falls-back-to-del", LOCKSIM_EXAMPLES_DIR "/buggy/unlock_falls_back_to_del.lua");
  // B's compare-and-delete (call 4) is lost at 1.512s: B's lock stays to its lease's end;
  // the call times out, B pauses before its fallback DEL, and the DEL lands at 2.637s on
  // the lock A took at 2.636s. Delay spikes (capped at 50ms) slowed nothing here. (Before
  // the last fix: "a slow message of the network held it (delay spikes)".)
  const std::string text =
      "unlock-falls-back-to-del seed=0 clients=2 iterations=2 spikes=0.11:9ms:1.5:50ms slow=B:1:1.263s "
      "call=B:5:pause:624ms call=B:4:request-lost call=A:2:delay:2.525s ids=0,2";
  const Violation v = exact_violation(text, Property::OwnerOnlyRelease);
  CHECK(v.cause == Cause::StaleRelease);
  CHECK(v.clients == std::vector<uint32_t>{0, 1});
  CHECK(v.fault == "call=B:4:request-lost");
  CHECK(v.sentence.find("got no answer to its call sent at 1.512s") != std::string::npos);
  CHECK(v.sentence.find("delay spikes") == std::string::npos);
}
