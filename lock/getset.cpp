// getset (sections 4-5 of "Ways to implement a Redis distributed lock", the
// MySQL-and-Redis post, scheme 2 of "Redis: ways to build a distributed lock"): the value is the
// holder's expiry timestamp on its own clock. A waiter that finds it past
// swaps in its own with GETSET and has the lock only if the old value is the
// one it read — so of two waiters only one wins. Shows F04 (a client whose
// clock is ahead deems a live lock expired), F05 (work outlasting the
// timestamp; the late holder's unconditional DEL removes the next holder's
// lock) and F06 (the loser's GETSET moves the winner's expiry: benign drift).
// Unlock flavours: DEL unconditionally ("Ways to implement ...") or, with
// release-if-unexpired, only while one's own expiry has not passed (scheme 2
// of "Redis: ways to build a distributed lock").
#include "locksim/lock/algorithms.hpp"
#include "locksim/lock/redis_node.hpp"

namespace locksim::lock {
namespace {

class Getset final : public SpinLock {
 public:
  using SpinLock::SpinLock;
  Task<bool> release(Env& env) override {
    if (params().release_if_unexpired && unix_ms(env.local_now(ClockUse::Validity)) > my_expiry_) co_return false;
    auto r = co_await env.redis(cmd("DEL", key()), Purpose::Release);
    co_return r.ok();
  }

 protected:
  int64_t new_expiry(Env& env) const { return unix_ms(env.local_now(ClockUse::Validity)) + params().lease.ns / 1'000'000 + 1; }

  Task<bool> try_acquire(Env& env) override {
    const int64_t expiry = new_expiry(env);
    auto r = co_await env.redis(cmd("SETNX", key(), std::to_string(expiry)), Purpose::Acquire);
    if (replied_int(r, 1)) {
      my_expiry_ = expiry;
      env.hold_until(from_unix_ms(expiry));
      co_return true;
    }
    auto current = co_await env.redis(cmd("GET", key()), Purpose::Acquire);
    const bool expired = replied_timestamp_passed(current, unix_ms(env.local_now(ClockUse::Validity)));
    if (!expired) co_return false;
    // Both posts swap in the expiry computed before the SETNX (not a fresh one).
    auto old = co_await env.redis(cmd("GETSET", key(), std::to_string(expiry)), Purpose::Acquire);
    // Won only if nobody swapped between our GET and our GETSET.
    if (old.ok() && old.value.type == Reply::Type::Bulk && old.value.str == current.value.str) {
      my_expiry_ = expiry;
      env.hold_until(from_unix_ms(expiry));
      co_return true;
    }
    co_return false;
  }

 private:
  int64_t my_expiry_ = 0;
};

}  // namespace
std::unique_ptr<Lock> make_getset(const LockParams& p) { return std::make_unique<Getset>(p); }
}  // namespace locksim::lock
