#include "lock/registry.hpp"

#include <stdexcept>
#include <string>

#include "lock/algorithms.hpp"

namespace locksim::lock {

namespace {

std::deque<Algorithm>& registry() {
  static std::deque<Algorithm> list = {
      {"setnx-del", "SETNX key 1 to lock, DEL to unlock: no expiry at all", "002", "shows F01",
       {"key", "retry", "retry-jitter", "wait-limit", "call-timeout"}, true, make_setnx_del},
      {"setnx-expire", "SETNX, then EXPIRE as a second command", "000 002 003 004", "fixes F01; shows F02",
       {"key", "lease", "retry", "retry-jitter", "wait-limit", "call-timeout"}, false, make_setnx_expire},
      {"del-setnx", "value = expiry timestamp; a waiter DELs an expired lock and SETNXes", "000",
       "shows F03", {"key", "lease", "retry", "retry-jitter", "wait-limit", "call-timeout"}, false, make_del_setnx},
      {"getset", "value = expiry timestamp; a waiter takes an expired lock with GETSET", "000 001 002",
       "fixes F03; shows F04 F05 F06",
       {"key", "lease", "retry", "retry-jitter", "wait-limit", "call-timeout", "release-if-unexpired"}, false,
       make_getset},
      {"set-nx-px", "SET key 1 NX PX lease: value and expiry in one atomic command", "001 002 003 004",
       "fixes F02; shows F07 F08", {"key", "lease", "retry", "retry-jitter", "wait-limit", "call-timeout"}, false,
       make_set_nx_px},
      {"token-check-del", "unique token; release = GET, compare in the client, DEL", "002 003",
       "fixes F08; shows F09", {"key", "lease", "retry", "retry-jitter", "wait-limit", "call-timeout"}, false,
       make_token_check_del},
      {"token-lua", "unique token; release = atomic Lua compare-and-delete", "001 002 003 004",
       "fixes F09; shows F10 F11 F16", {"key", "lease", "retry", "retry-jitter", "wait-limit", "call-timeout"},
       false, make_token_lua},
      {"watchdog", "token-lua plus a renewal task re-arming the lease every lease/3", "002 004",
       "fixes F10 F11 (F12); shows F13 F14 F15",
       {"key", "lease", "retry", "retry-jitter", "wait-limit", "call-timeout", "renew-interval", "explicit-lease"},
       true, make_watchdog},
      {"reentrant", "Redisson hash lock: hold counts per owner, Lua scripts, watchdog", "002 004",
       "fixes F16",
       {"key", "lease", "retry", "retry-jitter", "wait-limit", "call-timeout", "renew-interval", "explicit-lease"},
       true, make_reentrant},
      {"watch-multi", "optimistic: WATCH, GET, MULTI, SET PX, EXEC", "001", "F21",
       {"key", "lease", "retry", "retry-jitter", "wait-limit", "call-timeout"}, false, make_watch_multi},
      {"fenced", "watchdog plus an INCR fencing token checked by the resource", "-", "fixes F13 at the resource (F19)",
       {"key", "lease", "retry", "retry-jitter", "wait-limit", "call-timeout", "renew-interval", "explicit-lease"},
       true, make_fenced},
      {"fair", "FIFO ticket queue of waiters, Redisson fair lock style", "004", "fixes F20",
       {"key", "lease", "retry", "retry-jitter", "wait-limit", "call-timeout"}, false, make_fair},
      {"redlock", "SET NX PX on N independent masters; held with a majority within the validity time",
       "002 004", "survives one master failing; shows F18",
       {"key", "lease", "retry", "retry-jitter", "wait-limit", "call-timeout"}, false, make_redlock},
  };
  return list;
}

}  // namespace

const std::deque<Algorithm>& algorithms() { return registry(); }

const Algorithm* find_algorithm(std::string_view id) {
  for (const auto& a : registry()) if (a.id == id) return &a;
  return nullptr;
}

void register_algorithm(Algorithm algorithm) {
  if (find_algorithm(algorithm.id)) throw std::invalid_argument("algorithm id already registered: " + std::string(algorithm.id));
  registry().push_back(std::move(algorithm));
}

}  // namespace locksim::lock
