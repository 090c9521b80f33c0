// The database model's locking: unique key, row locks, waits, timeouts,
// deadlocks, release at commit/rollback/disconnect, the cleanup job.
#include <catch2/catch.hpp>

#include "locksim/sim/db/database.hpp"

using namespace locksim::db;

namespace {

Row lock_row(const std::string& owner, int64_t expires_at_ms = -1) { return Row{"job", owner, expires_at_ms, 1}; }

}  // namespace

TEST_CASE("db: one inserter wins the unique key, the other gets MariaDB's duplicate-key error") {
  Database db;
  SessionId a = db.connect(), b = db.connect();
  REQUIRE(db.execute(a, Statement::insert(lock_row("A")), 0).affected == 1);
  Outcome second = db.execute(b, Statement::insert(lock_row("B")), 0);
  REQUIRE(second.status == Outcome::Status::Failed);
  REQUIRE(second.error == Error::DuplicateKey);
  REQUIRE(error_text(second.error, "job") == "Duplicate entry 'job' for key 'PRIMARY'");
  REQUIRE(db.execute(a, Statement::remove("job", "A"), 0).affected == 1);
  REQUIRE(db.execute(b, Statement::insert(lock_row("B")), 0).affected == 1);
}

TEST_CASE("db: a crashed inserter's row stays after its session ends (F22)") {
  Database db;
  SessionId a = db.connect();
  db.execute(a, Statement::insert(lock_row("A")), 0);
  db.disconnect(a);
  REQUIRE(db.rows() == std::vector<Row>{lock_row("A")});
}

TEST_CASE("db: FOR UPDATE blocks a second session until the first commits") {
  Database db;
  SessionId setup = db.connect(), a = db.connect(), b = db.connect();
  db.execute(setup, Statement::insert(lock_row("-")), 0);
  db.execute(a, Statement::begin(), 0);
  REQUIRE(db.execute(a, Statement::select_for_update("job"), 0).row == lock_row("-"));
  db.execute(b, Statement::begin(), 0);
  REQUIRE(db.execute(b, Statement::select_for_update("job"), 10).blocked());
  REQUIRE(db.waiting(b));
  db.execute(a, Statement::commit(), 20);
  auto done = db.take_completions();
  REQUIRE(done.size() == 1);
  REQUIRE(done[0].session == b);
  REQUIRE(done[0].outcome.done());
  REQUIRE(db.lock_holder("job") == b);
}

TEST_CASE("db: a FOR UPDATE lock is released when its session ends, a waiter then gets it") {
  Database db;
  SessionId setup = db.connect(), a = db.connect(), b = db.connect();
  db.execute(setup, Statement::insert(lock_row("-")), 0);
  db.execute(a, Statement::begin(), 0);
  db.execute(a, Statement::select_for_update("job"), 0);
  db.execute(b, Statement::begin(), 0);
  db.execute(b, Statement::select_for_update("job"), 0);
  db.disconnect(a);
  REQUIRE(db.lock_holder("job") == b);
  REQUIRE(db.take_completions().size() == 1);
}

TEST_CASE("db: a waiter fails with error 1205 at the lock-wait timeout, its transaction stays open") {
  Database db(Options{.lock_wait_timeout_ms = 1000});
  SessionId setup = db.connect(), a = db.connect(), b = db.connect();
  db.execute(setup, Statement::insert(lock_row("-")), 0);
  db.execute(a, Statement::begin(), 0);
  db.execute(a, Statement::select_for_update("job"), 0);
  db.execute(b, Statement::begin(), 0);
  db.execute(b, Statement::select_for_update("job"), 100);
  REQUIRE(db.next_wait_deadline() == 1100);
  db.expire_waits(1099);
  REQUIRE(db.take_completions().empty());
  db.expire_waits(1100);
  auto done = db.take_completions();
  REQUIRE(done.size() == 1);
  REQUIRE(done[0].outcome.error == Error::LockWaitTimeout);
  REQUIRE(db.in_transaction(b));
  REQUIRE(db.lock_holder("job") == a);
}

TEST_CASE("db: an insert waits for an uncommitted insert of the same key, then sees the duplicate or takes it") {
  Database db;
  SessionId a = db.connect(), b = db.connect();
  db.execute(a, Statement::begin(), 0);
  db.execute(a, Statement::insert(lock_row("A")), 0);
  REQUIRE(db.execute(b, Statement::insert(lock_row("B")), 0).blocked());
  SECTION("commit: duplicate") {
    db.execute(a, Statement::commit(), 0);
    auto done = db.take_completions();
    REQUIRE(done.at(0).outcome.error == Error::DuplicateKey);
  }
  SECTION("rollback: the waiter inserts") {
    db.execute(a, Statement::rollback(), 0);
    auto done = db.take_completions();
    REQUIRE(done.at(0).outcome.affected == 1);
    REQUIRE(db.rows() == std::vector<Row>{lock_row("B")});
  }
}

