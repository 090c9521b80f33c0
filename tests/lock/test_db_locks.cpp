// The database locks on the simulated database node: the lock table's row,
// the FOR UPDATE wait answered later (a deferred reply), a dead client's
// session ended only after the detection delay, the cleanup job.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "helpers.hpp"
#include "locksim/sim/fault.hpp"

using namespace locktest;

namespace {

SimulationConfig db_config(const char* algorithm) {
  SimulationConfig c;
  c.algorithm = algorithm;
  c.workload.clients = 2;
  c.workload.iterations = 3;
  return c;
}

sim::FaultPlan fault_plan(const char* text) {
  std::string error;
  auto p = sim::parse_fault_plan(text, &error);
  INFO(error);
  REQUIRE(p);
  return *p;
}

std::vector<std::string> lock_rows(Simulation& s) {
  std::vector<std::string> out;
  for (const db::Row& r : s.database()->database().rows()) out.push_back(r.name + "=" + r.owner);
  return out;
}

// Which client wins the first acquire of this config without faults: a fault
// aimed at it changes nothing before it strikes.
uint32_t first_acquirer(const SimulationConfig& c) {
  SimulationConfig quiet = c;
  quiet.faults = {};
  quiet.workload.call_faults.clear();
  auto s = run(quiet);
  return steps(s->history(), Step::Acquired).at(0).client;
}

}  // namespace

TEST_CASE("db locks: with no faults every client gets the lock, no two at once, and the table ends empty", "[lock]") {
  for (const char* algorithm : {"db-insert-delete", "db-insert-expiry", "db-for-update", "db-reentrant"}) {
    INFO(algorithm);
    SimulationConfig c = db_config(algorithm);
    c.workload.clients = 3;
    auto s = run(c);
    CHECK(overlaps(s->history()).empty());
    CHECK(steps(s->history(), Step::Acquired).size() == 9);
    CHECK(lock_rows(*s).empty());
    REQUIRE(s->database() != nullptr);
  }
}

TEST_CASE("db locks: only the algorithms that use a database get the db node", "[lock]") {
  auto s = run(db_config("set-nx-px"));
  CHECK(s->database() == nullptr);
  CHECK(s->world().find_node("db") == sim::kNoNode);
}

TEST_CASE("db-insert-delete: the row is the lock, a holder that crashes leaves it forever (F22)", "[lock]") {
  SimulationConfig c = db_config("db-insert-delete");
  c.lock.wait_limit = 2_s;
  c.workload.work_min = c.workload.work_max = 300_ms;
  const uint32_t holder = first_acquirer(c), other = 1 - holder;
  c.workload.call_faults = {CallFault{holder, 2, CallFault::Kind::Crash}};  // before its DELETE
  auto s = run(c);
  const History& h = s->history();
  REQUIRE(steps(h, Step::Crashed, holder).size() == 1);
  CHECK(steps(h, Step::Acquired, other).empty());
  CHECK_FALSE(steps(h, Step::AcquireFailed, other).empty());
  auto rows = lock_rows(*s);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].rfind("lock=" + client_name(holder) + ":", 0) == 0);
  // The row's insert is in the ledger as the holder's instance, on the database, without a deadline, still live.
  auto mine = h.ledger().granted_to(holder);
  REQUIRE(mine.size() == 1);
  CHECK(mine[0]->key == "lock");
  CHECK(mine[0]->node == kDatabaseNode);
  CHECK(mine[0]->deadline == sim::Instant::never());
  CHECK(mine[0]->live());
  // No Redis key events are faked for it.
  CHECK(steps(h, Step::KeySet).empty());
}

TEST_CASE("db-insert-expiry: the cleanup job deletes a dead holder's row after its expiry", "[lock]") {
  SimulationConfig c = db_config("db-insert-expiry");
  c.lock.lease = 1_s;
  c.lock.wait_limit = 5_s;
  c.workload.work_min = c.workload.work_max = 100_ms;
  const uint32_t holder = first_acquirer(c), other = 1 - holder;
  c.workload.call_faults = {CallFault{holder, 2, CallFault::Kind::Crash}};
  auto s = run(c);
  const History& h = s->history();
  std::vector<const LockInstance*> expired;
  for (const LockInstance& i : h.ledger().instances())
    if (i.end == InstanceEnd::Expired) expired.push_back(&i);
  REQUIRE(expired.size() == 1);  // the cleanup job, on the database's clock
  const auto crash = steps(h, Step::Crashed, holder).at(0).at;
  CHECK(expired[0]->owner == holder);
  CHECK(expired[0]->ended > crash);
  CHECK(expired[0]->ended >= expired[0]->deadline);  // the job runs after the row's time has passed
  CHECK(steps(h, Step::Acquired, other).size() == 3);
  CHECK(lock_rows(*s).empty());
}

