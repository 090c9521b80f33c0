#include "locksim/lock/redis_node.hpp"

namespace locksim::lock {

namespace {
std::string render_command(const RedisRequest& r) {
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
  service_.on_disconnect([this](sim::SessionId s) {
    auto it = connections_.find(s);
    if (it == connections_.end()) return;
    server_.disconnect(it->second);
    connections_.erase(it);
  });
  service_.describe(render_command, [](const redis::Reply& r) { return redis::to_string(r); });
  world.node(node_).crash_hooks.push_back([this] {
    if (!persistent_) server_.flushall();
    replication_connection_ = 0;  // flushall dropped connection state; reconnect lazily
  });
}

redis::Reply RedisNode::handle(sim::SessionId session, RedisRequest& request) {
  auto it = connections_.find(session);
  if (it == connections_.end()) it = connections_.emplace(session, server_.connect()).first;
  executing_ = &request;
  redis::Reply reply = server_.execute(it->second, request.command, local_ms());
  executing_ = nullptr;
  return reply;
}

void RedisNode::apply_replicated(const redis::KeyEffect& effect, uint32_t client, Purpose purpose) {
  if (replication_connection_ == 0) replication_connection_ = server_.connect();
  redis::Command command;
  switch (effect.kind) {
    case redis::KeyEffect::Kind::Set:
      // Hashes (rendered "{field=value,...}") are not replicated: the replicated
      // locks (F17) are string locks.
      if (!effect.new_value ||
          (effect.new_value->size() >= 2 && effect.new_value->front() == '{' && effect.new_value->back() == '}'))
        return;
      command = {"SET", effect.key, *effect.new_value};
      if (effect.expire_at_ms >= 0) {
        command.push_back("PXAT");
        command.push_back(std::to_string(effect.expire_at_ms));
      }
      break;
    case redis::KeyEffect::Kind::Deleted:
    case redis::KeyEffect::Kind::Expired:  // a master replicates an expiry as a DEL
      command = {"DEL", effect.key};
      break;
    case redis::KeyEffect::Kind::ExpireChanged:
      command = effect.expire_at_ms >= 0 ? redis::Command{"PEXPIREAT", effect.key, std::to_string(effect.expire_at_ms)}
                                         : redis::Command{"PERSIST", effect.key};
      break;
  }
  RedisRequest on_behalf{command, client, purpose};
  executing_ = &on_behalf;
  server_.execute(replication_connection_, command, local_ms());
  executing_ = nullptr;
}

void RedisNode::on_effect(const redis::KeyEffect& effect) {
  if (on_write_ && executing_ && effect.kind != redis::KeyEffect::Kind::Expired)
    on_write_(effect, executing_->client, executing_->purpose);
  if (!history_) return;
  HistoryEvent e;
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
  e.key = effect.key;
  e.old_value = effect.old_value;
  e.new_value = effect.new_value;
  e.expire_at_ms = effect.expire_at_ms;
  e.server = index_;
  history_->add(std::move(e));
}

}  // namespace locksim::lock
