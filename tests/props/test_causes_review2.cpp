// Causes a second review found misnamed by replaying counterexamples and reading their
// timelines and traces (issue 27): each scenario is a replay line `check` printed, and
// must now name the true mechanism, read from the ledger and the history, for the
// clients and the faults that produced it.
#include <catch2/catch.hpp>

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

TEST_CASE("review2: renewals queued behind a call held in flight stopped before the pause froze them",
          "[causes]") {
  // A's nested acquire (call 2) is held 1.337s in flight on A's FIFO connection from
  // 0.011s. A is paused 0.344s-0.844s; its renewal, sent as it resumes, waits behind call
  // 2 until 1.348s, after the lease's end at 1.010s. Without the pause the renewals wait
  // the same. (lease-expired-paused before.) The lapsed lease is mutual exclusion's failure;
  // the nested acquire that then took a fresh lock did nothing wrong as a nesting.
  const std::string text =
      "reentrant seed=0 clients=2 iterations=1 nested=1 slow=B:0:500ms call=A:3:pause:500ms "
      "call=A:2:delay:1.337s";
  const Violation v = exact_violation(text, Property::MutualExclusion);
  CHECK(v.cause == Cause::RenewalStopped);
  CHECK(v.clients.front() == 0);
  CHECK(v.fault == "call=A:2:delay:1.337s");
  CHECK(run_scenario(*parse_scenario(text)).verdict.holds(Property::Reentrancy));
  // The pause is not needed.
  const std::vector<std::string> needs = necessary_for(text, Property::MutualExclusion, Cause::RenewalStopped);
  CHECK(std::find(needs.begin(), needs.end(), "A's 1.337s delay of its call 2") != needs.end());
  CHECK(std::find(needs.begin(), needs.end(), "A's 500ms pause before its call 3") == needs.end());
}

TEST_CASE("review2: a Redis clock jump right after the grant ended the lock under a nested acquire", "[causes]") {
  // Redis's clock jumps +2.979s 1ms after it granted A's lock: the key expires at once,
  // and A's nested acquire at 0.010s takes it afresh. token-lua reads no clock of A's
  // before entering. (client-clock-skew before.)
  const std::string text =
      "token-lua seed=473035 clients=1 iterations=1 nested=1 replica=1 lag=93ms failover=913ms "
      "clock=A:-1.767s:0 slow=A:0:1.915s call=A:write1:delay:1.523s "
      "faults=[jump redis @9ms by +2.979s; crash redis @1.511s]";
  const Violation v = exact_violation(text, Property::Reentrancy);
  CHECK(v.cause == Cause::RedisClockJump);
  CHECK(v.clients == std::vector<uint32_t>{0});
  CHECK(v.fault == "jump redis @9ms by +2.979s");
  // Neither A's clock nor its slow section nor the failover is needed.
  CHECK(necessary_for(text, Property::Reentrancy, Cause::RedisClockJump) ==
        std::vector<std::string>{"'jump redis @9ms by +2.979s'", "the nested acquire"});
  // pubsub-wait: the same, its nested acquire's first request lost (lease-expired-delayed before).
  const std::string pubsub =
      "pubsub-wait seed=161668 clients=1 iterations=1 nested=1 spikes=0.08:1ms:1.5:50ms call=A:2:request-lost "
      "call=A:write1:delay:2.131s ids=1 faults=[jump redis @7ms by +1.321s]";
  const Violation p = exact_violation(pubsub, Property::Reentrancy);
  CHECK(p.cause == Cause::RedisClockJump);
  CHECK(p.fault == "jump redis @7ms by +1.321s");
  CHECK(necessary_for(pubsub, Property::Reentrancy, Cause::RedisClockJump) ==
        std::vector<std::string>{"'jump redis @6.47ms by +1.321s'", "the nested acquire"});
}

TEST_CASE("review2: a master clock jumped back dated the replica's copy already past before the failover",
          "[causes]") {
  // A renews at 2.414s after redis's clock jumped back 1.069s: the PEXPIREAT the master
  // replicates is already past on the replica, which deletes its copy at 2.459s. The
  // master crashes at 2.714s; the replica promoted at 3.189s has no copy of A's lock.
  // Without the jump every property holds. (failover-lost-key before.)
  const std::string text =
      "reentrant seed=0 clients=3 iterations=1 nested=1 replica=1 lag=45ms failover=475ms slow=A:0:1.71s "
      "call=C:6:pause:726.002ms call=C:2:reply-lost call=C:write1:delay:1973.871ms "
      "faults=[jump redis @2.101s by -1.069s; crash redis @2.714s]";
  const Violation v = exact_violation(text, Property::MutualExclusion);
  CHECK(v.cause == Cause::RedisClockJump);
  CHECK(v.clients == std::vector<uint32_t>{0, 1});
  CHECK(v.fault == "jump redis @2.101s by -1.069s");
  CHECK(v.sentence.find("had no copy of A's lock") != std::string::npos);
  // Every element is needed: C's faults time A's hold against the jump and the crash.
  CHECK(necessary_for(text, Property::MutualExclusion, Cause::RedisClockJump) ==
        std::vector<std::string>{"'jump redis @2.101s by -1.069s'", "'crash redis @2.714s'", "A's 1st section of 1.71s",
                                 "C's 726.002ms pause before its call 6", "C's lost reply of its call 2",
                                 "C's 1973.871ms delay of its write 1", "the replica", "the nested acquire"});
}

