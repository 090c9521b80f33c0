// Causes a reviewer found misnamed by replaying counterexamples and reading their
// timelines (issue 27): each scenario is a replay line `check` printed, and must now
// name the true mechanism, for the clients and the faults that produced it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "locksim/lock/lua_variant.hpp"
#include "locksim/lock/registry.hpp"
#include "locksim/props/assumptions.hpp"
#include "locksim/props/explorer.hpp"
#include "replayed.hpp"

using namespace locksim;
using namespace locksim::props;

using test::exact_violation;
using test::necessary_for;

TEST_CASE("review: on several masters the successor's own quorum decides which end let it in", "[causes]") {
  // A works 2.6s on a 1s lease. Its votes expire on redis1 and redis3, and C gets in on
  // those two; redis2's crash came between the two expiries but C did without redis2.
  // (Named redis-down, the end that broke A's majority, before: the crash and C's lost
  // request were kept to hold on to that name.)
  const std::string text =
      "redlock seed=11 clients=3 iterations=1 masters=3 slow=A:0:2.645s call=C:2:request-lost "
      "faults=[crash redis2 @1.069s]";
  const Violation v = exact_violation(text, Property::MutualExclusion);
  CHECK(v.cause == Cause::LeaseOutworked);
  CHECK(v.clients.front() == 0);
  CHECK(v.fault == "slow=A:0:2.645s");
  CHECK(necessary_for(text, Property::MutualExclusion, Cause::LeaseOutworked) ==
        std::vector<std::string>{"A's 1st section of 2.645s"});
}

TEST_CASE("review: a nested acquire queued behind a call held in flight is not refused by a Redis outage",
          "[causes]") {
  // B's call 4 is held 1.183s in flight as B enters; its nested acquire waits behind it on
  // B's FIFO connection. Redis's 1ms outage at 0.217s met none of its calls. (Named
  // redis-down before, and nested-acquire-waits-on-itself without the outage.) B's lease
  // ran out while the delay held its calls; the nested acquire then took a fresh lock, so
  // the failure is the lost lease's, not the nesting's (it read as reentrancy's before).
  const std::string text =
      "reentrant seed=27656 clients=2 iterations=2 nested=1 persistent=1 call=B:4:delay:1.183s explicit-lease=1s "
      "faults=[crash redis @217ms; restart redis @218ms]";
  const Violation v = exact_violation(text, Property::MutualExclusion);
  CHECK(v.cause == Cause::LeaseDelayed);
  CHECK(std::find(v.clients.begin(), v.clients.end(), 1u) != v.clients.end());
  CHECK(v.fault == "call=B:4:delay:1.183s");
  CHECK(run_scenario(*parse_scenario(text)).verdict.holds(Property::Reentrancy));
  const std::vector<std::string> needs = necessary_for(text, Property::MutualExclusion, Cause::LeaseDelayed);
  CHECK(std::find(needs.begin(), needs.end(), "'crash redis @217ms'") == needs.end());
}

TEST_CASE("review: the deployment, not the lock's name, decides the default assumptions", "[causes]") {
  // Any lock on several masters is built to outlive a master that stays down.
  const Assumptions many = default_assumptions("set-nx-px", 3);
  CHECK(many.sane_client_clock);
  CHECK_FALSE(many.redis_up);
  CHECK_FALSE(many.no_failover);
  const Assumptions one = default_assumptions("set-nx-px");
  CHECK(one.redis_up);
  CHECK(one.no_failover);
  CHECK_FALSE(one.sane_client_clock);
  CHECK(default_assumptions("redlock").sane_client_clock);  // its own deployment: 3 masters
  CHECK_FALSE(default_assumptions("redlock").redis_up);
}

TEST_CASE("review: an EXEC whose node restarted during the acquire ran unwatched", "[causes]") {
  // A WATCHes, is paused 2.4s, and runs MULTI/SET/EXEC on a new connection after Redis
  // restarted (durably): its WATCH was lost with the old one. (takeover-race before.)
  const std::string text =
      "watch-multi seed=0 clients=2 iterations=1 persistent=1 call=A:3:pause:2.375s ids=1,2 "
      "faults=[crash B @64ms; restart B @65ms; crash redis @982ms; restart redis @2.16s]";
  const Violation v = exact_violation(text, Property::MutualExclusion);
  CHECK(v.cause == Cause::WatchLost);
  CHECK(v.fault == "crash redis @982ms; restart redis @2.16s");
}

