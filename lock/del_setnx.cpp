// del-setnx (section 4 of "Ways to implement a Redis distributed lock": the
// race it warns about; F03): the value is
// the holder's expiry timestamp on its own clock. A waiter that finds it past
// DELetes the key and SETNXes again. Shows F03: two waiters both see the
// expired value; B deletes and takes it; C's DEL then removes B's fresh lock
// and C takes it too. Fixed by getset.
#include "locksim/lock/algorithms.hpp"
#include "locksim/lock/del_release.hpp"
#include "locksim/lock/redis_node.hpp"

namespace locksim::lock {
namespace {

class DelSetnx final : public DelReleaseLock {
 public:
  using DelReleaseLock::DelReleaseLock;

 protected:
  int64_t expiry(Env& env) const { return unix_ms(env.local_now(ClockUse::Validity)) + params().lease.ns / 1'000'000 + 1; }

  Task<bool> try_acquire(Env& env) override {
    const int64_t first = expiry(env);
    auto r = co_await env.redis(cmd("SETNX", key(), std::to_string(first)), Purpose::Acquire);
    if (replied_int(r, 1)) {
      env.hold_until(from_unix_ms(first));
      co_return true;
    }
    auto current = co_await env.redis(cmd("GET", key()), Purpose::Acquire);
    const bool expired = replied_timestamp_passed(current, unix_ms(env.local_now(ClockUse::Validity)));
    if (!expired) co_return false;
    // Expired: remove it and try again. Nothing stops another waiter doing the same.
    co_await env.redis(cmd("DEL", key()), Purpose::Acquire);
    const int64_t second = expiry(env);
    auto again = co_await env.redis(cmd("SETNX", key(), std::to_string(second)), Purpose::Acquire);
    if (!replied_int(again, 1)) co_return false;
    env.hold_until(from_unix_ms(second));
    co_return true;
  }
};

}  // namespace
std::unique_ptr<Lock> make_del_setnx(const LockParams& p) { return std::make_unique<DelSetnx>(p); }
}  // namespace locksim::lock
