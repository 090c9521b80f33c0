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
  // Two digits a byte, from the low byte up (the same digits as one a nibble).
  static constexpr char kDigits[] =
      "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f"
      "303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
      "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f"
      "909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
      "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeef"
      "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
  char hex[16];
  for (int i = 14; i >= 0; i -= 2, bits >>= 8) {
    hex[i] = kDigits[2 * (bits & 0xff)];
    hex[i + 1] = kDigits[2 * (bits & 0xff) + 1];
  }
  token.append(hex, sizeof hex);
  return token;
}

Task<bool> SpinLock::acquire(Env& env) {
  // Timed on the monotonic clock: a wall clock stepped back would stretch the wait.
  const Instant deadline = env.monotonic_now(ClockUse::Pacing) + params().wait_limit;
  for (;;) {
    const bool took = co_await try_acquire(env);
    if (took) co_return true;
    if (env.monotonic_now(ClockUse::Pacing) >= deadline) co_return false;
    Duration wait = params().retry;
    if (params().retry_jitter.ns > 0) wait += env.rng().uniform(Duration::zero(), params().retry_jitter);
    co_await env.sleep(wait);
  }
}

}  // namespace locksim::lock
