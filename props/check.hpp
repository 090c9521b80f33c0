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
  bool is_lock_key(const lock::HistoryEvent& e) const { return e.key == config.lock.key; }
};

// Ownership is the ledger's (c.history.ledger(), lock/ledger.hpp): no checker rebuilds it from key changes.
// Key changes are read only for keys that are not locks: a queue's places (bounded-wait's
// arrivals, no-stalled-wait's refusals) and a fencing counter's token (fenced-writes' order of holds).
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