TEST_CASE("review2: a database row's expiry dated by a client clock behind true time", "[causes]") {
  // B's clock, 732ms behind, writes expires_at for 0.276s; the cleanup at 1.000s deletes
  // the row while B is paused, and A gets in. Without the clock offset the row outlives
  // that pass. (lease-expired-delayed before.)
  const std::string text =
      "db-insert-expiry seed=0 clients=2 iterations=1 spikes=0.03:15ms:1.5:639ms clock=B:-732ms:0 slow=B:0:980ms "
      "ids=0,2 faults=[pause B @27ms for 988ms]";
  const Violation v = exact_violation(text, Property::MutualExclusion);
  CHECK(v.cause == Cause::ClientClockSkew);
  CHECK(v.clients == std::vector<uint32_t>{1, 0});
  CHECK(v.fault == "clock=B:-732ms:0");
  CHECK(necessary_for(text, Property::MutualExclusion, Cause::ClientClockSkew) ==
        std::vector<std::string>{"'pause B @27ms for 988ms'", "B's clock offset of -732ms", "the delay spikes"});
  // A clock 117ms behind: the row is dated 0.883s, and the cleanup at 1.000s takes it
  // while A works 1.722s. With A's clock right the row outlives that pass and A leaves
  // before the next: the clock is what fails it, and the lease ran out when the row went,
  // at 1.000s. (lease-expired-working "at 0.883s" before.)
  const std::string slow = "db-insert-expiry seed=1122 clients=2 iterations=1 clock=A:-117ms:0 slow=A:0:1.722s ids=1,2";
  const Violation w = exact_violation(slow, Property::MutualExclusion);
  CHECK(w.cause == Cause::ClientClockSkew);
  CHECK(w.fault == "clock=A:-117ms:0");
  CHECK(w.sentence.find("the store ended it at 1.000s") != std::string::npos);
  CHECK(necessary_for(slow, Property::MutualExclusion, Cause::ClientClockSkew) ==
        std::vector<std::string>{"A's 1st section of 1.722s", "A's clock offset of -117ms"});
}

TEST_CASE("review2: a Redlock that counts its quorum over the masters it reached enters on one", "[causes]") {
  std::string error;
  if (!lock::find_algorithm("redlock-connected-quorum"))
    REQUIRE(lock::register_lua_variant_file(LOCKSIM_EXAMPLES_DIR "/buggy/redlock_connected_quorum.lua", &error));
  // B enters on redis2 alone (redis1 and redis3 down), A, restarted, on redis3 alone
  // (redis1 down, redis2 cut off from it). (redis-down before: redis2's crash ended B's vote.)
  const std::string text =
      "redlock-connected-quorum seed=26 clients=2 iterations=2 masters=3 clock=B:+0s:-101818 call=A:10:crash "
      "call=B:4:pause:1.983s faults=[crash redis3 @1.207s; cut A redis2 @1.438s for 1.274s; crash A @1.704s; "
      "crash redis1 @1.74s; restart A @1.979s; restart redis3 @2.156s; crash redis2 @2.19s]";
  const Violation v = exact_violation(text, Property::MutualExclusion);
  CHECK(v.cause == Cause::NoQuorum);
  CHECK(v.clients == std::vector<uint32_t>{1, 0});
  CHECK(v.fault.empty());
  CHECK(v.sentence.find("A entered having won the lock on 1 of the 3 masters (redis3)") != std::string::npos);
  CHECK(v.sentence.find("B too had entered on 1 of them (redis2)") != std::string::npos);
  CHECK(v.sentence.find("no master had given it") == std::string::npos);
  // Every element is needed, B's clock drift too (it times B's pause against the crashes).
  CHECK(necessary_for(text, Property::MutualExclusion, Cause::NoQuorum) ==
        std::vector<std::string>{"'crash redis3 @1.207s'", "'cut A redis2 @1.438s for 1.274s'", "'crash A @1.704s'",
                                 "'crash redis1 @1.74s'", "'restart A @1.979s'", "'restart redis3 @2.156s'",
                                 "'crash redis2 @2.19s'", "A's crash before its call 10",
                                 "B's 1.983s pause before its call 4", "B's clock drift of -101818 ppm"});
}

