#include "locksim/lock/db_node.hpp"

#include <vector>

#include <fmt/format.h>

namespace locksim::lock {

namespace {
db::Options database_options(const DbNodeOptions& o) {
  db::Options options;
  options.lock_wait_timeout_ms = o.lock_wait_timeout.ns / 1'000'000;
  return options;
}

// A row as a lock key's value: its owner, and its hold count when nested.
std::string row_value(const db::Row& r) { return r.count == 1 ? r.owner : fmt::format("{}#{}", r.owner, r.count); }

std::string describe_outcome(const db::Outcome& o) {
  switch (o.status) {
    case db::Outcome::Status::Blocked: return "(waiting)";
    case db::Outcome::Status::Failed: return fmt::format("ERROR {}", static_cast<int>(o.error));
    case db::Outcome::Status::Done: break;
  }
  if (o.row) return fmt::format("row {} owner={}", o.row->name, o.row->owner);
  return fmt::format("OK, {} row(s) affected", o.affected);
}
}  // namespace

DbNode::DbNode(sim::World& world, std::string name, History* history, DbNodeOptions options, sim::LocalClock clock)
    : world_(world),
      node_(world.add_node(std::move(name), clock)),
      options_(options),
      db_(database_options(options)),
      service_(world, node_, [this](sim::SessionId s, DbRequest& r, Instant) { return handle(s, r); }),
      history_(history) {
  service_.on_close([this](sim::SessionId s, sim::CloseReason why) { closed(s, why); });
  service_.describe([](const DbRequest& r) { return db::describe(r.statement); }, describe_outcome);
  world.node(node_).crash_hooks.push_back([this] {
    db_.restart();  // open transactions roll back; committed rows stay (durable)
    sessions_.clear();
    by_db_session_.clear();
    timer_at_.reset();
    record_changes(kNoClient, Purpose::Other, true);
  });
  if (options_.cleanup_interval > Duration::zero())
    world.set_start(node_, [this](sim::Proc p) { return cleanup_job(p); });
}

sim::Answer<db::Outcome> DbNode::handle(sim::SessionId session, DbRequest& request) {
  auto it = sessions_.find(session);
  if (it == sessions_.end()) {
    it = sessions_.emplace(session, Session{db_.connect(), 0}).first;
    by_db_session_[it->second.db] = session;
  }
  Session& state = it->second;
  state.client = request.client;
  state.purpose = request.purpose;
  const auto kind = request.statement.kind;
  state.ending = kind == db::Statement::Kind::Commit || kind == db::Statement::Kind::Rollback;
  if (!request.statement.row.name.empty()) names_.insert(request.statement.row.name);
  const db::Outcome outcome = db_.execute(state.db, request.statement, local_ms());
  record_changes(request.client, request.purpose, false);
  if (outcome.blocked()) {
    it->second.waiting = service_.defer();
    arm_wait_timer();
  }
  answer_completions();  // a COMMIT or DELETE may have let others' statements go on
  if (outcome.blocked()) return sim::Answer<db::Outcome>::later();
  return outcome;
}

// Blocked statements that finished get their answers, in the order they finished.
void DbNode::answer_completions() {
  for (db::Completion& c : db_.take_completions()) {
    auto s = by_db_session_.find(c.session);
    if (s == by_db_session_.end()) continue;
    Session& session = sessions_.at(s->second);
    const sim::DeferredId id = session.waiting;
    session.waiting = 0;
    if (id != 0) service_.answer(id, std::move(c.outcome));
  }
  record_lock_changes();  // a waiter granted its lock
}

// A client's death is noticed only after the detection delay; a reset at once.
void DbNode::closed(sim::SessionId session, sim::CloseReason why) {
  if (why == sim::CloseReason::Reset || options_.dead_client_detection <= Duration::zero()) return end_session(session);
  world_.schedule(world_.now() + options_.dead_client_detection, &DbNode::session_end_event, this, session, 0, node_);
}

void DbNode::session_end_event(sim::World& w, const sim::Event& e) {
  if (!w.live(e)) return;  // the database restarted meanwhile: the session is gone already
  static_cast<DbNode*>(e.obj)->end_session(e.id);
}

void DbNode::end_session(sim::SessionId session) {
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return;
  if (it->second.waiting != 0) service_.abandon(it->second.waiting);
  const db::SessionId id = it->second.db;
  by_db_session_.erase(id);
  sessions_.erase(it);
  db_.disconnect(id);  // rolls back, releases its locks
  record_changes(kNoClient, Purpose::Other, true);
  answer_completions();
}

void DbNode::arm_wait_timer() {
  const std::optional<int64_t> deadline = db_.next_wait_deadline();
  if (!deadline) return;
  const Duration local_span = std::max<Duration>(Duration::zero(), Duration{(*deadline - local_ms()) * 1'000'000});
  const Instant at = world_.now() + world_.node(node_).clock.true_span(local_span);
  if (timer_at_ && *timer_at_ <= at) return;  // an earlier timer re-arms itself
  timer_at_ = at;
  world_.schedule(at, &DbNode::wait_timer_event, this, 0, 0, node_);
}

void DbNode::wait_timer_event(sim::World& w, const sim::Event& e) {
  if (!w.live(e)) return;
  auto* self = static_cast<DbNode*>(e.obj);
  if (self->timer_at_ == w.now()) self->timer_at_.reset();
  self->db_.expire_waits(self->local_ms());
  self->answer_completions();
  self->record_changes(kNoClient, Purpose::Other, true);
  self->arm_wait_timer();
}

sim::Task<void> DbNode::cleanup_job(sim::Proc proc) {
  for (;;) {
    co_await proc.sleep(options_.cleanup_interval);
    const uint64_t deleted = db_.cleanup_expired(local_ms());
    if (deleted == 0) continue;
    record_changes(kNoClient, Purpose::Other, true);
    answer_completions();
  }
}

// The table's changes since the last record, as the ledger's facts (the
// row's name is the lock's key, its owner the value, expires_at the
// deadline): a row a client's statement wrote or deleted is its doing; a row
// the server removed (the cleanup job, a rollback at session end or restart)
// goes as an expiry, by nobody.
void DbNode::record_changes(uint32_t client, Purpose purpose, bool by_server) {
  record_row_changes(client, purpose, by_server);
  record_lock_changes();
}

void DbNode::record_row_changes(uint32_t client, Purpose purpose, bool by_server) {
  std::map<std::string, db::Row> now;
  for (db::Row& r : db_.rows()) now.emplace(r.name, std::move(r));
  if (now == last_rows_) return;
  if (by_server) {
    client = kNoClient;
    purpose = Purpose::Other;
  }
  for (const auto& [name, row] : last_rows_)
    if (!now.count(name))
      add_effect(by_server ? Step::KeyExpired : Step::KeyDeleted, name, client, purpose, row_value(row), {}, -1);
  for (const auto& [name, row] : now) {
    auto old = last_rows_.find(name);
    std::optional<std::string> before;
    if (old != last_rows_.end()) {
      if (old->second == row) continue;
      before = row_value(old->second);
    }
    add_effect(Step::KeySet, name, client, purpose, before, row_value(row), row.expires_at_ms);
  }
  last_rows_ = std::move(now);
}

// Row locks held by open transactions: granted (set), ended by the holder's
// COMMIT or ROLLBACK (deleted), or taken away by the server (expired).
void DbNode::record_lock_changes() {
  for (const std::string& name : names_) {
    const std::optional<db::SessionId> holder = db_.lock_holder(name);
    auto last = last_holders_.find(name);
    const bool had = last != last_holders_.end();
    if (had && holder && last->second.session == *holder) continue;
    if (!had && !holder) continue;
    if (had) {
      const Holder old = last->second;
      last_holders_.erase(last);
      auto s = by_db_session_.find(old.session);
      const Session* ender = s == by_db_session_.end() ? nullptr : &sessions_.at(s->second);
      const std::string value = fmt::format("row lock of session {}", old.session);
      if (ender && ender->ending)
        add_effect(Step::KeyDeleted, name, ender->client, ender->purpose, value, {}, -1, true);
      else
        add_effect(Step::KeyExpired, name, kNoClient, Purpose::Other, value, {}, -1, true);
    }
    if (!holder) continue;
    auto s = by_db_session_.find(*holder);
    const Session* taker = s == by_db_session_.end() ? nullptr : &sessions_.at(s->second);
    const uint32_t client = taker ? taker->client : kNoClient;
    last_holders_[name] = Holder{*holder, client};
    add_effect(Step::KeySet, name, client, taker ? taker->purpose : Purpose::Other, {},
               fmt::format("row lock of session {}", *holder), -1, true);
  }
}

// The ledger's change for a row or a row lock: a row's expires_at is on the
// database's clock (its cleanup job's), and the row goes when the job deletes
// it, not when that time passes; a row lock ended by the server (its
// session's end, a restart, a deadlock) is lost with it, not expired.
void DbNode::add_fact(Step step, const std::string& key, uint32_t client, Purpose purpose, const std::string& value,
                      int64_t expire_at_ms, bool row_lock) {
  Ledger& ledger = history_->ledger();
  KeyChange c;
  c.at = world_.now();
  c.node = kDatabaseNode;
  c.key = key;
  c.client = client;
  c.purpose = purpose;
  c.value = value;
  switch (step) {
    case Step::KeySet: c.kind = KeyChange::Kind::Set; break;
    case Step::KeyDeleted: c.kind = KeyChange::Kind::Deleted; break;
    default:
      c.kind = row_lock ? KeyChange::Kind::Deleted : KeyChange::Kind::Expired;
      c.client = kNoClient;
      break;
  }
  if (expire_at_ms >= 0) {
    c.store_deadline_ms = expire_at_ms;
    c.deadline = c.at + world_.node(node_).clock.true_span(sim::milliseconds(expire_at_ms - local_ms()));
  }
  ledger.change(std::move(c));
}

void DbNode::add_effect(Step step, const std::string& key, uint32_t client, Purpose purpose,
                        std::optional<std::string> old_value, std::optional<std::string> new_value,
                        int64_t expire_at_ms, bool row_lock) {
  if (!history_) return;
  add_fact(step, key, client, purpose, new_value.value_or(old_value.value_or("")), expire_at_ms, row_lock);
}

}  // namespace locksim::lock
