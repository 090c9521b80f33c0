#pragma once
// Per-connection server state: the selected database, the MULTI queue and WATCHed
// keys, pub/sub subscriptions, a blocked command and the outbox (internal).
#include <cstdint>
#include <deque>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "locksim/sim/redis/keyspace.hpp"
#include "locksim/sim/redis/server.hpp"

namespace locksim::redis {

// A command waiting for one of its keys (BLPOP, BRPOP, BLMOVE, BLMPOP, BZPOPMIN,
// BZPOPMAX, BZMPOP).
struct BlockedCommand {
  int db = 0;
  std::vector<std::string> keys;
  int64_t deadline_ms = -1;  // on the server clock; -1 waits forever
  Command command;
  ValueType waits_for = ValueType::List;  // a key of another type does not serve it
  uint64_t order = 0;                     // when it blocked: earlier ones are served first
};

struct ConnectionState {
  ConnectionId id = 0;
  bool connected = false;
  int db = 0;        // SELECT
  std::string name;  // CLIENT SETNAME
  bool in_multi = false;
  bool dirty_cas = false;   // a WATCHed key changed: EXEC answers a null array
  bool dirty_exec = false;  // a command failed to queue: EXEC answers EXECABORT
  std::vector<Command> queued;
  std::vector<std::pair<int, std::string>> watched;  // (database, key) in WATCH order, no duplicates
  std::set<std::string> channels, patterns;
  std::optional<BlockedCommand> blocked;
  // Pushed replies the caller has not taken yet (taken all at once). A vector: a deque
  // allocates twice as it is made, for each of the many connections that never get one.
  std::vector<Reply> outbox;

  bool subscribed() const { return !channels.empty() || !patterns.empty(); }
  void reset() {
    in_multi = dirty_cas = dirty_exec = false;
    queued.clear();
    watched.clear();
  }
};

}  // namespace locksim::redis
