#pragma once
// What every client did, in true time (with its local time beside it), and
// what every command did to the lock keys: the record the properties are
// checked on and the timelines are drawn from.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/lock/ledger.hpp"
#include "locksim/lock/touches.hpp"
#include "locksim/sim/time.hpp"

namespace locksim::lock {

using sim::Duration;
using sim::Instant;

// Why a client sent a command: lets the checkers tell a release that deletes
// someone else's lock (owner-only-release) from an acquire that does.
enum class Purpose : uint8_t { Acquire, Release, Renew, Resource, Other };
std::string_view to_string(Purpose);

enum class Step : uint8_t {
  AcquireStart,   // depth
  Acquired,       // token (the fence token or -1), depth
  AcquireFailed,  // gave up at its wait limit (or errored); depth
  Enter,
  Leave,         // the critical section, as the client believes it
  ReleaseStart,  // depth
  Released,      // own_lock, depth
  Renewed,
  RenewFailed,  // status
  WriteAccepted,
  WriteRejected,  // at the fenced resource: token, highest_seen
  Crashed,
  Restarted,
  Paused,
  Resumed,
  KeySet,
  KeyDeleted,
  KeyExpireChanged,
  KeyExpired,  // effects on lock keys, at the server
  ServerCrashed,
  ServerRestarted,  // a Redis node (client = kNoClient); keys_survive
  ReplicaPromoted,  // the replica became the master (server = the replica's node)
  Log,              // a Lua variant's log(text): text
  VariantError,     // a Lua variant failed (a Lua error, a budget): text names file:line
  CallLost,         // a fault lost the client's command's request (status 0) or reply (status 1);
                    // token: the command's number (1-based, over the client's life); purpose: its
  CallDelayed,      // a fault held the request of the client's command, or of its write to the
                    // resource (purpose Resource), in flight longer: token: its number; status:
                    // how much longer (ns)
  OwnLockRefused,   // at a Redis node (server): an acquire command of the client ran while the client's
                    // own instance of a lock key (key) was live there, and changed nothing of that key:
                    // the lock did not let its holder back in
};
std::string_view to_string(Step);

inline constexpr uint32_t kNoClient = 0xffffffffu;

// The small fields come first, together, so that padding does not grow every
// event of every history (216 bytes, not 224).
struct HistoryEvent {
  Instant at;                   // true time
  Instant local;                // the acting node's local clock (the server's for key effects)
  uint32_t client = kNoClient;  // the client acting; for key effects the client whose command it was
  uint32_t server = 0;          // key effects and server events: which Redis node (see Simulation::redis_node_name)
  Step step = Step::AcquireStart;
  Purpose purpose = Purpose::Other;
  // The step's details (see Step for which steps carry which; the others leave them at their defaults):
  bool own_lock = false;      // Released: the lock reported its release a success (it believes the key was its own)
  bool keys_survive = false;  // ServerCrashed/ServerRestarted: persistence keeps the node's keys
  int64_t depth = 0;          // acquire/release steps: the nesting depth, 0 outermost
  int64_t token = 0;          // Acquired: the fence token or -1; WriteAccepted/WriteRejected: the write's token
  int64_t highest_seen = 0;   // WriteAccepted/WriteRejected: the highest token the resource had accepted before
  int64_t status = 0;         // RenewFailed: the failed call's status (0: the lock was no longer ours)
  std::string key;            // key effects
  std::optional<std::string> old_value, new_value;
  int64_t expire_at_ms = -1;  // key effects: the deadline after it, on the server's clock (unix_time.hpp)
  std::string text;           // Log, VariantError
  // Acquired/AcquireFailed of a nested acquire: when the client last read its wall clock
  // (Env::local_now) while that acquire waited; never() if it did not (wall_reads.hpp).
  Instant wall_read_in_wait = Instant::never();
  // Renewed/RenewFailed: when the renewal's request was sent, in true time (never(): not
  // said). Its answer may come a round trip or a fault's hold later; the send time is what
  // says whether it went out before the lease's end.
  Instant sent = Instant::never();
};

// Env::record's two integers as the step's named details (their order is Env::record's).
void set_step_details(HistoryEvent& e, int64_t first, int64_t second);

class History {
 public:
  void add(HistoryEvent e) { events_.push_back(std::move(e)); }
  // A new event at the end, to fill in place (no move of its strings; for the hot paths).
  HistoryEvent& emplace() { return events_.emplace_back(); }
  void reserve(size_t events) { events_.reserve(events); }
  const std::vector<HistoryEvent>& events() const { return events_; }
  void set_clients(std::vector<std::string> names) { clients_ = std::move(names); }
  const std::vector<std::string>& clients() const { return clients_; }
  std::string client_name(uint32_t client) const;
  static std::string describe(const HistoryEvent& e, std::string_view client_name);
  // What happened to each lock instance, as the backends reported it (ledger.hpp).
  Ledger& ledger() { return ledger_; }
  const Ledger& ledger() const { return ledger_; }
  // The calls the clients made and the clock readings their locks took (touches.hpp).
  Touches& touches() { return touches_; }
  const Touches& touches() const { return touches_; }
  // A client step, once recorded: the ledger hears the steps that settle a pending takeover.
  void client_stepped(const HistoryEvent& e);

 private:
  std::vector<HistoryEvent> events_;
  Ledger ledger_;
  Touches touches_;
  std::vector<std::string> clients_;
};

}  // namespace locksim::lock
