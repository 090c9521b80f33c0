// Lock-level sanity for a few catalogue failures: which clients, and what.
// (The full catalogue is checked by props/.)
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "locksim/sim/fault.hpp"

using namespace locktest;

TEST_CASE("F07/F08 set-nx-px: work past the lease lets B in while A works, A's DEL removes B's lock", "[lock]") {
  SimulationConfig c;
  c.algorithm = "set-nx-px";
  c.lock.lease = 1_s;
  c.workload.clients = 2;
  c.workload.iterations = 3;
  c.workload.work_min = c.workload.work_max = 800_ms;  // B still works when A's DEL comes
  c.workload.slow_work = {SlowWork{0, 0, 1500_ms}};
  auto s = run(c);
  const History& h = s->history();
  auto ov = overlaps(h);
  REQUIRE_FALSE(ov.empty());
  // The overlap is A's slow section and B's.
  const Overlap& o = ov[0];
  CHECK(o.first.client == 0);
  CHECK(o.second.client == 1);
  CHECK(o.first.to - o.first.from >= 1'500'000'000);
  // B acquired while A was inside, after the key expired.
  bool b_inside = false;
  for (const HistoryEvent& e : steps(h, Step::Acquired, 1)) b_inside |= o.first.contains(e.at.ns);
  CHECK(b_inside);
  bool expired = false;
  for (const HistoryEvent& e : steps(h, Step::KeyExpired)) expired |= e.key == "lock" && o.first.contains(e.at.ns);
  CHECK(expired);
  // F08: A's release DELs the key while B is inside (B's lock).
  bool a_deleted_bs = false;
  for (const HistoryEvent& e : steps(h, Step::KeyDeleted, 0))
    a_deleted_bs |= e.purpose == Purpose::Release && o.second.contains(e.at.ns);
  CHECK(a_deleted_bs);
}

TEST_CASE("F10 token-lua: the same schedule overlaps, but A's late release is harmless", "[lock]") {
  SimulationConfig c;
  c.algorithm = "token-lua";
  c.workload.clients = 2;
  c.workload.iterations = 3;
  c.workload.slow_work = {SlowWork{0, 0, 1500_ms}};
  auto s = run(c);
  const History& h = s->history();
  auto ov = overlaps(h);
  REQUIRE_FALSE(ov.empty());
  CHECK(ov[0].first.client == 0);
  // A's compare-and-delete found B's token: refused, nothing deleted by A's release while B holds.
  CHECK(!steps(h, Step::Released, 0).at(0).own_lock);
  for (const HistoryEvent& e : steps(h, Step::KeyDeleted, 0)) CHECK_FALSE(ov[0].second.contains(e.at.ns));
}

TEST_CASE("F01 setnx-del: a holder crashing before its DEL leaves the key forever", "[lock]") {
  SimulationConfig c;
  c.algorithm = "setnx-del";
  c.lock.wait_limit = 2_s;
  c.workload.clients = 1;
  c.workload.iterations = 1;
  c.workload.call_faults = {CallFault{0, 2, CallFault::Kind::Crash}};  // A crashes just before its DEL
  c.faults = *sim::parse_fault_plan("restart A @1s");
  auto s = run(c);
  const History& h = s->history();
  CHECK(steps(h, Step::Acquired, 0).size() == 1);
  CHECK(steps(h, Step::Crashed, 0).size() == 1);
  // Restarted, A cannot take its own orphaned lock: it waits out its limit.
  CHECK(steps(h, Step::AcquireFailed, 0).size() == 1);
  CHECK(s->redis().server().peek_pttl("lock", s->redis().local_ms()) == -1);  // no TTL at all
}

TEST_CASE("F02 setnx-expire: a crash between SETNX and EXPIRE leaves a key without a TTL", "[lock]") {
  SimulationConfig c;
  c.algorithm = "setnx-expire";
  c.lock.wait_limit = 3_s;
  c.workload.clients = 1;
  c.workload.iterations = 1;
  c.workload.call_faults = {CallFault{0, 2, CallFault::Kind::Crash}};  // just before EXPIRE
  auto s = run(c);
  const History& h = s->history();
  CHECK(steps(h, Step::Crashed, 0).size() == 1);
  CHECK(steps(h, Step::Acquired).empty());
  CHECK(s->redis().server().peek_pttl("lock", s->redis().local_ms()) == -1);
  CHECK(s->redis().server().peek_string("lock", s->redis().local_ms()) == std::optional<std::string>("1"));
}
