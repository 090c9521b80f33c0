#include "locksim/lock/watchdog.hpp"

#include <algorithm>

#include "locksim/lock/algorithms.hpp"
#include "locksim/lock/scripts.hpp"

namespace locksim::lock {

Duration WatchdogLock::initial_lease() const {
  return params().explicit_lease.ns > 0 ? params().explicit_lease : params().lease;
}

Duration WatchdogLock::renew_interval() const {
  return params().renew_interval.ns > 0 ? params().renew_interval : params().lease / 3;
}

Task<bool> WatchdogLock::acquire(Env& env) {
  renewal_.lost = false;
  bool held = co_await TokenLuaLock::acquire(env);
  if (held && renews()) {
    Command renewal = cmd("EVAL", std::string(scripts::kCompareAndPexpire), "1", key(), token(), ms(params().lease));
    start_renewal(
        env, renew_interval(), [renewal = std::move(renewal)] { return renewal; },
        [](const RedisResult& r) { return replied_int(r, 1); },
        renewal_, RenewalRetry{params().lease, std::min(params().retry, renew_interval())});
  }
  co_return held;
}

Task<bool> WatchdogLock::release(Env& env) {
  stop_renewal(env, renewal_);
  const bool released = co_await TokenLuaLock::release(env);
  co_return released;
}

std::unique_ptr<Lock> make_watchdog(const LockParams& p) { return std::make_unique<WatchdogLock>(p); }

}  // namespace locksim::lock
