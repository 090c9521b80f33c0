#pragma once
// The server's internals shared by the command groups (internal header).
#include <memory>
#include <vector>

#include "sim/redis/connection.hpp"
#include "sim/redis/database.hpp"
#include "sim/redis/server.hpp"

namespace locksim::redis {
struct MemoryMeter {
  size_t measured = 0;  // the data set's size at the last walk (memory.hpp)
  size_t grown = 0;     // at most this much added since
};
}  // namespace locksim::redis

namespace locksim::redis {

class ScriptEngine;

struct Server::State {
  explicit State(ServerOptions opts);
  ~State();

  ServerOptions options;
  Database db;
  MemoryMeter memory;  // maxmemory accounting (memory.hpp)
  std::vector<std::unique_ptr<ConnectionState>> connections;  // index = id - 1; null once closed
  std::unique_ptr<ScriptEngine> scripts;                      // created on first use

  ConnectionState& connection(ConnectionId id);
  ScriptEngine& script_engine();
  // Runs one command as a client's request: MULTI queueing, then dispatch.
  Reply run(ConnectionState& conn, const Command& command, int64_t now_ms);
};

// Everything a command handler may touch while it runs.
struct ExecContext {
  Server::State& server;
  ConnectionState& conn;
  int64_t now_ms;          // frozen for a whole script or transaction
  bool in_script = false;  // called through redis.call / redis.pcall

  Database& db() { return server.db; }
  ConnectionId conn_id() const { return conn.id; }
};

}  // namespace locksim::redis
