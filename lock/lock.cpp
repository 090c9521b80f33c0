#include "locksim/lock/lock.hpp"

#include <fmt/format.h>

namespace locksim::lock {

std::string Lock::new_token(Env& env) { return fmt::format("{}:{:016x}", env.client_name(), env.rng().next()); }

Task<bool> SpinLock::acquire(Env& env) {
  const Instant deadline = env.local_now() + params().wait_limit;
  for (;;) {
    const bool took = co_await try_acquire(env);
    if (took) co_return true;
    if (env.local_now() >= deadline) co_return false;
    Duration wait = params().retry;
    if (params().retry_jitter.ns > 0) wait += env.rng().uniform(Duration::zero(), params().retry_jitter);
    co_await env.sleep(wait);
  }
}

}  // namespace locksim::lock
