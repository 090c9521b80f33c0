// watchdog (F12): renewals keep a long critical section's lease alive; a
// crash stops them with the node, and the key is gone about one lease after
// the last renewal.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "locksim/sim/fault.hpp"

using namespace locktest;

namespace {

SimulationConfig long_hold(uint32_t clients) {
  SimulationConfig c;
  c.algorithm = "watchdog";
  c.lock.lease = 1_s;  // renewal every 333ms
  c.lock.wait_limit = 30_s;
  c.workload.clients = clients;
  c.workload.iterations = 1;
  c.workload.start_spread = 0_ms;
  c.workload.slow_work = {SlowWork{0, 0, 10_s}, SlowWork{1, 0, 10_s}};  // whoever holds first: ten leases
  return c;
}

sim::FaultPlan plan(const char* text) {
  std::string error;
  auto p = sim::parse_fault_plan(text, &error);
  INFO(error);
  REQUIRE(p);
  return *p;
}

// Who takes the lock first in this config (a dry run of its first second).
uint32_t first_holder(const SimulationConfig& c) {
  Simulation dry(c);
  dry.world().run_until(at(1_s));
  return steps(dry.history(), Step::Acquired).at(0).client;
}

}  // namespace

TEST_CASE("watchdog: a critical section ten leases long completes, renewed, and the key never expires", "[lock]") {
  auto s = run(long_hold(2));
  const History& h = s->history();
  auto acquired = steps(h, Step::Acquired);
  REQUIRE(acquired.size() == 2);
  const uint32_t first = acquired[0].client;
  const uint32_t second = acquired[1].client;
  auto enter = steps(h, Step::Enter, first);
  auto leave = steps(h, Step::Leave, first);
  auto release = steps(h, Step::ReleaseStart, first);
  REQUIRE(enter.size() == 1);
  REQUIRE(leave.size() == 1);
  REQUIRE(release.size() == 1);
  CHECK((leave[0].at - enter[0].at) >= 10_s);

  // About 10s / 333ms renewals, each one succeeded.
  const auto renewed = steps(h, Step::Renewed, first);
  CHECK(renewed.size() >= 28);
  CHECK(renewed.size() <= 31);
  CHECK(steps(h, Step::RenewFailed).empty());

  // While held, the lock key is never expired or deleted; only its TTL moves.
  for (const HistoryEvent& e : h.events()) {
    if (e.key != "lock" || e.at < acquired[0].at || e.at >= release[0].at) continue;
    CHECK(e.step != Step::KeyExpired);
    CHECK(e.step != Step::KeyDeleted);
  }
  // The waiter got in only after the holder's release, and then exclusively.
  CHECK(acquired[1].at > release[0].at);
  CHECK(overlaps(h).empty());
  CHECK(steps(h, Step::Released, first).at(0).own_lock);
  CHECK(steps(h, Step::Released, second).at(0).own_lock);
}

TEST_CASE("watchdog: a crash stops renewal and the key expires one lease after the last renewal", "[lock]") {
  SimulationConfig c = long_hold(1);
  c.faults = plan("crash A @3s");
  Simulation s(c);
  s.world().run_until(at(3_s) + 1_ms);
  const History& h = s.history();

  const auto renewed = steps(h, Step::Renewed, 0);
  REQUIRE(renewed.size() >= 8);  // 3s / 333ms
  // The last re-arm of the key, as the server saw it: its new deadline.
  int64_t deadline_ms = -1;
  sim::Instant last_rearm{};
  for (const HistoryEvent& e : h.events())
    if (e.key == "lock" && e.step == Step::KeyExpireChanged && e.purpose == Purpose::Renew) {
      deadline_ms = e.expire_at_ms;
      last_rearm = e.at;
    }
  REQUIRE(deadline_ms > 0);
  CHECK(last_rearm > at(3_s) - 400_ms);  // within one renewal interval of the crash
  CHECK(last_rearm < at(3_s));
  RedisNode& redis = s.redis();
  // The redis node's clock is the true clock here: deadline = last re-arm + one lease.
  CHECK(deadline_ms == unix_ms(last_rearm) + 1000);

  // Still there (TTL counting down) just before the deadline, gone just after.
  s.world().run_until(at(sim::Duration{(deadline_ms - kEpochMs - 1) * 1'000'000}));
  CHECK(redis.server().peek_pttl("lock", redis.local_ms()) == 1);
  CHECK(redis.server().peek_string("lock", redis.local_ms()).has_value());
  // (Redis deems a key expired once now > its deadline: at the deadline it is still there.)
  s.world().run_until(at(sim::Duration{(deadline_ms - kEpochMs + 1) * 1'000'000}));
  CHECK_FALSE(redis.server().peek_string("lock", redis.local_ms()).has_value());
  CHECK(redis.server().peek_pttl("lock", redis.local_ms()) == -2);

  // Nothing renewed after the crash.
  s.world().run_until(at(20_s));
  for (const HistoryEvent& e : steps(h, Step::Renewed)) CHECK(e.at < at(3_s));
  CHECK(steps(h, Step::Crashed, 0).size() == 1);
}

