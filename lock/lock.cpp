#include "locksim/lock/lock.hpp"

#include <cstdint>
#include <string>

namespace locksim::lock {

// "A:" and 16 hex digits, written by hand: fmt's parsing was 4 % of a lock simulation.
std::string Lock::new_token(Env& env) {
  uint64_t bits = env.rng().next();
  std::string token;
  token.reserve(env.client_name().size() + 17);  // one allocation: the name, ':' and 16 hex digits
  token += env.client_name();
  token += ':';
  char hex[16];
  for (int i = 15; i >= 0; --i, bits >>= 4) hex[i] = "0123456789abcdef"[bits & 15];
  token.append(hex, sizeof hex);
  return token;
}

Task<bool> SpinLock::acquire(Env& env) {
  // Timed on the monotonic clock: a wall clock stepped back would stretch the wait.
  const Instant deadline = env.monotonic_now() + params().wait_limit;
  for (;;) {
    const bool took = co_await try_acquire(env);
    if (took) co_return true;
    if (env.monotonic_now() >= deadline) co_return false;
    Duration wait = params().retry;
    if (params().retry_jitter.ns > 0) wait += env.rng().uniform(Duration::zero(), params().retry_jitter);
    co_await env.sleep(wait);
  }
}

}  // namespace locksim::lock
