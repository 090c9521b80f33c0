// The database model against a real MariaDB (Debian's mariadb-server, started
// by the test in a temporary directory on a Unix socket): the same steps on
// both, compared line by line — duplicate-key errors, lock waits and their
// timeouts, FOR UPDATE released when a session ends, deadlocks, the rows left.
#include <rapidcheck.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <sstream>

#include "db_steps.hpp"
#include "real_mariadb.hpp"

using namespace locksim::db;
using namespace locksim::db::testing;

namespace {

RealMariaDb& server() {
  static std::unique_ptr<RealMariaDb> instance;
  if (!instance) {
    instance = std::make_unique<RealMariaDb>();  // throws with the reason: the test fails, never skips
    instance->admin("CREATE DATABASE locksim");
    instance->admin(
        "CREATE TABLE locksim.locks (name VARCHAR(64) PRIMARY KEY, owner VARCHAR(64), "
        "expires_at BIGINT NULL, count INT NOT NULL DEFAULT 1) ENGINE=InnoDB");
    instance->hold_purge();
  }
  return *instance;
}

// An empty table in which every key the steps use is a record (deleted, not
// yet purged): InnoDB then locks a missing key as it locks a row, whenever its
// purge runs, which is what the model does. (A key that never existed would
// get a gap lock instead; the model does not have those.)
void empty_table() {
  server().admin("TRUNCATE TABLE locksim.locks");
  server().admin("INSERT INTO locksim.locks (name) VALUES ('job'), ('x')");
  server().admin("DELETE FROM locksim.locks");
}

Row row(const std::string& owner, int64_t expires = -1) { return Row{"job", owner, expires, 1}; }
Step run(unsigned s, Statement st) { return Step{Step::Kind::Run, s, std::move(st)}; }
Step leave(unsigned s) { return Step{Step::Kind::Disconnect, s, {}}; }
Step timeout() { return Step{Step::Kind::Timeout, 0, {}}; }

// Both sides, from an empty table; a last session reads what rows are left.
void compare(std::vector<Step> steps, unsigned sessions = 3) {
  empty_table();
  for (const char* key : {"job", "x"}) steps.push_back(run(sessions, Statement::select(key)));
  auto model = run_on_model(steps, sessions + 1);
  auto real = run_on_mariadb(steps, sessions + 1, server());
  CAPTURE(model, real);
  REQUIRE(model == real);
}

}  // namespace

TEST_CASE("db-differential: unique key, duplicate-key error, delete by owner", "[db-differential]") {
  compare({run(0, Statement::insert(row("A"))), run(1, Statement::insert(row("B"))),
           run(1, Statement::remove("job", "B")), run(0, Statement::remove("job", "A")),
           run(1, Statement::insert(row("B", 5000)))});
}

TEST_CASE("db-differential: a crashed inserter's row stays (F22)", "[db-differential]") {
  compare({run(0, Statement::insert(row("A"))), leave(0), run(1, Statement::insert(row("B")))});
}

TEST_CASE("db-differential: FOR UPDATE waits, and is released by commit and by the session ending",
          "[db-differential]") {
  compare({run(0, Statement::insert(row("-"))), run(0, Statement::begin()), run(0, Statement::select_for_update("job")),
           run(1, Statement::begin()), run(1, Statement::select_for_update("job")), run(2, Statement::begin()),
           run(2, Statement::select_for_update("job")), run(0, Statement::commit()), leave(1),
           run(2, Statement::remove("job")), run(2, Statement::rollback())});
}

TEST_CASE("db-differential: lock-wait timeout fails the statement, not the transaction", "[db-differential]") {
  compare({run(0, Statement::insert(row("-"))), run(0, Statement::begin()), run(0, Statement::remove("job")),
           run(1, Statement::begin()), run(1, Statement::select_for_update("job")), timeout(),
           run(1, Statement::select("job")), run(0, Statement::rollback()), run(1, Statement::commit())});
}

