#pragma once
// What a server propagates to its replicas (internal). Redis propagates every write
// (propagate(), alsoPropagate()): the command itself, rewritten where a replica could
// not repeat it (EXPIRE as PEXPIREAT, SPOP as SREM, ...), and for scripts and functions
// (Redis 7) their effects, wrapped in MULTI/EXEC. The model propagates effects as
// commands: per key a top-level command changed, in the order first changed, the
// command that sets the key to its new state — SET (strings, any bytes) or RESTORE
// ... REPLACE ABSTTL (every other type), with the deadline as an absolute time, or
// PEXPIREAT/PERSIST when only the deadline changed, or DEL when the key is gone. A
// replica that runs them in order holds what the master holds, whatever the command
// was (MULTI, EVAL, FCALL, a blocked client served, an expiry).
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "locksim/sim/redis/server.hpp"

namespace locksim::redis {

class Database;
struct Entry;

class Propagation {
 public:
  bool on() const { return on_; }
  void set_on(bool on) {
    on_ = on;
    clear();
  }
  // A key changed: its value (or existence) when value_changed, else only its deadline;
  // expired: the change is the server expiring it (no client did it).
  void note(int db, std::string_view key, bool value_changed, bool expired);
  bool empty() const { return changed_.empty(); }
  void clear() {
    changed_.clear();
    index_.clear();
  }
  // The commands that reproduce the noted changes, given the databases as they are now.
  std::vector<Propagated> drain(const Database* dbs, int64_t now_ms);

 private:
  struct Changed {
    int db;
    std::string key;
    bool value_changed, expired;
  };
  bool on_ = false;
  std::vector<Changed> changed_;                      // first-change order
  std::map<std::pair<int, std::string>, size_t> index_;  // into changed_
};

// The serialized value DUMP returns (commands_dump.cpp).
std::string dump_payload(const Entry& entry);

}  // namespace locksim::redis
