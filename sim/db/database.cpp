#include "locksim/sim/db/database.hpp"

#include <algorithm>
#include <stdexcept>

namespace locksim::db {

namespace {

using Kind = Statement::Kind;

Outcome done(uint64_t affected = 0, std::optional<Row> row = {}) {
  return {Outcome::Status::Done, Error::None, affected, std::move(row)};
}
Outcome failed(Error error) { return {Outcome::Status::Failed, error, 0, {}}; }
Outcome blocked() { return {Outcome::Status::Blocked, Error::None, 0, {}}; }

bool owner_matches(const Statement& s, const Row& row) { return !s.owner || *s.owner == row.owner; }

}  // namespace

Database::Database(Options options) : options_(options) {}

SessionId Database::connect() {
  SessionId id = next_session_++;
  sessions_[id];
  return id;
}

Database::Session& Database::session(SessionId id) {
  auto it = sessions_.find(id);
  if (it == sessions_.end()) throw std::invalid_argument("database: unknown session " + std::to_string(id));
  return it->second;
}

void Database::disconnect(SessionId id) {
  if (!sessions_.count(id)) return;
  leave_queue(id);
  end_transaction(id, /*commit=*/false);
  sessions_.erase(id);
  wake();
}

Outcome Database::execute(SessionId id, const Statement& statement, int64_t now_ms) {
  if (session(id).wait) throw std::invalid_argument("database: session " + std::to_string(id) + " is waiting");
  Outcome outcome = run(id, statement);
  if (outcome.blocked()) enqueue(id, statement, now_ms);
  wake();
  return outcome;
}

// One statement, new or retried from the wait queue. Blocked
// means it cannot go on yet; nothing has changed then.
Outcome Database::run(SessionId id, const Statement& statement) {
  Session& s = session(id);
  switch (statement.kind) {
    case Kind::Begin:
      end_transaction(id, /*commit=*/true);  // BEGIN commits an open transaction first
      s.explicit_transaction = true;
      return done();
    case Kind::Commit:
    case Kind::Rollback: end_transaction(id, statement.kind == Kind::Commit); return done();
    default: break;
  }
  Outcome outcome = run_row_statement(id, statement);
  if (outcome.blocked() && deadlocks(id, statement.row.name)) {
    end_transaction(id, /*commit=*/false);  // InnoDB rolls the victim's whole transaction back
    return failed(Error::Deadlock);
  }
  if (!outcome.blocked() && !s.explicit_transaction) end_transaction(id, /*commit=*/true);  // autocommit
  return outcome;
}

Outcome Database::run_row_statement(SessionId id, const Statement& st) {
  const std::string& name = st.row.name;
  if (st.kind == Kind::Select) return done(0, committed_row(id, name));
  if (must_wait(id, name)) return blocked();
  auto row = rows_.find(name);
  if (st.kind == Kind::Insert) {
    if (row != rows_.end()) return failed(Error::DuplicateKey);
    lock_exclusive(id, name);
    write_row(id, name, st.row);
    return done(1);
  }
  lock_exclusive(id, name);  // a missing key too (MariaDB locks its gap against other locking reads)
  if (row == rows_.end()) return done();
  Row current = row->second;
  if (st.kind == Kind::SelectForUpdate) return done(0, current);
  if (!owner_matches(st, current)) return done();  // the lock stays (REPEATABLE READ)
  if (st.kind == Kind::Delete) {
    write_row(id, name, std::nullopt);
    return done(1);
  }
  current.count += st.delta;  // AddCount
  write_row(id, name, current);
  return done(1);
}

// Whether a lock request must wait: unless the session holds the key's lock
// already, another session holds it, or (FIFO) someone queued for it earlier.
bool Database::must_wait(SessionId id, const std::string& name) const {
  auto it = locks_.find(name);
  if (it == locks_.end() || it->second.exclusive == id) return false;
  return !blockers(id, name).empty();
}

std::vector<SessionId> Database::blockers(SessionId id, const std::string& name) const {
  std::vector<SessionId> out;
  auto it = locks_.find(name);
  if (it == locks_.end()) return out;
  const KeyLocks& k = it->second;
  if (k.exclusive && *k.exclusive != id) out.push_back(*k.exclusive);
  for (SessionId w : k.waiters) {
    if (w == id) break;
    out.push_back(w);
  }
  return out;
}

// A cycle in the waits-for graph through the requester (each session waits
// for at most one key).
bool Database::deadlocks(SessionId requester, const std::string& name) const {
  std::vector<SessionId> frontier = blockers(requester, name);
  std::set<SessionId> seen;
  while (!frontier.empty()) {
    SessionId s = frontier.back();
    frontier.pop_back();
    if (s == requester) return true;
    if (!seen.insert(s).second) continue;
    const Session& other = sessions_.at(s);
    if (!other.wait) continue;
    for (SessionId b : blockers(s, other.wait->statement.row.name)) frontier.push_back(b);
  }
  return false;
}

void Database::lock_exclusive(SessionId id, const std::string& name) {
  locks_[name].exclusive = id;
  session(id).locked.insert(name);
}

// Changes a row in place, keeping its before-image for a rollback and for
// other sessions' consistent reads.
void Database::write_row(SessionId id, const std::string& name, std::optional<Row> after) {
  auto it = rows_.find(name);
  std::optional<Row> before = it == rows_.end() ? std::nullopt : std::optional<Row>(it->second);
  session(id).undo.push_back({name, std::move(before)});
  if (after)
    rows_[name] = std::move(*after);
  else
    rows_.erase(name);
}

// What a consistent read sees: the row as last committed, or as this
// session's own transaction changed it.
std::optional<Row> Database::committed_row(SessionId reader, const std::string& name) const {
  auto holder = lock_holder(name);
  if (holder && *holder != reader) {
    for (const Undo& u : sessions_.at(*holder).undo)
      if (u.name == name) return u.before;  // the first change holds the committed image
  }
  auto it = rows_.find(name);
  return it == rows_.end() ? std::nullopt : std::optional<Row>(it->second);
}

void Database::end_transaction(SessionId id, bool commit) {
  Session& s = session(id);
  if (!commit)
    for (auto u = s.undo.rbegin(); u != s.undo.rend(); ++u) {
      if (u->before)
        rows_[u->name] = *u->before;
      else
        rows_.erase(u->name);
    }
  s.undo.clear();
  for (const std::string& name : s.locked) {
    KeyLocks& k = locks_[name];
    if (k.exclusive == id) k.exclusive.reset();
    released_.insert(name);
  }
  s.locked.clear();
  s.explicit_transaction = false;
}

void Database::enqueue(SessionId id, const Statement& statement, int64_t now_ms) {
  session(id).wait = Wait{statement, now_ms + options_.lock_wait_timeout_ms};
  locks_[statement.row.name].waiters.push_back(id);
}

void Database::leave_queue(SessionId id) {
  Session& s = session(id);
  if (!s.wait) return;
  const std::string name = s.wait->statement.row.name;
  auto& q = locks_[name].waiters;
  q.erase(std::remove(q.begin(), q.end(), id), q.end());
  s.wait.reset();
  released_.insert(name);
}

// Retries the queues of keys whose locks changed, in FIFO order per key,
// until nothing more can go on.
void Database::wake() {
  while (!released_.empty()) {
    std::string name = *released_.begin();
    released_.erase(released_.begin());
    auto it = locks_.find(name);
    if (it == locks_.end()) continue;
    std::deque<SessionId> queue = it->second.waiters;
    for (SessionId id : queue) {
      Statement st = session(id).wait->statement;
      Outcome outcome = run(id, st);
      if (outcome.blocked()) break;
      auto& q = locks_[name].waiters;
      q.erase(std::remove(q.begin(), q.end(), id), q.end());
      session(id).wait.reset();
      completions_.push_back({id, outcome});
    }
  }
}

void Database::expire_waits(int64_t now_ms) {
  for (auto& [id, s] : sessions_) {
    if (!s.wait || s.wait->deadline_ms > now_ms) continue;
    leave_queue(id);  // only the statement fails; the transaction stays open
    completions_.push_back({id, failed(Error::LockWaitTimeout)});
  }
  wake();
}

std::optional<int64_t> Database::next_wait_deadline() const {
  std::optional<int64_t> next;
  for (const auto& [id, s] : sessions_)
    if (s.wait && (!next || s.wait->deadline_ms < *next)) next = s.wait->deadline_ms;
  return next;
}

std::vector<Completion> Database::take_completions() {
  std::vector<Completion> out;
  out.swap(completions_);
  return out;
}

uint64_t Database::cleanup_expired(int64_t now_ms) {
  std::vector<std::string> expired;
  for (const auto& [name, row] : rows_) {
    if (row.expires_at_ms < 0 || row.expires_at_ms >= now_ms) continue;  // expires_at < NOW()
    auto k = locks_.find(name);
    if (k != locks_.end() && (k->second.exclusive || !k->second.waiters.empty())) continue;
    expired.push_back(name);
  }
  for (const std::string& name : expired) rows_.erase(name);
  return expired.size();
}

void Database::restart() {
  std::vector<SessionId> ids;
  for (const auto& [id, s] : sessions_) ids.push_back(id);
  for (SessionId id : ids) {
    session(id).wait.reset();
    end_transaction(id, /*commit=*/false);
  }
  sessions_.clear();
  locks_.clear();
  released_.clear();
  completions_.clear();
}

std::vector<Row> Database::rows() const {
  std::vector<Row> out;
  for (const auto& [name, row] : rows_) out.push_back(row);
  return out;
}

std::optional<SessionId> Database::lock_holder(const std::string& name) const {
  auto it = locks_.find(name);
  return it == locks_.end() ? std::nullopt : it->second.exclusive;
}

bool Database::in_transaction(SessionId id) const {
  auto it = sessions_.find(id);
  return it != sessions_.end() && it->second.explicit_transaction;
}

bool Database::waiting(SessionId id) const {
  auto it = sessions_.find(id);
  return it != sessions_.end() && it->second.wait.has_value();
}

}  // namespace locksim::db
