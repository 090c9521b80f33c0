// The lock ledger: facts about lock instances as the backends report them
// (lock/ledger.hpp), on hand-made changes and on simulated runs.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "locksim/lock/ledger.hpp"
#include "locksim/lock/registry.hpp"
#include "locksim/sim/fault.hpp"

using namespace locktest;

namespace {

KeyChange set(sim::Duration at, uint32_t client, Purpose purpose, std::string value, uint32_t node = 0) {
  KeyChange c;
  c.kind = KeyChange::Kind::Set;
  c.at = locktest::at(at);
  c.node = node;
  c.key = "lock";
  c.client = client;
  c.purpose = purpose;
  c.value = std::move(value);
  c.deadline = locktest::at(at + 1_s);
  return c;
}

KeyChange gone(KeyChange::Kind kind, sim::Duration at, uint32_t client, Purpose purpose, uint32_t node = 0) {
  KeyChange c;
  c.kind = kind;
  c.at = locktest::at(at);
  c.node = node;
  c.key = "lock";
  c.client = client;
  c.purpose = purpose;
  return c;
}

const LockInstance& only(const Ledger& l, uint32_t client) {
  auto mine = l.granted_to(client);
  REQUIRE(mine.size() == 1);
  return *mine.front();
}

}  // namespace

TEST_CASE("ledger: a grant, its owner's re-arm and release", "[lock][ledger]") {
  Ledger l;
  l.track("lock");
  l.change(set(0_ms, 0, Purpose::Acquire, "a"));
  l.change(set(300_ms, 0, Purpose::Renew, "a"));
  l.change(gone(KeyChange::Kind::Deleted, 500_ms, 0, Purpose::Release));
  l.settle();
  const LockInstance& a = only(l, 0);
  CHECK(a.rearms == 1);
  CHECK(a.last_armed == at(300_ms));
  CHECK(a.end == InstanceEnd::Released);
  CHECK(a.ended == at(500_ms));
  CHECK(l.live("lock", 0) == nullptr);
  CHECK(l.facts().size() == 3);
}

TEST_CASE("ledger: untracked keys are not lock instances", "[lock][ledger]") {
  Ledger l;
  l.track("lock");
  KeyChange counter = set(0_ms, 0, Purpose::Acquire, "1");
  counter.key = "fence";
  l.change(counter);
  l.settle();
  CHECK(l.instances().empty());
}

TEST_CASE("ledger: another client's DEL ends the instance as released by another", "[lock][ledger]") {
  Ledger l;
  l.change(set(0_ms, 0, Purpose::Acquire, "a"));
  l.change(gone(KeyChange::Kind::Deleted, 100_ms, 1, Purpose::Release));
  l.settle();
  const LockInstance& a = only(l, 0);
  CHECK(a.end == InstanceEnd::ReleasedByOther);
  CHECK(a.ended_by == 1);
  CHECK(a.ended_purpose == Purpose::Release);
}

TEST_CASE("ledger: an acquire's write over a live instance is a takeover only if its client acquired",
          "[lock][ledger]") {
  SECTION("the writer acquired: the instance was overwritten") {
    Ledger l;
    l.change(set(0_ms, 0, Purpose::Acquire, "a"));
    l.change(set(100_ms, 1, Purpose::Acquire, "b"));
    CHECK(l.live("lock", 0)->owner == 0);  // pending the writer's word
    l.client_acquired(1, at(110_ms));
    l.settle();
    const LockInstance& a = only(l, 0);
    CHECK(a.end == InstanceEnd::Overwritten);
    CHECK(a.ended == at(100_ms));
    CHECK(a.ended_by == 1);
    const LockInstance& b = only(l, 1);
    CHECK(a.successor == b.id);
    CHECK(b.granted == at(100_ms));
    CHECK(b.live());
  }
  SECTION("the writer lost (a losing GETSET): it rewrote the owner's instance") {
    Ledger l;
    l.change(set(0_ms, 0, Purpose::Acquire, "a"));
    l.change(set(100_ms, 1, Purpose::Acquire, "b"));
    // What follows on the key waits for the writer's word, in order.
    l.change(gone(KeyChange::Kind::Deleted, 150_ms, 0, Purpose::Release));
    CHECK(l.live("lock", 0) != nullptr);
    l.client_step(1);  // it went back to waiting
    l.settle();
    const LockInstance& a = only(l, 0);
    CHECK(a.foreign_rearms == 1);
    CHECK(a.value == "b");
    CHECK(a.end == InstanceEnd::Released);  // the owner's own DEL, though the value was B's
    CHECK(l.granted_to(1).empty());
  }
  SECTION("the writer touched the key again before saying it acquired: it lost") {
    Ledger l;
    l.change(set(0_ms, 0, Purpose::Acquire, "a"));
    l.change(set(100_ms, 1, Purpose::Acquire, "b"));
    l.change(set(200_ms, 1, Purpose::Acquire, "b2"));
    l.settle();
    CHECK(only(l, 0).foreign_rearms == 2);
  }
}

