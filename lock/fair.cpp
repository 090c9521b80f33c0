// fair (4.3 of "The evolution of Redis distributed locks"; Redisson's fair
// lock; F20): waiters queue in
// ticket order and the lock goes to the oldest live waiter, instead of to
// whoever retries first (F20's starvation). A waiter keeps a heartbeat key
// while it waits; a vanished waiter's ticket is skipped. Released as token-lua.
#include <algorithm>

#include "locksim/lock/algorithms.hpp"
#include "locksim/lock/scripts.hpp"

namespace locksim::lock {
namespace {

class FairLock final : public Lock {
 public:
  using Lock::Lock;

  Task<bool> acquire(Env& env) override {
    const Instant deadline = env.monotonic_now(ClockUse::Pacing) + params().wait_limit;  // a wall clock's jump would move it
    token_ = new_token(env);
    int64_t ticket = -1;
    for (;;) {
      if (ticket < 0) {
        auto t = co_await env.redis(cmd("EVAL", std::string(scripts::kFairTicket), "2", key() + ":tickets",
                                        key() + ":waiter:", ms(heartbeat()), token_),
                                    Purpose::Acquire);
        if (t.ok() && t.value.type == Reply::Type::Integer) ticket = t.value.integer;
      }
      if (ticket >= 0) {
        auto r = co_await env.redis(cmd("EVAL", std::string(scripts::kFairAcquire), "4", key(), key() + ":serving",
                                        key() + ":waiter:", key() + ":tickets", std::to_string(ticket), token_,
                                        ms(params().lease), ms(heartbeat())),
                                    Purpose::Acquire);
        if (replied_int(r, 1)) co_return true;
        if (replied_int(r, -1)) ticket = -1;  // the queue forgot or passed it: queue again
      }
      if (env.monotonic_now(ClockUse::Pacing) >= deadline) {
        if (ticket >= 0)  // only its own heartbeat: after a restart the number may be someone else's
          co_await env.redis(compare_and_delete(key() + ":waiter:" + std::to_string(ticket), token_), Purpose::Acquire);
        co_return false;
      }
      Duration wait = params().retry;
      if (params().retry_jitter.ns > 0) wait += env.rng().uniform(Duration::zero(), params().retry_jitter);
      co_await env.sleep(wait);
    }
  }

  Task<bool> release(Env& env) override {
    auto r = co_await env.redis(compare_and_delete(key(), token_), Purpose::Release);
    co_return replied_int(r, 1);
  }

 private:
  // How long a waiter that stops retrying keeps its place (Redisson: 5 s):
  // longer than two attempts apart, each a retry interval plus a call that
  // may take up to its timeout, so a waiter still retrying is never skipped.
  Duration heartbeat() const {
    return std::max({params().retry * 5, (params().retry + params().call_timeout) * 2, Duration{500'000'000}});
  }
  std::string token_;
};

}  // namespace
std::unique_ptr<Lock> make_fair(const LockParams& p) { return std::make_unique<FairLock>(p); }
}  // namespace locksim::lock
