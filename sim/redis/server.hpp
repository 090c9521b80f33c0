#pragma once
// The embedded Redis 7.0 model: one single-threaded server with 16 logical databases,
// strings, lists, sets, sorted sets and hashes with TTLs, transactions, pub/sub,
// blocking pops and Lua 5.1 scripting.
// Time is never read from a clock: every call says what the server's local time is.
//
// Replies that are not answers to a request (pub/sub messages, the late reply of a
// blocked command, the second and later replies of SUBSCRIBE a b ...) go to the
// connection's outbox. The caller (console, TCP front-end, simulator) drains it with
// take_pushed() after every execute() and advance(), in that order; set_push_listener
// says which connections have something waiting.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/sim/redis/reply.hpp"
#include "locksim/sim/redis/resp.hpp"
#include "locksim/sim/redis/script_host.hpp"

namespace locksim::redis {

using ConnectionId = uint64_t;

// What a command did to a key; reported to an observer so checkers can tell
// whose lock a key holds.
struct KeyEffect {
  enum class Kind : uint8_t { Set, Deleted, ExpireChanged, Expired };
  Kind kind = Kind::Set;
  ConnectionId conn = 0;  // 0 for Expired (the server removed it lazily or actively)
  int db = 0;             // the logical database (SELECT) the key lives in
  std::string key;
  std::optional<std::string> old_value, new_value;  // hashes rendered as {f=v,...}
  int64_t expire_at_ms = -1;                        // deadline after the effect, -1 none
  int64_t now_ms = 0;
};

class Observer {
 public:
  virtual ~Observer() = default;
  virtual void on_effect(const KeyEffect& effect) = 0;
  // The same, the effect the observer's to keep: an observer that stores its strings
  // moves them out instead of copying (the model builds each effect for this call only).
  virtual void take_effect(KeyEffect&& effect) { on_effect(effect); }
};

// One write the server propagates to its replicas (propagation.hpp): a command whose
// replay, in order, on a replica's connection makes the replica hold what this server
// holds. A batch is one top-level command's (or one expire cycle's) writes, atomic.
struct Propagated {
  Command command;
  bool expiry = false;  // a DEL that stands for this server expiring the key: no client did it
};

struct ServerOptions {
  // A script is stopped after this many Lua VM instructions (counted, never timed).
  uint64_t lua_instruction_budget = 100'000'000;
  // Cap on the Lua heap (scripts and the cache of loaded scripts together).
  size_t lua_memory_limit_bytes = 64u * 1024 * 1024;
  // Seeds what Redis draws at random (SPOP, SRANDMEMBER, RANDOMKEY, HRANDFIELD, ...).
  uint64_t random_seed = 0;
  // Instructions for all the scripts of the server's life together (0: no limit). A
  // simulation sets it so that a script that always runs to its budget cannot make
  // a run pay that budget at every call.
  uint64_t lua_run_budget = 0;
  // maxmemory: over this many bytes of data, commands that may add data get
  // Redis's OOM error (0: no cap). Bounds the model's memory against any client.
  size_t maxmemory_bytes = 256u * 1024 * 1024;
};

// Commands a host answers itself because they act on its own connections (a TCP
// front-end's CLIENT, HELLO, AUTH, LOCKSIM.*). Inside MULTI the model queues them like
// its own, once `check` accepts them (its error aborts the transaction, as an arity error
// does), and EXEC has `run` answer each in its turn. The host counts what `check` refuses
// and what `run` answers in INFO commandstats (note_host_command), since it knows their names.
struct HostCommands {
  std::function<bool(std::string_view name)> owns;  // any case
  std::function<std::optional<Reply>(const Command&)> check;
  std::function<Reply(ConnectionId, const Command&)> run;
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
  // A blocking command (BLPOP ...) with nothing to serve answers Reply::blocked():
  // its real reply arrives later in the outbox, when another command makes one of
  // its keys ready, or as a null array once advance() passes its deadline. A blocked
  // connection must send nothing else until then (as a real client cannot).
  Reply execute(ConnectionId conn, const Command& command, int64_t now_ms);

  // Pushed replies waiting for this connection, oldest first; empties the outbox.
  std::vector<Reply> take_pushed(ConnectionId conn);
  bool has_pushed(ConnectionId conn) const;
  // Called (synchronously, from inside execute/advance) when a connection's outbox
  // becomes non-empty. It may call take_pushed but must not execute commands.
  void set_push_listener(std::function<void(ConnectionId)> listener);
  bool is_blocked(ConnectionId conn) const;
  void set_host_commands(HostCommands host);
  // What a host process holds beside the data set, counted by maxmemory and INFO's
  // used_memory as Redis counts its own: a TCP front-end's baseline and its clients'
  // query and output buffers. Asked only while a cap is set and a write may be refused.
  // Without it (a simulation) the cap counts the data set alone and INFO adds an empty
  // Redis's bytes.
  void set_host_memory(std::function<size_t()> bytes);
  // Runs a command for the host's own needs (the INFO sections it merges, a key's type
  // for MEMORY USAGE): as execute, but counted in no statistic, since the client's
  // command it serves is counted once, by note_host_command.
  Reply query(ConnectionId conn, const Command& command, int64_t now_ms);
  // A command the host answered itself (CLIENT, HELLO, AUTH, LOCKSIM.* ...), counted in
  // INFO commandstats and errorstats as the model's own: `name` as Redis counts it
  // ("client|kill"), `reply` its RESP text (an error's code is counted).
  // `refused`: HostCommands::check refused it in MULTI (a rejected call, as in Redis).
  void note_host_command(std::string_view name, std::string_view reply, bool refused = false);
  // A host that serves other clients while a long script runs (script_host.hpp); may be nullptr.
  void set_script_host(ScriptHost* host);
  // Told of every key a command (or expiry) modifies, as Redis's signalModifiedKey, from
  // inside the command (CLIENT TRACKING's invalidation). It must not execute commands.
  void set_modified_listener(std::function<void(int db, std::string_view key)> listener);
  // RESET's part in the model: out of MULTI, WATCH and every subscription, database 0.
  // Runs while a script is busy too (RESET is allow-busy in Redis).
  void reset_connection(ConnectionId conn);

  // Moves the server clock on without a command: times out blocked commands whose
  // deadline is before now_ms, and runs the active expire cycle (at most every
  // 1000/hz ms of server time) unless DEBUG SET-ACTIVE-EXPIRE 0 turned it off.
  void advance(int64_t now_ms);
  // The earliest deadline of a blocked command (when advance() next has work), if any.
  std::optional<int64_t> next_timeout() const;

  void set_observer(Observer* observer);  // may be nullptr
  // Told of each batch of writes to propagate to replicas, after the command (or the
  // expire cycle) that made them; an empty function turns propagation off. The
  // listener must not execute commands on this server.
  void set_propagation_listener(std::function<void(std::vector<Propagated>)> listener);

  // A restart without persistence: no keys, no cached scripts, and every
  // connection's MULTI/WATCH state dropped (the ids stay usable).
  void flushall();

  // Introspection for checkers: no lazy deletion, no WATCH touch, no effects.
  std::optional<std::string> peek_string(const std::string& key, int64_t now_ms) const;
  int64_t peek_pttl(const std::string& key, int64_t now_ms) const;  // -2 none, -1 no TTL
  size_t dbsize(int64_t now_ms) const;                              // keys not yet expired

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace locksim::redis
