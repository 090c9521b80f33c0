// fenced (beyond the posts: the well-known critique of Redis locks; F19): the
// watchdog lock plus a fencing token taken with INCR at acquire. The protected
// resource remembers the highest token it has seen and rejects lower ones, so
// a client whose lease ended during a pause (F13) or a long critical section
// (F10) cannot overwrite a newer holder's work: F19, fenced-writes holds
// while mutual-exclusion fails.
#include "locksim/lock/algorithms.hpp"
#include "locksim/lock/watchdog.hpp"

namespace locksim::lock {
namespace {

class FencedLock final : public WatchdogLock {
 public:
  using WatchdogLock::WatchdogLock;
  int64_t fence() const override { return fence_; }

 protected:
  Task<bool> try_acquire(Env& env) override {
    const bool held = co_await WatchdogLock::try_acquire(env);
    if (!held) co_return false;
    auto r = co_await env.redis(cmd("INCR", key() + ":fence"), Purpose::Acquire);
    if (!r.ok() || r.value.type != Reply::Type::Integer) {
      // No token, no safe writes: give the lock back and try again later.
      co_await TokenLuaLock::release(env);
      co_return false;
    }
    fence_ = r.value.integer;
    co_return true;
  }

 private:
  int64_t fence_ = -1;
};

}  // namespace
std::unique_ptr<Lock> make_fenced(const LockParams& p) { return std::make_unique<FencedLock>(p); }
}  // namespace locksim::lock
