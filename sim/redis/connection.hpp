#pragma once
// Per-connection server state: the MULTI queue and the WATCHed keys (internal).
#include <string>
#include <vector>

#include "sim/redis/server.hpp"

namespace locksim::redis {

struct ConnectionState {
  ConnectionId id = 0;
  bool connected = false;
  bool in_multi = false;
  bool dirty_cas = false;   // a WATCHed key changed: EXEC answers a null array
  bool dirty_exec = false;  // a command failed to queue: EXEC answers EXECABORT
  std::vector<Command> queued;
  std::vector<std::string> watched;  // in WATCH order, no duplicates

  void reset() {
    in_multi = dirty_cas = dirty_exec = false;
    queued.clear();
    watched.clear();
  }
};

}  // namespace locksim::redis
