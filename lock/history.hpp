#pragma once
// What every client did, in true time (with its local time beside it), and
// what every command did to the lock keys: the record the properties are
// checked on and the timelines are drawn from.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/sim/time.hpp"

namespace locksim::lock {

using sim::Duration;
using sim::Instant;

// Why a client sent a command: lets the checkers tell a release that deletes
// someone else's lock (owner-only-release) from an acquire that does.
enum class Purpose : uint8_t { Acquire, Release, Renew, Resource, Other };
std::string_view to_string(Purpose);

enum class Step : uint8_t {
  AcquireStart,   // a = nesting depth (0 outermost)
  Acquired,       // a = fence token or -1
  AcquireFailed,  // gave up at its wait limit (or errored)
  Enter,
  Leave,  // the critical section, as the client believes it
  ReleaseStart,
  Released,  // a = 1 if the client believes it released its own lock
  Renewed,
  RenewFailed,
  WriteAccepted,
  WriteRejected,  // at the fenced resource: a = token, b = highest seen before
  Crashed,
  Restarted,
  Paused,
  Resumed,
  KeySet,
  KeyDeleted,
  KeyExpireChanged,
  KeyExpired,  // effects on lock keys, at the server
  ServerCrashed,
  ServerRestarted,  // a Redis node (client = kNoClient); a = 1 if its keys survive (persistence)
  ReplicaPromoted,  // the replica became the master (server = the replica's node)
  Log,              // a Lua variant's log(text): text
  VariantError,     // a Lua variant failed (a Lua error, a budget): text names file:line
};
std::string_view to_string(Step);

inline constexpr uint32_t kNoClient = 0xffffffffu;

struct HistoryEvent {
  Instant at;                   // true time
  Instant local;                // the acting node's local clock (the server's for key effects)
  uint32_t client = kNoClient;  // the client acting; for key effects the client whose command it was
  Step step = Step::AcquireStart;
  Purpose purpose = Purpose::Other;
  int64_t a = 0, b = 0;
  std::string key;  // key effects
  std::optional<std::string> old_value, new_value;
  int64_t expire_at_ms = -1;  // key effects: the deadline after it, on the server's clock (unix_time.hpp)
  uint32_t server = 0;        // key effects and server events: which Redis node (see Simulation::redis_node_name)
  std::string text;           // Log, VariantError
};

class History {
 public:
  void add(HistoryEvent e) { events_.push_back(std::move(e)); }
  const std::vector<HistoryEvent>& events() const { return events_; }
  void set_clients(std::vector<std::string> names) { clients_ = std::move(names); }
  const std::vector<std::string>& clients() const { return clients_; }
  std::string client_name(uint32_t client) const;
  static std::string describe(const HistoryEvent& e, std::string_view client_name);

 private:
  std::vector<HistoryEvent> events_;
  std::vector<std::string> clients_;
};

}  // namespace locksim::lock
