#include "locksim/lock/redis_node.hpp"

#include <fmt/format.h>

#include "locksim/lock/command_pool.hpp"

namespace locksim::lock {

namespace {
std::string render_command(const RedisRequest& r) {
  if (r.read_push) return fmt::format("(read a pushed reply, waiting {}ms)", r.read_wait.ns / 1'000'000);
  std::string s;
  for (const auto& arg : r.command) {
    if (!s.empty()) s += ' ';
    // Lua bodies are long: the timeline shows their first words.
    s += arg.size() > 40 ? arg.substr(0, 37) + "..." : arg;
  }
  return s;
}

// A simulated Redis: lock scripts run a few hundred instructions, so a script is
// stopped after 5M and all of one server's scripts after 20M (about 0.2 s): a
// variant whose script always runs to its budget cannot make a run pay the
// budget at every call. Its data set is capped at 64 MB, as maxmemory.
// SUBSCRIBE's (and its kin's) confirmation: ["subscribe", channel, count of the connection's subscriptions].
std::optional<int64_t> subscription_count(const redis::Reply& r) {
  if (r.type != redis::Reply::Type::Array || r.elements.size() != 3) return std::nullopt;
  const redis::Reply& kind = r.elements[0];
  if (kind.type != redis::Reply::Type::Bulk || r.elements[2].type != redis::Reply::Type::Integer) return std::nullopt;
  if (kind.str != "subscribe" && kind.str != "unsubscribe" && kind.str != "psubscribe" && kind.str != "punsubscribe")
    return std::nullopt;
  return r.elements[2].integer;
}

redis::ServerOptions simulated_server_options() {
  redis::ServerOptions options;
  options.lua_instruction_budget = 5'000'000;
  options.lua_run_budget = 20'000'000;
  options.maxmemory_bytes = 64u * 1024 * 1024;
  return options;
}
}  // namespace

RedisNode::RedisNode(sim::World& world, std::string name, History* history, bool persistent, sim::LocalClock clock,
                     uint32_t index)
    : world_(world),
      node_(world.add_node(std::move(name), clock)),
      server_(simulated_server_options()),
      service_(world, node_, [this](sim::SessionId s, RedisRequest& r, Instant) { return handle(s, r); }),
      history_(history),
      persistent_(persistent),
      index_(index) {
  server_.set_observer(this);
  // The listener must not answer (answering may run the next held command):
  // it notes the connection, and deliver_pushed() answers after the command.
  server_.set_push_listener([this](redis::ConnectionId c) { pushed_.insert(c); });
  service_.on_disconnect([this](sim::SessionId s) { closed(s); });
  service_.describe(render_command, [](const redis::Reply& r) { return redis::to_string(r); });
  world.node(node_).crash_hooks.push_back([this] {
    if (history_) history_->ledger().server_crashed(index_, world_.now(), persistent_);
    crashing_ = true;
    if (!persistent_) server_.flushall();
    crashing_ = false;
    replication_connection_ = 0;  // flushall dropped connection state; reconnect lazily
    timer_at_.reset();            // the crash made its event stale
  });
}

sim::Answer<redis::Reply> RedisNode::handle(sim::SessionId session, RedisRequest& request) {
  auto it = sessions_.find(session);
  if (it == sessions_.end()) {
    it = sessions_.emplace(session, Session{}).first;
    it->second.conn = server_.connect();
    by_conn_[it->second.conn] = session;
  }
  Session& s = it->second;
  if (request.read_push) return read(s, request);
  return execute(s, request);
}

// The command's reply is made in the answer it goes back in (Answer::made), and the
// answer is this function's one return (NRVO): the reply is not moved on its way out.
sim::Answer<redis::Reply> RedisNode::execute(Session& s, RedisRequest& request) {
  // An acquire meeting its client's own live instance: the history notes it when the
  // command leaves that key as it was (the lock did not let its holder back in).
  const LockInstance* own =
      history_ && request.purpose == Purpose::Acquire ? history_->ledger().live_of(request.client, index_) : nullptr;
  const std::string own_key = own ? own->key : std::string();
  own_key_ = own ? &own_key : nullptr;
  own_key_changed_ = false;
  executing_ = &request;
  sim::Answer<redis::Reply> answer =
      sim::Answer<redis::Reply>::made([&] { return server_.execute(s.conn, request.command, local_ms()); });
  const redis::Reply& reply = answer.now;
  executing_ = nullptr;
  own_key_ = nullptr;
  recycle_command(std::move(request.command));  // it ran: nothing reads it again (a blocked one is kept as a copy)
  if (own && !own_key_changed_) record_own_lock_refused(request.client, own_key);
  if (const auto count = subscription_count(reply)) s.subscriptions = *count;
  const bool blocked = reply.is_blocked();
  // Deferred before anything is answered: answering runs other sessions' held commands.
  if (blocked) {
    s.waiting = service_.defer();
    s.waiting_read = false;
  }
  deliver_pushed();
  if (blocked) {
    arm_timer();
    answer.defer();
  }
  return answer;
}

sim::Answer<redis::Reply> RedisNode::read(Session& s, const RedisRequest& request) {
  if (!s.unread.empty()) {
    redis::Reply next = std::move(s.unread.front());
    s.unread.erase(s.unread.begin());
    return next;
  }
  // A connection a reset replaced has lost its subscriptions: the client must subscribe again.
  if (s.subscriptions == 0) return redis::Reply::error("ERR the connection has no subscription: nothing to read");
  s.waiting = service_.defer();
  s.waiting_read = true;
  s.read_deadline_ms = local_ms() + request.read_wait.ns / 1'000'000;
  arm_timer();
  return sim::Answer<redis::Reply>::later();
}

// Moves what the model pushed to its connections' sessions, answering a waiting call with it.
void RedisNode::deliver_pushed() {
  while (!pushed_.empty()) {
    const redis::ConnectionId conn = *pushed_.begin();
    pushed_.erase(pushed_.begin());
    std::vector<redis::Reply> replies = server_.take_pushed(conn);
    auto session = by_conn_.find(conn);
    if (session == by_conn_.end() || replies.empty()) continue;  // the replication connection: nobody reads it
    Session& s = sessions_.at(session->second);
    // A blocked command's late reply is the first push since it blocked.
    const bool blocked = s.waiting != 0 && !s.waiting_read;
    for (size_t i = blocked ? 1 : 0; i < replies.size(); ++i) {
      if (const auto count = subscription_count(replies[i])) s.subscriptions = *count;
      s.unread.push_back(std::move(replies[i]));
    }
    if (blocked) {
      answer_waiting(s, std::move(replies.front()));
    } else if (s.waiting != 0 && !s.unread.empty()) {
      redis::Reply next = std::move(s.unread.front());
      s.unread.erase(s.unread.begin());
      answer_waiting(s, std::move(next));
    }
  }
}

void RedisNode::answer_waiting(Session& s, redis::Reply reply) {
  const sim::DeferredId id = s.waiting;
  s.waiting = 0;
  s.waiting_read = false;
  service_.answer(id, std::move(reply));  // may run this session's held commands: `s` stays valid (a map node)
}

// The connection closed (client gone, reset, or this server crashed): its blocks and subscriptions end.
void RedisNode::closed(sim::SessionId session) {
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return;
  if (it->second.waiting != 0) service_.abandon(it->second.waiting);
  by_conn_.erase(it->second.conn);
  server_.disconnect(it->second.conn);
  pushed_.erase(it->second.conn);
  sessions_.erase(it);
}

// One timer event at the earliest deadline: a blocked command's (the model
// answers a deadline strictly before now) or a read's, on this node's clock.
void RedisNode::arm_timer() {
  std::optional<int64_t> due;
  if (const auto blocked = server_.next_timeout()) due = *blocked + 1;
  for (const auto& [id, s] : sessions_)
    if (s.waiting != 0 && s.waiting_read && (!due || s.read_deadline_ms < *due)) due = s.read_deadline_ms;
  if (!due) return;
  const Duration local_span = std::max<Duration>(Duration::zero(), Duration{(*due - local_ms()) * 1'000'000});
  const Instant at = world_.now() + world_.node(node_).clock.true_span(local_span);
  if (timer_at_ && *timer_at_ <= at) return;  // an earlier timer re-arms itself
  timer_at_ = at;
  world_.schedule(at, &RedisNode::timer_event, this, 0, 0, node_);
}

void RedisNode::timer_event(sim::World& w, const sim::Event& e) {
  if (!w.live(e)) return;
  auto* self = static_cast<RedisNode*>(e.obj);
  // At or after its time: a pause of this node delivers the event late.
  if (self->timer_at_ && *self->timer_at_ <= w.now()) self->timer_at_.reset();
  const int64_t now_ms = self->local_ms();
  if (const auto blocked = self->server_.next_timeout(); blocked && *blocked < now_ms) self->server_.advance(now_ms);
  self->deliver_pushed();
  for (auto& [id, s] : self->sessions_)
    if (s.waiting != 0 && s.waiting_read && s.read_deadline_ms <= now_ms) self->answer_waiting(s, redis::Reply::nil());
  self->arm_timer();
}

void RedisNode::on_propagate(PropagationListener listener) {
  if (!listener) {
    server_.set_propagation_listener(nullptr);
    return;
  }
  server_.set_propagation_listener([this, listener = std::move(listener)](std::vector<redis::Propagated> batch) {
    if (executing_) {
      listener(std::move(batch), executing_->client, executing_->purpose);
    } else {
      listener(std::move(batch), kNoClient, Purpose::Other);  // the expire cycle: the server's own doing
    }
  });
}

void RedisNode::apply_replicated(const std::vector<redis::Propagated>& batch, uint32_t client, Purpose purpose) {
  if (replication_connection_ == 0) replication_connection_ = server_.connect();
  for (const redis::Propagated& write : batch) {
    // A DEL standing for the master's expiry is nobody's command on the replica either.
    RedisRequest on_behalf{write.command, write.expiry ? kNoClient : client, write.expiry ? Purpose::Other : purpose};
    executing_ = &on_behalf;
    server_.execute(replication_connection_, write.command, local_ms());
    executing_ = nullptr;
  }
  deliver_pushed();  // a replicated write may serve a client blocked on this node
}

KeyChange key_change(const redis::KeyEffect& effect, Instant at, uint32_t node, uint32_t client, Purpose purpose,
                     const Ledger& ledger, const sim::LocalClock& clock) {
  KeyChange c;
  c.at = at;
  c.node = node;
  c.key = effect.key;
  c.client = client;
  c.purpose = purpose;
  c.value = effect.new_value.value_or("");
  const int64_t local_ms = unix_ms(clock.local(at));
  switch (effect.kind) {
    case redis::KeyEffect::Kind::Set: c.kind = KeyChange::Kind::Set; break;
    case redis::KeyEffect::Kind::Deleted: c.kind = KeyChange::Kind::Deleted; break;
    case redis::KeyEffect::Kind::ExpireChanged: c.kind = KeyChange::Kind::Rearmed; break;
    case redis::KeyEffect::Kind::Expired: {
      c.kind = KeyChange::Kind::Expired;
      c.client = kNoClient;
      c.purpose = Purpose::Other;
      // The first instant since it was last armed at which the store's clock read its deadline.
      const LockInstance* live = ledger.live(effect.key, node);
      if (!live || live->store_deadline_ms < 0 || live->store_deadline_ms > local_ms) return c;
      Instant lo = live->last_armed, hi = at;
      while (hi.ns - lo.ns > 1'000) {
        const Instant mid{lo.ns + (hi.ns - lo.ns) / 2};
        (unix_ms(clock.local(mid)) >= live->store_deadline_ms ? hi : lo) = mid;
      }
      c.at = hi;
      return c;
    }
  }
  if (effect.expire_at_ms >= 0) {
    c.store_deadline_ms = effect.expire_at_ms;
    // At the pace of true time: a drifting clock's expiry then shows as early (or late).
    c.deadline = at + sim::milliseconds(effect.expire_at_ms - local_ms);
  }
  return c;
}

void RedisNode::record_own_lock_refused(uint32_t client, const std::string& key) {
  HistoryEvent& e = history_->emplace();
  e.at = world_.now();
  e.local = world_.local_now(node_);
  e.step = Step::OwnLockRefused;
  e.client = client;
  e.purpose = Purpose::Acquire;
  e.key = key;
  e.server = index_;
}

void RedisNode::on_effect(const redis::KeyEffect& effect) { take_effect(redis::KeyEffect(effect)); }

// The history event takes the effect's strings (the ledger's change copies what it keeps).
void RedisNode::take_effect(redis::KeyEffect&& effect) {
  if (!history_) return;
  if (own_key_ && effect.key == *own_key_) own_key_changed_ = true;
  if (!crashing_) {  // every key: the ledger keeps the locks' bookkeeping too
    // A lazy expiry is the server's doing, whoever's command happened to find it.
    const bool by_client = executing_ && effect.kind != redis::KeyEffect::Kind::Expired;
    history_->ledger().change(key_change(effect, world_.now(), index_, by_client ? executing_->client : kNoClient,
                                         by_client ? executing_->purpose : Purpose::Other, history_->ledger(),
                                         world_.node(node_).clock));
  }
  HistoryEvent& e = history_->emplace();
  e.at = world_.now();
  e.local = world_.local_now(node_);
  switch (effect.kind) {
    case redis::KeyEffect::Kind::Set: e.step = Step::KeySet; break;
    case redis::KeyEffect::Kind::Deleted: e.step = Step::KeyDeleted; break;
    case redis::KeyEffect::Kind::ExpireChanged: e.step = Step::KeyExpireChanged; break;
    case redis::KeyEffect::Kind::Expired: e.step = Step::KeyExpired; break;
  }
  // A lazy expiry is the server's doing, whoever's command happened to find it.
  if (executing_ && effect.kind != redis::KeyEffect::Kind::Expired) {
    e.client = executing_->client;
    e.purpose = executing_->purpose;
  }
  e.key = std::move(effect.key);
  e.old_value = std::move(effect.old_value);
  e.new_value = std::move(effect.new_value);
  e.expire_at_ms = effect.expire_at_ms;
  e.server = index_;
}

}  // namespace locksim::lock