TEST_CASE("review: a Redlock that counts a timed-out master as a vote enters without a quorum", "[causes]") {
  std::string error;
  if (!lock::find_algorithm("buggy-redlock-timeout-counts"))
    REQUIRE(lock::register_lua_variant_file(LOCKSIM_EXAMPLES_DIR "/buggy/redlock_timeout_counts.lua", &error));
  // B wins redis3 and counts its call to redis2, held in flight, as a vote, while A holds
  // redis1 and redis2. (unknown before: neither lock was ever seen to end.)
  const std::string text =
      "buggy-redlock-timeout-counts seed=8310 clients=2 iterations=1 persistent=1 masters=3 "
      "call=B:8:delay:868ms call=A:3:delay:2.203s";
  const Violation v = exact_violation(text, Property::MutualExclusion);
  CHECK(v.cause == Cause::NoQuorum);
  CHECK(v.sentence.find("B entered having won the lock on 1 of the 3 masters (redis3)") != std::string::npos);
}

TEST_CASE("review: a timestamp lock's stamp stays with the hold it made when an older end waits in the ledger",
          "[causes]") {
  // B's losing GETSET at 0.290s waits in the ledger for B's word; A's release of its 2nd
  // hold and its 3rd SETNX queue behind it. A's 3rd stamp belongs to the 3rd hold, not to
  // the 2nd one still live there; B's clock, 1.4s ahead, then judges it expired. (Named
  // watch-lost-on-reconnect before: the 3rd hold had no stamp, so B's GETSET was read as
  // an EXEC over a lock without one, and B's earlier reset took the blame.)
  const std::string text =
      "getset seed=110670 clients=2 persistent=1 spikes=0.27:27ms:1.5:1.046s clock=B:+1.399s:0 slow=A:2:1.654s "
      "faults=[reset B redis @113ms]";
  const Violation v = exact_violation(text, Property::MutualExclusion);
  CHECK(v.cause == Cause::ClientClockSkew);
  CHECK(v.clients == std::vector<uint32_t>{0, 1});
  CHECK(v.fault == "clock=B:+1.399s:0");
  const std::vector<std::string> needs = necessary_for(text, Property::MutualExclusion, Cause::ClientClockSkew);
  CHECK(needs == std::vector<std::string>{"B's clock offset of 1.399s"});
}

TEST_CASE("review: a failover carries a hold on only with a copy made after its grant", "[causes]") {
  // A's second incarnation takes the lock at 2.647s once its first incarnation's key has
  // expired; the master dies 87ms later, before replicating it. The replica still holds
  // the first incarnation's expired copy (its deletion was in flight too): no copy of
  // the new hold, which the failover lost. (Named renewal-too-late before: the ledger
  // handed the new hold over to the old copy and read its last re-arm at 1.711s.)
  const std::string text =
      "watchdog seed=0 clients=2 iterations=1 replica=1 lag=89ms failover=127ms slow=A:0:2.092s "
      "call=B:11:request-lost faults=[crash A @633ms; restart A @1.621s; restart A @1.727s; crash redis @2.734s]";
  const Violation v = exact_violation(text, Property::MutualExclusion);
  CHECK(v.cause == Cause::FailoverLost);
  CHECK(v.clients == std::vector<uint32_t>{0, 1});
  CHECK(v.fault == "crash redis @2.734s");
  const std::vector<std::string> needs = necessary_for(text, Property::MutualExclusion, Cause::FailoverLost);
  CHECK(needs == std::vector<std::string>{"'crash A @633ms'", "'restart A @1.621s'", "'restart A @1.727s'",
                                          "'crash redis @2.734s'", "A's 1st section of 2.092s",
                                          "B's lost request of its call 11", "the replica"});
}
