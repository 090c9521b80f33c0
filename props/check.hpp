#pragma once
// Checks a finished run's history against every property, and measures the
// metrics. Each property lives in a file of its own (check_*.cpp).
#include "locksim/lock/history.hpp"
#include "locksim/lock/simulation.hpp"
#include "locksim/props/property.hpp"

namespace locksim::props {

// What the checkers need to know beyond the history.
struct RunEnd {
  Instant at;                // true time the run ended
  bool key_exists = false;   // the lock key, on the Redis node at the end (the lock row, for the database locks)
  int64_t key_pttl_ms = -2;  // -1: no TTL
};
RunEnd run_end(lock::Simulation& sim);

struct CheckOptions {
  Duration deadlock_slack = sim::seconds(2);  // no-deadlock: a waiter gets the lock within lease + slack
  uint32_t max_overtakes = 2;                 // bounded-wait: later arrivals that may win during one wait
};

Verdict check(const lock::History& history, const lock::SimulationConfig& config, const RunEnd& end,
              const CheckOptions& options = {});

// The pieces, for tests and for early stopping.
namespace detail {

struct Context {
  const lock::History& history;
  const lock::SimulationConfig& config;
  const RunEnd& end;
  const CheckOptions& options;
  std::string name(uint32_t client) const { return history.client_name(client); }
};

// Every checker reads the ledger (c.history.ledger(), lock/ledger.hpp), never the history's
// raw key steps: the lock key's facts for ownership, and its writes (the locks' bookkeeping:
// a queue's places, a fencing counter) for when a client's command reached the store.

// A change a client's command made, to the lock key (a ledger fact) or to another key (a
// ledger write), in the order the backends reported them (server-made changes left out).
struct ClientChange {
  Instant at;
  uint64_t seq = 0;
  uint32_t node = 0;
  uint32_t client = lock::kNoClient;
  lock::Purpose purpose = lock::Purpose::Other;
  bool on_lock = false;  // the lock key (else its bookkeeping)
  bool ends = false;     // it deleted the key (on the lock: ended an instance)
  bool sets = false;     // it wrote a value (bookkeeping: a set; the lock: a grant or re-arm)
};
std::vector<ClientChange> client_changes(const Context& c);
// The clients' steps and their commands' changes, merged in time order (a change before a
// step at its instant: a step hears of a command only after it ran). The history's own key
// steps are left out: the changes stand for them.
struct StepOrChange {
  Instant at;
  uint32_t client = lock::kNoClient;
  const lock::HistoryEvent* step = nullptr;  // one of the two
  const ClientChange* change = nullptr;
};
std::vector<StepOrChange> steps_and_changes(const Context& c, const std::vector<ClientChange>& changes);
std::optional<Violation> mutual_exclusion(const Context& c);
std::optional<Violation> owner_only_release(const Context& c);
std::optional<Violation> no_deadlock(const Context& c, Metrics& m);
std::optional<Violation> fenced_writes(const Context& c);
std::optional<Violation> reentrancy(const Context& c);
std::optional<Violation> bounded_wait(const Context& c, Metrics& m);
std::optional<Violation> variant_error(const Context& c);
// Liveness (check_zombie.cpp): each violation comes with its cause.
std::optional<Violation> no_zombie_lock(const Context& c);
std::optional<Violation> no_stalled_wait(const Context& c);
void expiry_drift(const Context& c, Metrics& m);

}  // namespace detail
}  // namespace locksim::props
