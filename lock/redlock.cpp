// redlock ("Redis: ways to build a distributed lock"; the "red lock" of 4.3
// in "The evolution of Redis distributed locks"; F18): the same SET NX PX on N
// independent masters, one after another; the lock is held if a majority
// granted it within its validity time (lease - elapsed - clock drift), and is
// released everywhere otherwise. One master failing is survivable; shows F18:
// a master that restarts without persistence (or whose clock jumps) forgets
// its part of A's majority, and B wins a majority of its own.
#include "locksim/lock/algorithms.hpp"
#include "locksim/lock/scripts.hpp"

namespace locksim::lock {
namespace {

class Redlock final : public SpinLock {
 public:
  using SpinLock::SpinLock;

  Task<bool> release(Env& env) override {
    uint32_t released = 0;
    for (uint32_t i = 0; i < env.redis_servers(); ++i) {
      auto r = co_await env.redis_on(i, compare_and_delete(key(), token_), Purpose::Release);
      if (replied_int(r, 1)) ++released;
    }
    co_return released > 0;
  }

 protected:
  Task<bool> try_acquire(Env& env) override {
    const uint32_t masters = env.redis_servers();
    const std::string token = new_token(env);
    const Instant start = env.monotonic_now(ClockUse::Validity);  // the spec's monotonic time: a jump back inflates no validity
    uint32_t granted = 0;
    for (uint32_t i = 0; i < masters; ++i) {
      auto r = co_await env.redis_on(i, cmd("SET", key(), token, "NX", "PX", ms(params().lease)), Purpose::Acquire);
      if (replied_ok(r)) ++granted;
    }
    // The reference algorithm's allowance for clock drift: 1% of the lease + 2 ms.
    const Duration drift = params().lease / 100 + Duration{2'000'000};
    const Duration validity = params().lease - (env.monotonic_now(ClockUse::Validity) - start) - drift;
    if (granted >= masters / 2 + 1 && validity.ns > 0) {
      token_ = token;
      co_return true;
    }
    // No majority in time: give back what was granted.
    for (uint32_t i = 0; i < masters; ++i) {
      co_await env.redis_on(i, compare_and_delete(key(), token), Purpose::Acquire);
    }
    co_return false;
  }

 private:
  std::string token_;
};

}  // namespace
std::unique_ptr<Lock> make_redlock(const LockParams& p) { return std::make_unique<Redlock>(p); }
}  // namespace locksim::lock
