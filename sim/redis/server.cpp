#include "sim/redis/server.hpp"

#include "sim/redis/memory.hpp"

#include <stdexcept>

#include "sim/redis/arguments.hpp"
#include "sim/redis/command_table.hpp"
#include "sim/redis/scripting.hpp"
#include "sim/redis/server_state.hpp"

namespace locksim::redis {

Server::State::State(ServerOptions opts) : options(opts) {}
Server::State::~State() = default;

ConnectionState& Server::State::connection(ConnectionId id) {
  if (id == 0 || id > connections.size() || !connections[id - 1])
    throw std::invalid_argument("locksim::redis::Server: unknown connection id " + std::to_string(id));
  return *connections[id - 1];
}

ScriptEngine& Server::State::script_engine() {
  if (!scripts) scripts = std::make_unique<ScriptEngine>(options);
  return *scripts;
}

Reply Server::State::run(ConnectionState& conn, const Command& command, int64_t now_ms) {
  if (command.empty()) return Reply::error("ERR empty command");
  const CommandSpec* spec = find_command(command[0]);
  // Redis processCommand: a command that cannot be queued aborts the transaction.
  if (!spec) {
    if (conn.in_multi) conn.dirty_exec = true;
    return unknown_command_error(command);
  }
  if (!arity_matches(spec->arity, command.size())) {
    if (spec->name == "exec") {
      // Redis rejectCommand: a rejected EXEC discards the transaction, in MULTI or not.
      conn.queued.clear();
      conn.in_multi = conn.dirty_cas = conn.dirty_exec = false;
      db.unwatch_all(conn);
      return Reply::error("EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' command");
    }
    if (conn.in_multi) conn.dirty_exec = true;
    return arity_error(spec->name);
  }
  if (auto rejected = check_subcommand(*spec, command)) {
    if (conn.in_multi) conn.dirty_exec = true;
    return std::move(*rejected);
  }
  if (conn.in_multi && !(spec->flags & kNotQueued)) {
    conn.queued.push_back(command);
    return Reply::status("QUEUED");
  }
  if (auto refused = refuse_if_over_maxmemory(*this, *spec, command)) return std::move(*refused);
  ExecContext ctx{*this, conn, now_ms, false};
  return spec->handler(ctx, command);
}

Server::Server(ServerOptions options) : state_(std::make_unique<State>(options)) {}
Server::~Server() = default;
Server::Server(Server&&) noexcept = default;
Server& Server::operator=(Server&&) noexcept = default;

ConnectionId Server::connect() {
  auto conn = std::make_unique<ConnectionState>();
  conn->id = state_->connections.size() + 1;
  conn->connected = true;
  state_->connections.push_back(std::move(conn));
  return state_->connections.back()->id;
}

void Server::disconnect(ConnectionId id) {
  ConnectionState& conn = state_->connection(id);
  state_->db.unwatch_all(conn);
  state_->connections[id - 1].reset();
}

Reply Server::execute(ConnectionId id, const Command& command, int64_t now_ms) {
  return state_->run(state_->connection(id), command, now_ms);
}

void Server::set_observer(Observer* observer) { state_->db.observer = observer; }

void Server::flushall() {
  for (auto& conn : state_->connections) {
    if (!conn) continue;
    state_->db.unwatch_all(*conn);
    conn->reset();
  }
  state_->db.remove_all(0, 0);
  state_->scripts.reset();
}

std::optional<std::string> Server::peek_string(const std::string& key, int64_t now_ms) const {
  const Entry* entry = state_->db.peek(key, now_ms);
  if (!entry || entry->type != ValueType::String) return std::nullopt;
  return entry->str;
}

int64_t Server::peek_pttl(const std::string& key, int64_t now_ms) const {
  const Entry* entry = state_->db.peek(key, now_ms);
  if (!entry) return -2;
  if (entry->expire_at_ms < 0) return -1;
  return entry->expire_at_ms - now_ms;
}

size_t Server::dbsize(int64_t now_ms) const {
  size_t live = 0;
  for (const auto& [key, entry] : state_->db.keys)
    if (!entry.expired_at(now_ms)) ++live;
  return live;
}

}  // namespace locksim::redis