TEST_CASE("ledger: an expiry says how early it came, in true time", "[lock][ledger]") {
  Ledger l;
  l.change(set(0_ms, 0, Purpose::Acquire, "a"));  // deadline 1 s
  l.change(gone(KeyChange::Kind::Expired, 400_ms, kNoClient, Purpose::Other));
  const LockInstance& a = only(l, 0);
  CHECK(a.end == InstanceEnd::Expired);
  CHECK(a.early == 600_ms);
}

TEST_CASE("ledger: a crash without persistence loses the instance, with it, nothing ends", "[lock][ledger]") {
  Ledger l;
  l.change(set(0_ms, 0, Purpose::Acquire, "a"));
  l.server_crashed(0, at(100_ms), true);
  CHECK(l.live("lock", 0) != nullptr);
  l.server_crashed(0, at(200_ms), false);
  CHECK(only(l, 0).end == InstanceEnd::LostWithServer);
  CHECK(only(l, 0).ended == at(200_ms));
}

TEST_CASE("ledger: a failover hands an instance to the replica's copy, or loses it", "[lock][ledger]") {
  Ledger l;
  l.set_replica(0, 1);
  l.change(set(0_ms, 0, Purpose::Acquire, "a"));
  l.change(set(20_ms, 0, Purpose::Acquire, "a", 1));  // replicated
  CHECK(l.live("lock", 1)->copy);
  CHECK_FALSE(l.serving(1, at(20_ms)));
  l.server_crashed(0, at(100_ms), false);
  l.promoted(1, at(1100_ms));
  auto a = l.granted_to(0);
  REQUIRE(a.size() == 2);  // the master's, and the promoted copy
  CHECK(a[0]->end == InstanceEnd::HandedOver);
  CHECK(a[0]->successor == a[1]->id);
  CHECK_FALSE(a[1]->copy);
  CHECK(l.serving(1, at(1100_ms)));

  Ledger lost;
  lost.set_replica(0, 1);
  lost.change(set(0_ms, 0, Purpose::Acquire, "a"));
  lost.server_crashed(0, at(5_ms), false);  // before the copy left
  lost.promoted(1, at(1005_ms));
  CHECK(only(lost, 0).end == InstanceEnd::LostInFailover);
  CHECK(only(lost, 0).ended == at(5_ms));
}

TEST_CASE("ledger, simulated: set-nx-px work past the lease (F07, F08)", "[lock][ledger]") {
  SimulationConfig c;
  c.algorithm = "set-nx-px";
  c.lock.lease = 1_s;
  c.workload.clients = 2;
  c.workload.iterations = 3;
  c.workload.work_min = c.workload.work_max = 800_ms;
  c.workload.slow_work = {SlowWork{0, 0, 1500_ms}};
  auto s = run(c);
  const Ledger& l = s->history().ledger();
  auto a = l.granted_to(0);
  REQUIRE_FALSE(a.empty());
  CHECK(a[0]->end == InstanceEnd::Expired);
  CHECK(a[0]->early < 2_ms);  // on time: Redis's clock is sane
  // A's late DEL ended B's instance.
  bool a_released_b = false;
  for (const LockInstance* b : l.granted_to(1))
    a_released_b |= b->end == InstanceEnd::ReleasedByOther && b->ended_by == 0 && b->ended_purpose == Purpose::Release;
  CHECK(a_released_b);
}

TEST_CASE("ledger, simulated: a database lock's instances live on the database, untouched by Redis faults",
          "[lock][ledger]") {
  SimulationConfig c;
  c.algorithm = "db-insert-expiry";
  c.workload.clients = 2;
  c.workload.iterations = 2;
  c.faults.faults.push_back(sim::Fault{sim::FaultKind::Crash, "redis", "", at(10_ms)});
  auto s = run(c);
  const Ledger& l = s->history().ledger();
  REQUIRE_FALSE(l.instances().empty());
  for (const LockInstance& i : l.instances()) {
    CHECK(i.node == kDatabaseNode);
    CHECK(i.end != InstanceEnd::LostWithServer);
    CHECK(i.end != InstanceEnd::LostInFailover);
  }
}

TEST_CASE("ledger, simulated: every algorithm's runs build a ledger that keeps its invariants", "[lock][ledger]") {
  // The ledger asserts as it grows: a run that breaks an invariant aborts.
  for (const Algorithm& algorithm : algorithms()) {
    // The built-ins (the posts' locks); a test's Lua variant registered in this process may keep no lock at all.
    if (algorithm.failures == "user variant") continue;
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      SimulationConfig c;
      c.algorithm = algorithm.id;
      c.seed = seed;
      c.workload.clients = 3;
      c.workload.iterations = 3;
      c.workload.slow_work = {SlowWork{0, 0, 1500_ms}};
      c.faults.faults.push_back(sim::Fault{sim::FaultKind::Crash, "redis", "", at(300_ms)});
      auto s = run(c);
      const Ledger& l = s->history().ledger();
      INFO(algorithm.id << " seed " << seed);
      for (const LockInstance& i : l.instances()) {
        CHECK(i.over() >= i.granted);
        if (!i.live()) CHECK(i.ended >= i.granted);
      }
      // Every client that entered a critical section had been granted an instance (the lock lives in the store).
      for (const HistoryEvent& e : s->history().events())
        if (e.step == Step::Enter) CHECK_FALSE(l.granted_to(e.client).empty());
    }
  }
}
