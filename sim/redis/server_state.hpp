#pragma once
// The server's internals shared by the command groups (internal header).
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "locksim/sim/redis/command_stats.hpp"
#include "locksim/sim/redis/connection.hpp"
#include "locksim/sim/redis/database.hpp"
#include "locksim/sim/redis/server.hpp"

namespace locksim::redis {
struct MemoryMeter {
  size_t measured = 0;  // the data set's size at the last walk (memory.hpp)
  size_t grown = 0;     // at most this much added since (kUnknown: measure before trusting it)
  // Larger than any cap can be and far from overflowing when a size is added to it.
  static constexpr size_t kUnknown = size_t{1} << 62;
};
}  // namespace locksim::redis

namespace locksim::redis {

class ScriptEngine;
class FunctionEngine;

inline constexpr int kDatabases = 16;

// CONFIG parameters that change what the model does.
struct ServerConfig {
  EncodingLimits limits;
  int64_t hz = 10;
  bool active_expire = true;            // DEBUG SET-ACTIVE-EXPIRE
  int64_t lua_time_limit_ms = 5000;     // busy-reply-threshold: a host's ScriptHost reads it (script_host.hpp)
  uint32_t notify_keyspace_events = 0;  // Notifications flags; a copy lives in State::notifications
};

struct PubSub {
  std::map<std::string, std::vector<ConnectionId>, std::less<>> channels;  // subscribers in subscription order
  std::map<std::string, std::vector<ConnectionId>, std::less<>> patterns;
};

struct Server::State {
  explicit State(ServerOptions opts);
  ~State();

  ServerOptions options;
  ServerConfig config;
  WatchTable watches;
  std::array<Database, kDatabases> dbs;
  MemoryMeter memory;                                         // maxmemory accounting (memory.hpp)
  CommandStats stats;                                         // INFO commandstats, errorstats
  // Set while a command runs when its error reply passes on one already counted (a
  // script's error from redis.call): CommandStats::ran then does not count it again.
  bool error_already_counted = false;
  std::vector<std::unique_ptr<ConnectionState>> connections;  // index = id - 1; null once closed
  std::unique_ptr<ScriptEngine> scripts;                      // created on first use
  std::unique_ptr<FunctionEngine> functions;                  // created on first use
  PubSub pubsub;
  Notifications notifications;  // keyspace notifications (notify-keyspace-events)
  Propagation propagation;      // writes noted for the replicas (propagation.hpp)
  std::function<void(std::vector<Propagated>)> propagation_listener;
  // Hands the writes noted since the last call to the listener, as one batch.
  void propagate(int64_t now_ms);
  std::function<void(ConnectionId)> push_listener;
  HostCommands host;
  // The bytes a host process holds beside the data set (set_host_memory); empty: none.
  std::function<size_t()> host_memory;
  ScriptHost* script_host = nullptr;
  std::function<void(int db, std::string_view key)> modified_listener;  // each database points here
  // A script runs: a command arriving now comes from another client, through the host.
  bool script_running() const;
  bool host_owns(const Command& command) const { return host.owns && host.owns(command[0]); }
  uint64_t block_order = 0;
  bool any_ready = false;  // a database has ready keys: serve_ready_keys has work
  uint64_t rng = 0;        // splitmix64 state for what Redis draws at random
  int64_t start_ms = -1;   // the first time the server saw (INFO uptime)
  int64_t last_expire_cycle_ms = -1;

  ConnectionState& connection(ConnectionId id);
  ConnectionState* find_connection(ConnectionId id);
  ScriptEngine& script_engine();
  // Runs one command as a client's request: MULTI queueing, then dispatch.
  Reply run(ConnectionState& conn, const Command& command, int64_t now_ms);
  // Runs a command that passed every check: its handler, its count, the keys it made ready.
  Reply dispatch(ConnectionState& conn, const CommandSpec& spec, const Command& command, int64_t now_ms);
  // `busy`: a script is running (script_running(), asked once per command).
  std::optional<Reply> reject_before_running(ConnectionState& conn, const CommandSpec& spec, const Command& command,
                                             bool busy);
  Reply run_host_owned(ConnectionState& conn, const Command& command, bool busy);
  Reply counted_error(Reply error);  // an error reply made outside any command, counted
  void push(ConnectionState& conn, Reply reply);
  // Leaves MULTI: the queue, its error flags and the WATCHes go (transactions.cpp).
  void end_transaction(ConnectionState& conn);
  uint64_t random();
  // Blocking: park a command, serve keys made ready, time out the late ones.
  void block(ConnectionState& conn, BlockedCommand blocked);
  void unblock(ConnectionState& conn);
  void serve_ready_keys(int64_t now_ms);
  void time_out_blocked(int64_t now_ms);
  void active_expire_cycle(int64_t now_ms);
  void unsubscribe_all(ConnectionState& conn);
};

// PUBLISH's delivery (commands_pubsub.cpp): the number of receivers.
int64_t publish_message(Server::State& server, const std::string& channel, const std::string& message);

// Everything a command handler may touch while it runs.
struct ExecContext {
  Server::State& server;
  ConnectionState& conn;
  int64_t now_ms;          // frozen for a whole script or transaction
  bool in_script = false;  // called through redis.call / redis.pcall
  int db_index = 0;        // the selected database (a script's SELECT stays in the script)
  bool may_block = true;   // false inside MULTI, scripts and when a blocked command is served

  Database& db() { return server.dbs[static_cast<size_t>(db_index)]; }
  ConnectionId conn_id() const { return conn.id; }
  const EncodingLimits& limits() const { return server.config.limits; }
};

}  // namespace locksim::redis
