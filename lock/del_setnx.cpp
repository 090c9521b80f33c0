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
  std::string expiry(Env& env) const {
    return std::to_string(unix_ms(env.local_now()) + params().lease.ns / 1'000'000 + 1);
  }

  Task<bool> try_acquire(Env& env) override {
    auto r = co_await env.redis(cmd("SETNX", key(), expiry(env)), Purpose::Acquire);
    if (replied_int(r, 1)) co_return true;
    auto current = co_await env.redis(cmd("GET", key()), Purpose::Acquire);
    const bool expired = replied_timestamp_passed(current, unix_ms(env.local_now()));
    if (!expired) co_return false;
    // Expired: remove it and try again. Nothing stops another waiter doing the same.
    co_await env.redis(cmd("DEL", key()), Purpose::Acquire);
    auto again = co_await env.redis(cmd("SETNX", key(), expiry(env)), Purpose::Acquire);
    co_return replied_int(again, 1);
  }
};

}  // namespace
std::unique_ptr<Lock> make_del_setnx(const LockParams& p) { return std::make_unique<DelSetnx>(p); }
}  // namespace locksim::lock
