#include "lock/watchdog.hpp"

#include "lock/algorithms.hpp"
#include "lock/scripts.hpp"

namespace locksim::lock {

Duration WatchdogLock::initial_lease() const {
  return params().explicit_lease.ns > 0 ? params().explicit_lease : params().lease;
}

Duration WatchdogLock::renew_interval() const {
  return params().renew_interval.ns > 0 ? params().renew_interval : params().lease / 3;
}

Task<bool> WatchdogLock::acquire(Env& env) {
  lost_ = false;
  bool held = co_await TokenLuaLock::acquire(env);
  if (held && renews()) {
    renewal_ = env.spawn(renew(env));
    renewing_ = true;
  }
  co_return held;
}

Task<bool> WatchdogLock::release(Env& env) {
  stop_renewal(env);
  const bool released = co_await TokenLuaLock::release(env);
  co_return released;
}

void WatchdogLock::stop_renewal(Env& env) {
  if (renewing_) env.cancel(renewal_);
  renewing_ = false;
}

Task<void> WatchdogLock::renew(Env& env) {
  for (;;) {
    co_await env.sleep(renew_interval());
    auto r = co_await env.redis(cmd("EVAL", std::string(scripts::kCompareAndPexpire), "1", key(), token(), ms(params().lease)),
                                Purpose::Renew);
    if (!replied_int(r, 1)) {
      // Not ours any more, or no answer: Redisson stops renewing here.
      env.record(Step::RenewFailed, r.ok() ? 0 : static_cast<int64_t>(r.status));
      lost_ = true;
      renewing_ = false;
      co_return;
    }
    env.record(Step::Renewed);
  }
}

std::unique_ptr<Lock> make_watchdog(const LockParams& p) { return std::make_unique<WatchdogLock>(p); }

}  // namespace locksim::lock