TEST_CASE("watchdog: after the holder crashes a waiter gets the lock about one lease later (no-deadlock)", "[lock]") {
  SimulationConfig c = long_hold(2);
  const uint32_t holder = first_holder(c);
  c.faults = plan(holder == 0 ? "crash A @3s" : "crash B @3s");
  auto s = run(c);
  const History& h = s->history();
  const uint32_t waiter = 1 - holder;
  auto got = steps(h, Step::Acquired, waiter);
  REQUIRE(got.size() == 1);
  sim::Instant last_renew{};
  for (const HistoryEvent& e : steps(h, Step::Renewed, holder)) last_renew = e.at;
  // Free one lease after the last renewal; the waiter retries every 100ms.
  CHECK(got[0].at >= last_renew + 1_s - 5_ms);
  CHECK(got[0].at <= last_renew + 1_s + 150_ms);
  CHECK(overlaps(h).empty());
}

TEST_CASE("watchdog with an explicit lease does not renew (F15)", "[lock]") {
  SimulationConfig c = long_hold(2);
  c.lock.explicit_lease = 1_s;
  auto s = run(c);
  const History& h = s->history();
  CHECK(steps(h, Step::Renewed).empty());
  CHECK_FALSE(overlaps(h).empty());  // F10 is back
}

TEST_CASE("watchdog: a pause longer than the lease freezes the renewal too (F13)", "[lock]") {
  SimulationConfig c = long_hold(2);
  c.workload.slow_work = {SlowWork{0, 0, 3_s}, SlowWork{1, 0, 3_s}};
  // The holder's whole process stalls past its lease, the renewal task with it.
  c.faults = plan(first_holder(c) == 0 ? "pause A @500ms for 2s" : "pause B @500ms for 2s");
  auto s = run(c);
  const History& h = s->history();
  auto ov = overlaps(h);
  REQUIRE_FALSE(ov.empty());
  // The holder resumed believing it held; its next renewal found someone else's token.
  CHECK_FALSE(steps(h, Step::RenewFailed, ov[0].first.client).empty());
}

TEST_CASE("watchdog: a crash injected at a renewal command kills the client cleanly", "[watchdog]") {
  // The renewal task sends command 3 (SET, then renewals); crashing there
  // destroys the main task (and the Env the renewal uses) while the renewal
  // task is running: nothing may touch either afterwards.
  SimulationConfig c;
  c.algorithm = "watchdog";
  c.workload.clients = 2;
  c.workload.iterations = 1;
  c.workload.slow_work.push_back({0, 0, 2_s});
  c.workload.call_faults.push_back({0, 3, CallFault::Kind::Crash, {}});
  Simulation sim(c);
  sim.run();
  bool crashed = false;
  int b_acquired = 0;
  for (const auto& e : sim.history().events()) {
    crashed = crashed || (e.client == 0 && e.step == Step::Crashed);
    b_acquired += e.client == 1 && e.step == Step::Acquired;
  }
  CHECK(crashed);
  CHECK(b_acquired == 1);  // the lock freed within a lease of the last renewal
}

TEST_CASE("params: a zero retry, lease or call timeout is refused (it would spin at one instant)", "[params]") {
  LockParams p;
  for (const char* name : {"retry", "lease", "call-timeout"}) {
    auto error = find_lock_param(name)->set(p, "0ms");
    REQUIRE(error);
    CHECK(*error == "must be at least 1ms");
  }
  SimulationConfig c;
  c.lock.retry = 0_ms;
  CHECK_THROWS_WITH(Simulation(c), "retry, call-timeout and lease must be at least 1ms");
}
