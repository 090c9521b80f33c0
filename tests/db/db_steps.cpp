#include "db_steps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <thread>

#include "locksim/sim/db/database.hpp"
#include "real_mariadb.hpp"

namespace locksim::db::testing {

namespace {

std::string quote(const std::string& s) { return "'" + s + "'"; }

std::string row_text(const std::vector<std::string>& values) { return fmt::format("{}", fmt::join(values, ",")); }

std::string row_text(const Row& r) {
  return row_text(
      {r.name, r.owner, r.expires_at_ms < 0 ? "NULL" : std::to_string(r.expires_at_ms), std::to_string(r.count)});
}

bool is_select(const Statement& s) {
  return s.kind == Statement::Kind::Select || s.kind == Statement::Kind::SelectForUpdate;
}

std::string outcome_text(const Statement& st, const Outcome& o) {
  if (o.blocked()) return "blocked";
  if (o.status == Outcome::Status::Failed) return fmt::format("error {}", static_cast<unsigned>(o.error));
  if (is_select(st)) return "rows [" + (o.row ? row_text(*o.row) : std::string()) + "]";
  return fmt::format("ok affected={}", o.affected);
}

std::string real_text(const Statement& st, const RealSession::Result& r) {
  if (!r.finished) return "blocked";
  if (r.error) return fmt::format("error {}", r.error);
  if (is_select(st)) return "rows [" + (r.rows.empty() ? std::string() : row_text(r.rows.front())) + "]";
  return fmt::format("ok affected={}", r.affected);
}

}  // namespace

std::string to_sql(const Statement& s) {
  using K = Statement::Kind;
  const std::string owner = s.owner ? " AND owner=" + quote(*s.owner) : "";
  switch (s.kind) {
    case K::Begin: return "BEGIN";
    case K::Commit: return "COMMIT";
    case K::Rollback: return "ROLLBACK";
    case K::Insert:
      return fmt::format("INSERT INTO locks VALUES ({},{},{},{})", quote(s.row.name), quote(s.row.owner),
                         s.row.expires_at_ms < 0 ? "NULL" : std::to_string(s.row.expires_at_ms), s.row.count);
    case K::Delete: return "DELETE FROM locks WHERE name=" + quote(s.row.name) + owner;
    case K::AddCount:
      return fmt::format("UPDATE locks SET count=count+{} WHERE name={}{}", s.delta, quote(s.row.name), owner);
    case K::Select: return "SELECT name,owner,expires_at,count FROM locks WHERE name=" + quote(s.row.name);
    case K::SelectForUpdate:
      return "SELECT name,owner,expires_at,count FROM locks WHERE name=" + quote(s.row.name) + " FOR UPDATE";
  }
  return "";
}

std::string describe(const Step& step) {
  switch (step.kind) {
    case Step::Kind::Run: return fmt::format("S{} {}", step.session, to_sql(step.statement));
    case Step::Kind::Disconnect: return fmt::format("S{} disconnects", step.session);
    case Step::Kind::Timeout: return "lock-wait timeout passes";
  }
  return "";
}

std::vector<std::string> run_on_model(const std::vector<Step>& steps, unsigned sessions) {
  Database db(Options{.lock_wait_timeout_ms = kLockWaitTimeoutS * 1000});
  std::vector<SessionId> ids;
  std::vector<Statement> pending(sessions);
  for (unsigned i = 0; i < sessions; ++i) ids.push_back(db.connect());
  std::vector<std::string> log;
  int64_t now = 0;
  for (const Step& step : steps) {
    now += 10;
    std::string line = describe(step) + ": ";
    if (step.kind == Step::Kind::Run) {
      if (db.waiting(ids[step.session])) continue;  // a blocked session cannot send
      Outcome o = db.execute(ids[step.session], step.statement, now);
      pending[step.session] = step.statement;
      line += outcome_text(step.statement, o);
    } else if (step.kind == Step::Kind::Disconnect) {
      if (db.waiting(ids[step.session])) continue;  // see run_on_mariadb
      db.disconnect(ids[step.session]);
      ids[step.session] = db.connect();
      line += "gone";
    } else {
      now += kLockWaitTimeoutS * 1000 + 100;
      db.expire_waits(now);
      line += "done";
    }
    std::vector<std::string> woken;
    for (const Completion& c : db.take_completions())
      for (unsigned i = 0; i < sessions; ++i)
        if (ids[i] == c.session) woken.push_back(fmt::format("S{} {}", i, outcome_text(pending[i], c.outcome)));
    std::sort(woken.begin(), woken.end());
    for (const std::string& w : woken) line += "; then " + w;
    log.push_back(line);
  }
  return log;
}

std::vector<std::string> run_on_mariadb(const std::vector<Step>& steps, unsigned sessions, RealMariaDb& server) {
  const std::string& socket = server.socket();
  std::vector<std::unique_ptr<RealSession>> s;
  std::vector<Statement> pending(sessions);
  for (unsigned i = 0; i < sessions; ++i) s.push_back(std::make_unique<RealSession>(socket, kLockWaitTimeoutS));
  std::vector<std::string> log;
  for (const Step& step : steps) {
    std::string line = describe(step) + ": ";
    std::vector<bool> was_blocked(sessions);
    for (unsigned i = 0; i < sessions; ++i) was_blocked[i] = s[i]->blocked();
    if (step.kind == Step::Kind::Run) {
      if (s[step.session]->blocked()) continue;
      pending[step.session] = step.statement;
      line += real_text(step.statement, s[step.session]->start(to_sql(step.statement)));
    } else if (step.kind == Step::Kind::Disconnect) {
      // A session waiting for a lock does not notice its client left until
      // the wait ends; the model's sessions end at once. Not compared.
      if (s[step.session]->blocked()) continue;
      const unsigned long old = s[step.session]->thread_id();
      s[step.session] = std::make_unique<RealSession>(socket, kLockWaitTimeoutS);  // the old one closes
      server.wait_gone(old);  // its rollback has released its locks
      was_blocked[step.session] = false;
      line += "gone";
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(kLockWaitTimeoutS * 1000 + 300));
      line += "done";
    }
    std::vector<std::string> woken;
    for (unsigned i = 0; i < sessions; ++i) {
      if (!was_blocked[i]) continue;
      RealSession::Result r = s[i]->poll();
      if (r.finished) woken.push_back(fmt::format("S{} {}", i, real_text(pending[i], r)));
    }
    std::sort(woken.begin(), woken.end());
    for (const std::string& w : woken) line += "; then " + w;
    log.push_back(line);
  }
  return log;
}

}  // namespace locksim::db::testing