TEST_CASE("db: a consistent read sees the committed row, not another session's uncommitted change") {
  Database db;
  SessionId a = db.connect(), b = db.connect();
  db.execute(a, Statement::insert(lock_row("A")), 0);
  db.execute(a, Statement::begin(), 0);
  db.execute(a, Statement::remove("job"), 0);
  REQUIRE(db.execute(b, Statement::select("job"), 0).row == lock_row("A"));
  REQUIRE_FALSE(db.execute(a, Statement::select("job"), 0).row);
}

TEST_CASE("db: FOR UPDATE of a missing key makes a second locking read wait (as MariaDB 10.11)") {
  Database db;
  SessionId a = db.connect(), b = db.connect();
  db.execute(a, Statement::begin(), 0);
  db.execute(b, Statement::begin(), 0);
  REQUIRE(db.execute(a, Statement::select_for_update("job"), 0).done());
  REQUIRE(db.execute(b, Statement::select_for_update("job"), 0).blocked());
  REQUIRE(db.execute(a, Statement::insert(lock_row("A")), 0).affected == 1);
  db.execute(a, Statement::commit(), 0);
  auto done = db.take_completions();
  REQUIRE(done.size() == 1);
  REQUIRE(done[0].outcome.row == lock_row("A"));
}

TEST_CASE("db: two sessions locking two keys in opposite orders: deadlock, the requester rolled back") {
  Database db;
  SessionId a = db.connect(), b = db.connect();
  db.execute(a, Statement::insert(Row{"x", "-", -1, 1}), 0);
  db.execute(a, Statement::insert(Row{"y", "-", -1, 1}), 0);
  db.execute(a, Statement::begin(), 0);
  db.execute(b, Statement::begin(), 0);
  db.execute(a, Statement::select_for_update("x"), 0);
  db.execute(b, Statement::select_for_update("y"), 0);
  REQUIRE(db.execute(a, Statement::select_for_update("y"), 0).blocked());
  REQUIRE(db.execute(b, Statement::select_for_update("x"), 0).error == Error::Deadlock);
  REQUIRE_FALSE(db.in_transaction(b));
  auto done = db.take_completions();
  REQUIRE(done.size() == 1);
  REQUIRE(done[0].session == a);
}

TEST_CASE("db: reentrant count by owner, another owner's update changes nothing") {
  Database db;
  SessionId a = db.connect();
  db.execute(a, Statement::insert(lock_row("host1:7")), 0);
  REQUIRE(db.execute(a, Statement::add_count("job", "host1:7", 1), 0).affected == 1);
  REQUIRE(db.execute(a, Statement::add_count("job", "host2:3", 1), 0).affected == 0);
  REQUIRE(db.rows().at(0).count == 2);
}

TEST_CASE("db: the cleanup job deletes expired rows, not rows an open transaction holds") {
  Database db;
  SessionId a = db.connect(), b = db.connect();
  db.execute(a, Statement::insert(Row{"old", "A", 100, 1}), 0);
  db.execute(a, Statement::insert(Row{"held", "A", 100, 1}), 0);
  db.execute(a, Statement::insert(Row{"fresh", "A", 5000, 1}), 0);
  db.execute(b, Statement::begin(), 0);
  db.execute(b, Statement::select_for_update("held"), 0);
  REQUIRE(db.cleanup_expired(100) == 0);
  REQUIRE(db.cleanup_expired(101) == 1);
  REQUIRE(db.rows().size() == 2);
  db.execute(b, Statement::commit(), 200);
  REQUIRE(db.cleanup_expired(200) == 1);
  REQUIRE(db.rows() == std::vector<Row>{Row{"fresh", "A", 5000, 1}});
}

TEST_CASE("db: a restart keeps committed rows and forgets sessions and open transactions") {
  Database db;
  SessionId a = db.connect(), b = db.connect();
  db.execute(a, Statement::insert(lock_row("A")), 0);
  db.execute(b, Statement::begin(), 0);
  db.execute(b, Statement::remove("job"), 0);
  db.restart();
  REQUIRE_FALSE(db.connected(a));
  REQUIRE(db.rows() == std::vector<Row>{lock_row("A")});
  REQUIRE_FALSE(db.lock_holder("job"));
}
