// reentrant ("Redis: ways to build a distributed lock", and 4.3 of "The
// evolution of Redis distributed locks"; Redisson's RLock; F16): a hash holding a count
// per owner, taken and released by Lua scripts, renewed by the watchdog while
// held. The owner may acquire again while holding (F16: token-lua deadlocks on
// itself there) and must release as many times; the key goes at count zero;
// another owner's release is refused.
#include <fmt/format.h>

#include <algorithm>

#include "locksim/lock/algorithms.hpp"
#include "locksim/lock/renewal.hpp"
#include "locksim/lock/scripts.hpp"

namespace locksim::lock {
namespace {

class ReentrantLock final : public SpinLock {
 public:
  using SpinLock::SpinLock;

  Task<bool> acquire(Env& env) override {
    if (owner_.empty()) owner_ = new_token(env);  // Redisson: connection manager id + thread id
    const bool held = co_await SpinLock::acquire(env);
    if (!held) co_return false;
    if (++holds_ == 1) renewal_.lost = false;  // a new hold: its lease is fresh
    if (holds_ == 1 && params().explicit_lease.ns == 0) {
      const Duration every = params().renew_interval.ns > 0 ? params().renew_interval : params().lease / 3;
      Command renewal = cmd("EVAL", std::string(scripts::kReentrantRenew), "1", key(), ms(params().lease), owner_);
      start_renewal(
          env, every, [renewal] { return renewal; }, [](const RedisResult& r) { return replied_int(r, 1); }, renewal_,
          RenewalRetry{params().lease, std::min(params().retry, every)});
    }
    co_return true;
  }

  Task<bool> release(Env& env) override {
    auto r = co_await env.redis(
        cmd("EVAL", std::string(scripts::kReentrantUnlock), "2", key(), channel(), "0", ms(lease()), owner_),
        Purpose::Release);
    // As Redisson's unlockAsync: the local hold count (and with it the renewal)
    // goes down whatever the reply was — a lost reply or a refusal included.
    if (holds_ > 0) --holds_;
    if (r.ok() && r.value.type == Reply::Type::Integer && r.value.integer == 1) holds_ = 0;
    if (holds_ == 0) stop_renewal(env, renewal_);
    co_return r.ok() && r.value.type == Reply::Type::Integer;  // nil: not the owner
  }

  bool still_held() const override { return !renewal_.lost; }

 protected:
  Task<bool> try_acquire(Env& env) override {
    auto r = co_await env.redis(cmd("EVAL", std::string(scripts::kReentrantLock), "1", key(), ms(lease()), owner_),
                                Purpose::Acquire);
    co_return replied_nil(r);  // nil: acquired; a number: the PTTL of someone else's hold
  }

 private:
  Duration lease() const { return params().explicit_lease.ns > 0 ? params().explicit_lease : params().lease; }
  std::string channel() const { return fmt::format("redisson_lock__channel:{{{}}}", key()); }

  std::string owner_;
  int holds_ = 0;
  RenewalState renewal_;
};

}  // namespace
std::unique_ptr<Lock> make_reentrant(const LockParams& p) { return std::make_unique<ReentrantLock>(p); }
}  // namespace locksim::lock