TEST_CASE("db-differential: an insert waits for an uncommitted insert of its key", "[db-differential]") {
  compare({run(0, Statement::begin()), run(0, Statement::insert(row("A"))), run(1, Statement::insert(row("B"))),
           run(0, Statement::rollback()), run(2, Statement::insert(row("C")))});
}

TEST_CASE("db-differential: two locking reads of a missing key, then an insert", "[db-differential]") {
  compare({run(0, Statement::begin()), run(1, Statement::begin()), run(0, Statement::select_for_update("job")),
           run(1, Statement::select_for_update("job")), run(0, Statement::insert(row("A"))),
           run(0, Statement::commit()), run(1, Statement::commit())});
}

TEST_CASE("db-differential: two keys locked in opposite orders: deadlock", "[db-differential]") {
  auto x = [](const std::string& owner) { return Statement::insert(Row{"x", owner, -1, 1}); };
  compare({run(0, Statement::insert(row("-"))), run(0, x("-")), run(0, Statement::begin()), run(1, Statement::begin()),
           run(0, Statement::select_for_update("job")), run(1, Statement::select_for_update("x")),
           run(0, Statement::select_for_update("x")), run(1, Statement::select_for_update("job")),
           run(0, Statement::commit()), run(1, Statement::commit())});
}

TEST_CASE("db-differential: reentrant counts by owner", "[db-differential]") {
  compare({run(0, Statement::insert(row("h:1"))), run(0, Statement::add_count("job", "h:1", 1)),
           run(1, Statement::add_count("job", "h:2", 1)), run(0, Statement::add_count("job", "h:1", -1))});
}

TEST_CASE("db-differential: random steps over three sessions", "[db-differential]") {
  const auto statement = rc::gen::oneOf(
      rc::gen::just(Statement::begin()), rc::gen::just(Statement::commit()), rc::gen::just(Statement::rollback()),
      rc::gen::map(rc::gen::element<std::string>("A", "B", "C"),
                   [](std::string o) { return Statement::insert(row(o)); }),
      rc::gen::map(rc::gen::element<std::string>("A", "B"), [](std::string o) { return Statement::remove("job", o); }),
      rc::gen::just(Statement::remove("job")), rc::gen::just(Statement::select("job")),
      rc::gen::just(Statement::select_for_update("job")),
      rc::gen::map(rc::gen::element<std::string>("A", "B"),
                   [](std::string o) { return Statement::add_count("job", o, 1); }));
  const auto step = rc::gen::weightedOneOf<Step>(
      {{20, rc::gen::apply([](unsigned s, Statement st) { return run(s, st); }, rc::gen::inRange(0u, 3u), statement)},
       {2, rc::gen::map(rc::gen::inRange(0u, 3u), [](unsigned s) { return leave(s); })},
       {1, rc::gen::just(timeout())}});
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  if (params.maxSuccess == rc::detail::TestParams{}.maxSuccess) params.maxSuccess = 25;  // unless RC_PARAMS says
  params.maxSize = std::min(params.maxSize, 12);
  const auto result = rc::detail::checkTestable(
      [&] {
        const auto steps = *rc::gen::container<std::vector<Step>>(step);
        empty_table();
        auto model = run_on_model(steps, 3);
        auto real = run_on_mariadb(steps, 3, server());
        for (size_t i = 0; i < std::max(model.size(), real.size()); ++i)
          RC_LOG() << "model: " << (i < model.size() ? model[i] : "-")
                   << "\nreal:  " << (i < real.size() ? real[i] : "-") << "\n";
        RC_ASSERT(model == real);
      },
      rc::detail::TestMetadata{"db-differential", "model vs MariaDB"}, params);
  std::ostringstream report;
  rc::detail::printResultMessage(result, report);
  INFO(report.str());
  REQUIRE(result.template is<rc::detail::SuccessResult>());
}
