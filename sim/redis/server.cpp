#include "locksim/sim/redis/server.hpp"

#include "locksim/sim/redis/memory.hpp"

#include <stdexcept>

#include "locksim/base/assert.hpp"

#include "locksim/sim/redis/arguments.hpp"
#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/functions.hpp"
#include "locksim/sim/redis/scripting.hpp"
#include "locksim/sim/redis/server_state.hpp"

namespace locksim::redis {

namespace {
// The server whose command runs on this thread (nullptr between commands). A host must
// not disconnect a connection while a command runs: an EXEC may still be running on
// that connection's state (a host command it queued killed it).
thread_local const Server::State* executing_state = nullptr;
}  // namespace

Server::State::State(ServerOptions opts) : options(opts), rng(opts.random_seed) {
  for (int i = 0; i < kDatabases; ++i) {
    dbs[static_cast<size_t>(i)].id = i;
    dbs[static_cast<size_t>(i)].watches = &watches;
    dbs[static_cast<size_t>(i)].any_ready = &any_ready;
    dbs[static_cast<size_t>(i)].notify = &notifications;
    dbs[static_cast<size_t>(i)].propagation = &propagation;
    dbs[static_cast<size_t>(i)].on_modified = &modified_listener;
  }
  notifications.server = this;
  notifications.publish = [](void* server, const std::string& channel, const std::string& message) {
    publish_message(*static_cast<State*>(server), channel, message);
  };
}
Server::State::~State() = default;

ConnectionState* Server::State::find_connection(ConnectionId id) {
  if (id == 0 || id > connections.size()) return nullptr;
  return connections[id - 1].get();
}

ConnectionState& Server::State::connection(ConnectionId id) {
  ConnectionState* conn = find_connection(id);
  if (!conn) throw std::invalid_argument("locksim::redis::Server: unknown connection id " + std::to_string(id));
  return *conn;
}

ScriptEngine& Server::State::script_engine() {
  if (!scripts) scripts = std::make_unique<ScriptEngine>(options);
  return *scripts;
}

void Server::State::push(ConnectionState& conn, Reply reply) {
  const bool was_empty = conn.outbox.empty();
  conn.outbox.push_back(std::move(reply));
  if (was_empty && push_listener) push_listener(conn.id);
}

void Server::State::propagate(int64_t now_ms) {
  if (!propagation.on() || propagation.empty()) return;
  std::vector<Propagated> batch = propagation.drain(dbs.data(), now_ms);
  propagation_listener(std::move(batch));
}

uint64_t Server::State::random() {  // splitmix64: deterministic for a given seed
  uint64_t z = (rng += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

namespace {
// Redis processCommand in RESP2: a subscribed connection may only run these.
bool allowed_when_subscribed(std::string_view name) {
  return name == "subscribe" || name == "unsubscribe" || name == "psubscribe" || name == "punsubscribe" ||
         name == "ssubscribe" || name == "sunsubscribe" || name == "ping" || name == "quit" || name == "reset";
}
// Redis's allow-busy commands of the model: what another client may run while a script
// is busy (the host answers AUTH, HELLO, QUIT, RESET and SHUTDOWN NOSAVE itself).
bool allowed_while_busy(const CommandSpec& spec, const Command& command) {
  if (spec.name == "multi" || spec.name == "discard" || spec.name == "watch" || spec.name == "unwatch") return true;
  if (spec.name == "function" && command.size() == 2 && equals_lower(command[1], "stats")) return true;
  return (spec.name == "script" || spec.name == "function") && command.size() == 2 && equals_lower(command[1], "kill");
}

// Redis rejectCommand: -BUSY; a transaction is aborted, a rejected EXEC discards it.
Reply refuse_while_busy(Server::State& server, ConnectionState& conn, bool is_exec) {
  Reply busy = server.scripts->busy_error();
  if (is_exec) {
    server.end_transaction(conn);
    return Reply::error("EXECABORT Transaction discarded because of: " + busy.str);
  }
  if (conn.in_multi) conn.dirty_exec = true;
  return busy;
}
}  // namespace

bool Server::State::script_running() const { return scripts && scripts->running(); }

// A command the host answers itself, arriving while a script is busy or inside MULTI.
Reply Server::State::run_host_owned(ConnectionState& conn, const Command& command, bool busy) {
  if (busy) {
    Reply refused = refuse_while_busy(*this, conn, false);
    if (const CommandSpec* spec = find_command(command[0]))  // a rejected call, as Redis's rejectCommand counts it
      stats.rejected(*spec, command, refused.str);
    else
      stats.error(refused.str);
    return refused;
  }
  if (auto refused = host.check(command)) {  // counted by the host (HostCommands)
    conn.dirty_exec = true;
    return std::move(*refused);
  }
  conn.queued.push_back(command);
  return Reply::status("QUEUED");
}

Reply Server::State::run(ConnectionState& conn, const Command& command, int64_t now_ms) {
  if (start_ms < 0) start_ms = now_ms;
  if (command.empty()) return Reply::error("ERR empty command");
  // Asked once: every check below that depends on a busy script reads this.
  const bool busy = script_running();
  if ((busy || conn.in_multi) && host_owns(command)) return run_host_owned(conn, command, busy);
  const CommandSpec* spec = find_command(command[0]);
  // Redis processCommand: a command that cannot be queued aborts the transaction.
  if (!spec) {
    if (conn.in_multi) conn.dirty_exec = true;
    return counted_error(unknown_command_error(command));
  }
  // Nothing to queue and nothing to refuse but maxmemory: the commands of a plain
  // connection go straight to their handler (reject_before_running's tests, made inline;
  // out of MULTI and not EXEC, refuse_on_oom is refuse_if_over_maxmemory).
  if (arity_matches(spec->arity, command.size()) && !(spec->flags & kSubcommands) && !busy && !conn.in_multi &&
      !conn.subscribed() && spec->handler != cmd_exec) {
    if (may_grow(*spec)) {
      if (auto refused = refuse_if_over_maxmemory(*this, *spec, command)) {
        stats.rejected(*spec, command, refused->str);
        return std::move(*refused);
      }
    }
    return dispatch(conn, *spec, command, now_ms);
  }
  if (auto rejected = reject_before_running(conn, *spec, command, busy)) {
    if (spec->name == "exec" && !rejected->str.starts_with("EXECABORT")) {  // Redis execCommandAbort
      end_transaction(conn);
      rejected = Reply::error("EXECABORT Transaction discarded because of: " + rejected->str);
    }
    if (conn.in_multi) conn.dirty_exec = true;
    if (rejected->str.starts_with(kUnknownSubcommand))
      stats.error(rejected->str);  // Redis finds no command to count it under
    else
      stats.rejected(*spec, command, rejected->str);
    return std::move(*rejected);
  }
  if (conn.in_multi && !(spec->flags & kNotQueued)) {
    conn.queued.push_back(command);
    return Reply::status("QUEUED");
  }
  return dispatch(conn, *spec, command, now_ms);
}

// One reply object from the handler to execute's caller (returned by name, never moved).
Reply Server::State::dispatch(ConnectionState& conn, const CommandSpec& spec, const Command& command,
                              int64_t now_ms) {
  ExecContext ctx{
      .server = *this, .conn = conn, .now_ms = now_ms, .in_script = false, .db_index = conn.db, .may_block = true};
  std::optional<Notifications::Scope> scope;  // only when events are on: most runs have none
  if (notifications.flags) scope.emplace(notifications, spec.name);
  error_already_counted = false;
  Reply reply = spec.handler(ctx, command);
  if (reply.type != Reply::Type::Blocked) {
    if (!reply.is_error() && !(spec.flags & kSubcommands))
      stats.ran_plain(spec.slot);  // the common case, inline
    else
      stats.ran(spec, command, reply, error_already_counted);
  }
  error_already_counted = false;
  if (any_ready && !script_running()) serve_ready_keys(now_ms);  // a busy script's writes are served after it
  return reply;
}

Reply Server::State::counted_error(Reply error) {
  stats.error(error.str);
  return error;
}

// Redis processCommand's refusals of a known command before it runs or is queued, in its
// order: arity, subcommand, a subscribed connection, a busy script, maxmemory.
std::optional<Reply> Server::State::reject_before_running(ConnectionState& conn, const CommandSpec& spec,
                                                          const Command& command, bool busy) {
  if (!arity_matches(spec.arity, command.size())) {
    if (spec.name == "exec") {
      // Redis rejectCommand: a rejected EXEC discards the transaction, in MULTI or not.
      end_transaction(conn);
      return Reply::error("EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' command");
    }
    return arity_error(spec.name);
  }
  if (spec.flags & kSubcommands) {
    if (auto rejected = check_subcommand(spec, command)) return rejected;
  }
  if (conn.subscribed() && !allowed_when_subscribed(spec.name)) {
    return Reply::error("ERR Can't execute '" + std::string(spec.name) +
                        "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context");
  }
  if (busy && !allowed_while_busy(spec, command)) {
    return refuse_while_busy(*this, conn, spec.name == "exec");
  }
  // A read outside MULTI has nothing to refuse or count (refuse_on_oom's own first test,
  // made here: GET should not pay for a call).
  if (!may_grow(spec) && !conn.in_multi && spec.handler != cmd_exec) return std::nullopt;
  return refuse_on_oom(*this, conn, spec, command);
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
  LOCKSIM_ASSERT(executing_state != state_.get(),
                 "a connection is disconnected while a command runs: the host must retire it after the command");
  ConnectionState& conn = state_->connection(id);
  state_->watches.unwatch_all(conn);
  state_->unblock(conn);
  state_->unsubscribe_all(conn);
  state_->connections[id - 1].reset();
}

Reply Server::execute(ConnectionId id, const Command& command, int64_t now_ms) {
  ConnectionState& conn = state_->connection(id);
  const bool was_blocked = conn.blocked.has_value();
  struct Executing {
    const State* outer = executing_state;
    ~Executing() { executing_state = outer; }
  } executing;
  executing_state = state_.get();
  // One reply object, returned by name (a Reply moved is a string copied).
  Reply reply = was_blocked ? Reply::error("ERR the connection is blocked: wait for its pushed reply")
                            : state_->run(conn, command, now_ms);
  // A busy script's writes go as one batch, after it.
  if (!was_blocked && state_->propagation.on() && !state_->script_running()) state_->propagate(now_ms);
  return reply;
}

void Server::set_script_host(ScriptHost* host) { state_->script_host = host; }

void Server::set_modified_listener(std::function<void(int db, std::string_view key)> listener) {
  state_->modified_listener = std::move(listener);
}

void Server::reset_connection(ConnectionId id) {
  ConnectionState& conn = state_->connection(id);
  state_->end_transaction(conn);
  state_->unsubscribe_all(conn);
  conn.db = 0;
}

std::vector<Reply> Server::take_pushed(ConnectionId id) {
  ConnectionState& conn = state_->connection(id);
  std::vector<Reply> out(std::make_move_iterator(conn.outbox.begin()), std::make_move_iterator(conn.outbox.end()));
  conn.outbox.clear();
  return out;
}

bool Server::has_pushed(ConnectionId id) const {
  const ConnectionState* conn = state_->find_connection(id);
  return conn && !conn->outbox.empty();
}

void Server::set_push_listener(std::function<void(ConnectionId)> listener) {
  state_->push_listener = std::move(listener);
}

void Server::set_host_commands(HostCommands host) { state_->host = std::move(host); }
void Server::set_host_memory(std::function<size_t()> bytes) { state_->host_memory = std::move(bytes); }

Reply Server::query(ConnectionId id, const Command& command, int64_t now_ms) {
  struct Uncounted {
    CommandStats& stats;
    bool was = stats.paused;
    ~Uncounted() { stats.paused = was; }
  } uncounted{state_->stats};
  state_->stats.paused = true;
  return execute(id, command, now_ms);
}

void Server::note_host_command(std::string_view name, std::string_view reply, bool refused) {
  state_->stats.host_ran(name, reply, refused);
}

bool Server::is_blocked(ConnectionId id) const {
  const ConnectionState* conn = state_->find_connection(id);
  return conn && conn->blocked.has_value();
}

void Server::advance(int64_t now_ms) {
  if (state_->start_ms < 0) state_->start_ms = now_ms;
  state_->time_out_blocked(now_ms);
  state_->active_expire_cycle(now_ms);
  state_->propagate(now_ms);
}

std::optional<int64_t> Server::next_timeout() const {
  std::optional<int64_t> earliest;
  for (const auto& conn : state_->connections) {
    if (!conn || !conn->blocked || conn->blocked->deadline_ms < 0) continue;
    if (!earliest || conn->blocked->deadline_ms < *earliest) earliest = conn->blocked->deadline_ms;
  }
  return earliest;
}

void Server::set_propagation_listener(std::function<void(std::vector<Propagated>)> listener) {
  state_->propagation.set_on(static_cast<bool>(listener));
  state_->propagation_listener = std::move(listener);
}

void Server::set_observer(Observer* observer) {
  for (Database& db : state_->dbs) db.observer = observer;
}

void Server::flushall() {
  for (auto& conn : state_->connections) {
    if (!conn) continue;
    state_->watches.unwatch_all(*conn);
    state_->unblock(*conn);
    state_->unsubscribe_all(*conn);
    conn->reset();
    conn->db = 0;
  }
  for (Database& db : state_->dbs) db.remove_all(0, 0);
  state_->propagation.clear();  // a crash: nothing of it reaches a replica
  state_->scripts.reset();
  state_->functions.reset();
}

std::optional<std::string> Server::peek_string(const std::string& key, int64_t now_ms) const {
  const Entry* entry = state_->dbs[0].peek(key, now_ms);
  if (!entry || entry->type != ValueType::String) return std::nullopt;
  return entry->str;
}

int64_t Server::peek_pttl(const std::string& key, int64_t now_ms) const {
  const Entry* entry = state_->dbs[0].peek(key, now_ms);
  if (!entry) return -2;
  if (entry->expire_at_ms < 0) return -1;
  return entry->expire_at_ms - now_ms;
}

size_t Server::dbsize(int64_t now_ms) const {
  size_t live = 0;
  for (const auto& [key, entry] : state_->dbs[0].keys)
    if (!entry.expired_at(now_ms)) ++live;
  return live;
}

}  // namespace locksim::redis