TEST_CASE("db-insert-expiry: work that outlasts the expiry lets a second holder in", "[lock]") {
  SimulationConfig c = db_config("db-insert-expiry");
  c.lock.lease = 1_s;
  c.workload.slow_work = {SlowWork{0, 0, 2500_ms}};
  auto s = run(c);
  auto ov = overlaps(s->history());
  REQUIRE_FALSE(ov.empty());
  CHECK(ov[0].first.client == 0);
  CHECK(ov[0].second.client == 1);
  // A's late DELETE ... AND owner = A finds nothing of its own.
  CHECK_FALSE(steps(s->history(), Step::Released, 0).at(0).own_lock);
}

TEST_CASE("db-for-update: a waiter's SELECT is answered when the holder commits", "[lock]") {
  SimulationConfig c = db_config("db-for-update");
  c.workload.iterations = 1;
  c.workload.work_min = c.workload.work_max = 500_ms;
  auto s = run(c);
  const History& h = s->history();
  CHECK(overlaps(h).empty());
  size_t deferred = 0;
  for (const auto& e : s->world().trace().events()) deferred += e.kind == sim::TraceKind::CallDeferred;
  CHECK(deferred == 1);
  const uint32_t holder = steps(h, Step::Acquired).at(0).client;
  const auto a_released = steps(h, Step::ReleaseStart, holder).at(0).at;
  const auto b_acquired = steps(h, Step::Acquired, 1 - holder).at(0).at;
  CHECK(b_acquired > a_released);
  CHECK(b_acquired - a_released < 5_ms);  // the COMMIT's trip, then the answer's
}

TEST_CASE("db-for-update: a crashed holder's lock goes when the database notices, after the detection delay",
          "[lock]") {
  SimulationConfig c = db_config("db-for-update");
  c.workload.iterations = 1;
  c.workload.work_min = c.workload.work_max = 1_s;
  c.lock.wait_limit = 10_s;
  c.database.dead_client_detection = 3_s;
  const uint32_t holder = first_acquirer(c);
  c.faults = fault_plan(fmt::format("crash {} @300ms", client_name(holder)).c_str());
  auto s = run(c);
  const History& h = s->history();
  REQUIRE(steps(h, Step::Acquired, holder).size() == 1);
  const auto b_acquired = steps(h, Step::Acquired, 1 - holder).at(0).at;
  CHECK(b_acquired > at(3300_ms));
  CHECK(b_acquired < at(3310_ms));
}

TEST_CASE("db-for-update: a waiter past its lock-wait timeout gets error 1205 and gives up", "[lock]") {
  SimulationConfig c = db_config("db-for-update");
  c.workload.iterations = 1;
  c.workload.start_spread = 0_ms;
  c.workload.work_min = c.workload.work_max = 3_s;
  c.lock.wait_limit = 1_s;
  auto s = run(c);
  const History& h = s->history();
  CHECK(steps(h, Step::Acquired).size() == 1);
  REQUIRE(steps(h, Step::AcquireFailed).size() == 1);
  const auto failed = steps(h, Step::AcquireFailed).at(0);
  const auto started = steps(h, Step::AcquireStart, failed.client).at(0).at;
  CHECK(failed.at - started > 1_s);
  CHECK(failed.at - started < 1100_ms);
}

TEST_CASE("db-reentrant: the owner re-enters with a count, and the row goes at the outermost release", "[lock]") {
  SimulationConfig c = db_config("db-reentrant");
  c.workload.nested = 2;
  auto s = run(c);
  const History& h = s->history();
  CHECK(overlaps(h).empty());
  bool counted = false;
  for (const LockFact& f : h.ledger().facts())
    counted |= f.kind == FactKind::Rearmed && (f.value == "A/main#3" || f.value == "B/main#3");
  CHECK(counted);
  CHECK(lock_rows(*s).empty());
}

TEST_CASE("db locks: the same config gives the same trace", "[lock]") {
  for (const char* algorithm : {"db-insert-expiry", "db-for-update"}) {
    SimulationConfig c = db_config(algorithm);
    c.faults = fault_plan("crash A @150ms; restart A @400ms; crash db @900ms; restart db @1200ms");
    CHECK(run(c)->trace_hash() == run(c)->trace_hash());
  }
}
