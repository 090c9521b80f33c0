#include "locksim/lock/registry.hpp"

#include <stdexcept>
#include <string>

#include "locksim/lock/algorithms.hpp"

namespace locksim::lock {

namespace {

// The parameters every spin lock reads, and those the watchdog family adds.
std::vector<std::string_view> spin_params(std::vector<std::string_view> extra = {}) {
  std::vector<std::string_view> names{"key", "lease", "retry", "retry-jitter", "wait-limit", "call-timeout"};
  names.insert(names.end(), extra.begin(), extra.end());
  return names;
}

// The fence moves the safety promise to the resource: overlapping holds are
// expected (a pause longer than the lease) and harmless while the resource rejects
// the stale writes, so mutual exclusion is what the fence makes unnecessary.
std::vector<std::string_view> fenced_claims() {
  std::vector<std::string_view> claims = lock_claims({"fenced-writes"});
  std::erase(claims, std::string_view("mutual-exclusion"));
  return claims;
}

// `documents` holds source keys (lock/sources.hpp); "-": beyond the posts.

// From no expiry at all to the token and the Lua release: one key, one Redis.
std::deque<Algorithm> single_key_evolution() {
  return {
      {.id = "setnx-del",
       .summary = "SETNX key 1 to lock, DEL to unlock: no expiry at all",
       .documents = "approaches",
       .failures = "shows F01",
       .params = {"key", "retry", "retry-jitter", "wait-limit", "call-timeout"},
       .safe_without_faults = true,
       .make = make_setnx_del},
      {.id = "setnx-expire",
       .summary = "SETNX, then EXPIRE as a second command",
       .documents = "methods-intro approaches layers evolution",
       .failures = "fixes F01; shows F02",
       .params = spin_params(),
       .safe_without_faults = false,
       .make = make_setnx_expire},
      {.id = "del-setnx",
       .summary = "value = expiry timestamp; a waiter DELs an expired lock and SETNXes",
       .documents = "methods-intro",
       .failures = "shows F03",
       .params = spin_params(),
       .safe_without_faults = false,
       .make = make_del_setnx},
      {.id = "getset",
       .summary = "value = expiry timestamp; a waiter takes an expired lock with GETSET",
       .documents = "methods-intro mysql-redis approaches",
       .failures = "fixes F03; shows F04 F05 F06",
       .params = spin_params({"release-if-unexpired"}),
       .safe_without_faults = false,
       .make = make_getset},
      {.id = "set-nx-px",
       .summary = "SET key 1 NX PX lease: value and expiry in one atomic command",
       .documents = "mysql-redis approaches layers evolution",
       .failures = "fixes F02; shows F07 F08",
       .params = spin_params(),
       .safe_without_faults = false,
       .make = make_set_nx_px},
      {.id = "token-check-del",
       .summary = "unique token; release = GET, compare in the client, DEL",
       .documents = "approaches layers",
       .failures = "fixes F08; shows F09",
       .params = spin_params(),
       .safe_without_faults = false,
       .make = make_token_check_del},
      {.id = "token-lua",
       .summary = "unique token; release = atomic Lua compare-and-delete",
       .documents = "mysql-redis approaches layers evolution",
       .failures = "fixes F09; shows F10 F11 F16",
       .params = spin_params(),
       .safe_without_faults = false,
       .make = make_token_lua},
  };
}

// What production locks add to the main line: renewal, fencing, several masters.
std::deque<Algorithm> production_locks() {
  const std::vector<std::string_view> watchdog_params = spin_params({"renew-interval", "explicit-lease"});
  return {
      {.id = "watchdog",
       .summary = "token-lua plus a renewal task re-arming the lease every lease/3",
       .documents = "approaches evolution",
       .failures = "fixes F10 F11 (F12); shows F13 F14 F15",
       .params = watchdog_params,
       .safe_without_faults = true,
       .make = make_watchdog},
      {.id = "fenced",
       .summary = "watchdog plus an INCR fencing token checked by the resource",
       .documents = "-",
       .failures = "fixes F13 at the resource (F19)",
       .params = watchdog_params,
       .safe_without_faults = true,
       .make = make_fenced,
       .claims = fenced_claims()},
      {.id = "redlock",
       .summary = "SET NX PX on N independent masters; held with a majority within the validity time",
       .documents = "approaches evolution",
       .failures = "survives one master failing; shows F18",
       .params = spin_params(),
       .safe_without_faults = false,
       .make = make_redlock},
  };
}

// Variants beside the main line: reentrancy, optimistic locking, fairness, waiting on pub/sub.
std::deque<Algorithm> variants() {
  const std::vector<std::string_view> watchdog_params = spin_params({"renew-interval", "explicit-lease"});
  return {
      {.id = "reentrant",
       .summary = "Redisson hash lock: hold counts per owner, Lua scripts, watchdog",
       .documents = "approaches evolution",
       .failures = "fixes F16",
       .params = watchdog_params,
       .safe_without_faults = true,
       .make = make_reentrant,
       .claims = lock_claims({"reentrancy"})},
      {.id = "watch-multi",
       .summary = "optimistic: WATCH, GET, MULTI, SET PX, EXEC",
       .documents = "mysql-redis",
       .failures = "F21",
       .params = spin_params(),
       .safe_without_faults = false,
       .make = make_watch_multi},
      {.id = "fair",
       .summary = "FIFO ticket queue of waiters, Redisson fair lock style",
       .documents = "evolution",
       .failures = "fixes F20",
       .params = spin_params(),
       .safe_without_faults = false,
       .make = make_fair,
       .claims = lock_claims({"bounded-wait"})},
      {.id = "pubsub-wait",
       .summary = "token-lua whose waiters SUBSCRIBE and wake on the unlock PUBLISH (or at the PTTL), Redisson style",
       .documents = "evolution",
       .failures = "shows F10 F16 F20",
       .params = {"key", "lease", "retry", "wait-limit", "call-timeout"},
       .safe_without_faults = false,
       .make = make_pubsub_wait,
       .waits_on_redis = true},
  };
}

// Before Redis: the lock kept in a relational database (the "db" node).
std::deque<Algorithm> database_locks() {
  const std::vector<std::string_view> table_params{"key", "retry", "retry-jitter", "wait-limit", "call-timeout"};
  return {
      {.id = "db-insert-delete",
       .summary = "lock table: INSERT the row (unique key) to lock, DELETE it to unlock: no expiry",
       .documents = "mysql-redis",
       .failures = "shows F22",
       .params = table_params,
       .safe_without_faults = true,
       .make = make_db_insert_delete,
       .uses_database = true},
      {.id = "db-insert-expiry",
       .summary = "lock table with an expires_at column; the database's cleanup job deletes expired rows",
       .documents = "mysql-redis",
       .failures = "fixes F22; shows F22 (work outlasts the expiry)",
       .params = spin_params(),
       .safe_without_faults = false,
       .make = make_db_insert_expiry,
       .uses_database = true},
      {.id = "db-for-update",
       .summary = "BEGIN; SELECT ... FOR UPDATE held through the work; COMMIT",
       .documents = "mysql-redis",
       .failures = "fixes F22",
       .params = {"key", "wait-limit", "call-timeout"},
       .safe_without_faults = true,
       .make = make_db_for_update,
       .uses_database = true},
      {.id = "db-reentrant",
       .summary = "lock table with host/thread owner and a hold count: the owner re-enters",
       .documents = "mysql-redis",
       .failures = "shows F22",
       .params = table_params,
       .safe_without_faults = true,
       .make = make_db_reentrant,
       .claims = lock_claims({"reentrancy"}),
       .reentrant = true,
       .uses_database = true},
  };
}

// The order of `locksim list` and the tour: the Redis evolution (docs/failures.md's
// order), the variants beside it, the database locks as an appendix.
std::deque<Algorithm>& registry() {
  static std::deque<Algorithm> list = [] {
    std::deque<Algorithm> all = single_key_evolution();
    for (Algorithm& a : production_locks()) all.push_back(std::move(a));
    for (Algorithm& a : variants()) all.push_back(std::move(a));
    for (Algorithm& a : database_locks()) all.push_back(std::move(a));
    return all;
  }();
  return list;
}

}  // namespace

std::vector<std::string_view> lock_claims(std::vector<std::string_view> extra) {
  std::vector<std::string_view> claims{"mutual-exclusion", "no-deadlock", "owner-only-release", "no-zombie-lock",
                                       "no-stalled-wait"};
  claims.insert(claims.end(), extra.begin(), extra.end());
  return claims;
}

std::vector<std::string_view> claims_of(const Algorithm& a) { return a.claims ? *a.claims : lock_claims(); }

const std::deque<Algorithm>& algorithms() { return registry(); }

const Algorithm* find_algorithm(std::string_view id) {
  for (const auto& a : registry())
    if (a.id == id) return &a;
  return nullptr;
}

void register_algorithm(Algorithm algorithm) {
  if (find_algorithm(algorithm.id))
    throw std::invalid_argument("algorithm id already registered: " + std::string(algorithm.id));
  registry().push_back(std::move(algorithm));
}

}  // namespace locksim::lock