TEST_CASE("review2: a restarted holder that re-entered its dead incarnation's row held it, stuck on a lost reply",
          "[causes]") {
  // A dies at 0.128s holding the row; restarted at 0.642s under the same owner name, it
  // re-enters that row at 0.645s, and its nested acquire's reply is lost: it waits out the
  // call's timeout, holding the row until 6.7s. B gave up waiting on a live holder.
  // (crashed-holder-blocked-waiters before: "the lock A died holding".)
  const std::string text =
      "db-reentrant seed=0 clients=2 nested=1 clock=A:+0s:-60538 clock=B:+0s:70411 call=A:10:reply-lost "
      "faults=[crash A @128ms; restart A @642ms]";
  const Violation v = exact_violation(text, Property::NoDeadlock);
  CHECK(v.cause == Cause::AmbiguousReply);
  CHECK(v.clients == std::vector<uint32_t>{0, 1});
  CHECK(v.fault == "call=A:10:reply-lost");
  CHECK(v.sentence.find("re-entered at 0.645s the lock its crashed incarnation held") != std::string::npos);
  // The clocks' drifts time the two against each other: without either, every property holds.
  CHECK(necessary_for(text, Property::NoDeadlock, Cause::AmbiguousReply) ==
        std::vector<std::string>{"'crash A @128ms'", "'restart A @642ms'", "A's lost reply of its call 10",
                                 "A's clock drift of -60538 ppm", "B's clock drift of +70411 ppm",
                                 "the nested acquire"});
}

TEST_CASE("review2: a database row dated as its INSERT was sent, which then waited in flight", "[causes]") {
  // A's dead incarnation's DELETE (call 3) is held 1.374s on A's connection; the restarted
  // A's INSERT, its expires_at dated as it was sent at 0.294s, waits behind it and lands at
  // 1.657s: the cleanup at 2.000s takes the row 342ms into A's lease. Without the hold A
  // would have entered at 0.3s and left long before. (client-clock-skew before, naming a
  // 3% clock drift the failure does not need.)
  const std::string text =
      "db-insert-expiry seed=300158 clients=2 iterations=2 call=A:3:delay:1.374s call=A:write2:delay:1.047s "
      "ids=0,2 faults=[crash A @293ms; restart A @294ms]";
  const Violation v = exact_violation(text, Property::MutualExclusion);
  CHECK(v.cause == Cause::LeaseDelayed);
  CHECK(v.clients == std::vector<uint32_t>{0, 1});
  CHECK(v.fault == "call=A:3:delay:1.374s");
  CHECK(v.sentence.find("behind a call of A's held from") != std::string::npos);
  // A's held write keeps it inside past 2.000s too: without it A leaves at 1.806s.
  CHECK(necessary_for(text, Property::MutualExclusion, Cause::LeaseDelayed) ==
        std::vector<std::string>{"'crash A @293ms'", "'restart A @294ms'", "A's 1.374s delay of its call 3",
                                 "A's 1.047s delay of its write 2"});
}

TEST_CASE("review2: a clock offset alone never makes an acquire look shorter than it was", "[causes]") {
  // Redis's clock jumps right after it grants A's lock; B gets in long before A's lease's
  // true end, while A works 1.915s. A's clock, 1.767s behind, read the acquire's length
  // right: an offset moves readings, not their differences. (client-clock-skew before:
  // "A's clock said its lease was still valid and it entered".) Without the jump B gets in
  // at the lease's end anyway, A still working: the work is what fails it.
  const std::string text =
      "token-lua seed=473035 clients=2 iterations=1 clock=A:-1.767s:0 slow=A:0:1.915s "
      "faults=[jump redis @9ms by +2.979s]";
  const Violation v = exact_violation(text, Property::MutualExclusion);
  CHECK(v.cause == Cause::LeaseOutworked);
  CHECK(v.clients == std::vector<uint32_t>{0, 1});
  CHECK(v.fault == "slow=A:0:1.915s");
  // The sentence still says what ended the lease when it did.
  CHECK(v.sentence.find("A's lease was ended 1000ms early by redis's clock at 0.009s") != std::string::npos);
  CHECK(necessary_for(text, Property::MutualExclusion, Cause::LeaseOutworked) ==
        std::vector<std::string>{"A's 1st section of 1.915s"});
}
