#pragma once
// The embedded Redis 7.0 model: one single-threaded server, one logical database,
// strings and hashes with TTLs, transactions and Lua 5.1 scripting.
// Time is never read from a clock: every call says what the server's local time is.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/redis/reply.hpp"
#include "sim/redis/resp.hpp"

namespace locksim::redis {

using ConnectionId = uint64_t;

// What a command did to a key; reported to an observer so checkers can tell
// whose lock a key holds.
struct KeyEffect {
  enum class Kind : uint8_t { Set, Deleted, ExpireChanged, Expired };
  Kind kind = Kind::Set;
  ConnectionId conn = 0;  // 0 for Expired (the server removed it lazily)
  std::string key;
  std::optional<std::string> old_value, new_value;  // hashes rendered as {f=v,...}
  int64_t expire_at_ms = -1;  // deadline after the effect, -1 none
  int64_t now_ms = 0;
};

class Observer {
 public:
  virtual ~Observer() = default;
  virtual void on_effect(const KeyEffect& effect) = 0;
};

struct ServerOptions {
  // A script is stopped after this many Lua VM instructions (counted, never timed).
  uint64_t lua_instruction_budget = 100'000'000;
  // Cap on the Lua heap (scripts and the cache of loaded scripts together).
  size_t lua_memory_limit_bytes = 64u * 1024 * 1024;
  // Instructions for all the scripts of the server's life together (0: no limit). A
  // simulation sets it so that a script that always runs to its budget cannot make
  // a run pay that budget at every call.
  uint64_t lua_run_budget = 0;
  // maxmemory: over this many bytes of data, commands that may add data get
  // Redis's OOM error (0: no cap). Bounds the model's memory against any client.
  size_t maxmemory_bytes = 256u * 1024 * 1024;
};

class Server {
 public:
  explicit Server(ServerOptions options = {});
  ~Server();
  Server(Server&&) noexcept;
  Server& operator=(Server&&) noexcept;
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // A connection carries its own MULTI queue and WATCHed keys.
  ConnectionId connect();
  void disconnect(ConnectionId conn);

  // Executes one command atomically at the server's local time now_ms.
  // Throws std::invalid_argument for a connection id that is not connected.
  Reply execute(ConnectionId conn, const Command& command, int64_t now_ms);

  void set_observer(Observer* observer);  // may be nullptr

  // A restart without persistence: no keys, no cached scripts, and every
  // connection's MULTI/WATCH state dropped (the ids stay usable).
  void flushall();

  // Introspection for checkers: no lazy deletion, no WATCH touch, no effects.
  std::optional<std::string> peek_string(const std::string& key, int64_t now_ms) const;
  int64_t peek_pttl(const std::string& key, int64_t now_ms) const;  // -2 none, -1 no TTL
  size_t dbsize(int64_t now_ms) const;                             // keys not yet expired

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace locksim::redis
