// pubsub-wait: Redisson's way of waiting, on a plain token lock. SET key
// <token> NX PX lease; a loser subscribes to the lock's channel (on its
// subscriber connection), tries once more (the unlock may have come before
// the subscription), then waits for the unlock message — or for the holder's
// remaining TTL (PTTL), after which the key expires by itself — and tries
// again. The release is one Lua script: compare-and-delete, then PUBLISH.
// A message lost with its connection (a cut, a reset) costs the waiter the
// rest of the TTL, never the lock: the TTL bounds every wait.
#include <algorithm>
#include <vector>

#include "locksim/lock/algorithms.hpp"
#include "locksim/lock/scripts.hpp"

namespace locksim::lock {

namespace {

// Redisson unsubscribes without waiting for the reply: the new holder goes on at once.
Task<void> unsubscribe(Env& env, std::string channel) {
  auto r = co_await env.subscriber(0, cmd("UNSUBSCRIBE", channel), Purpose::Acquire);
  (void)r;  // a connection that lost it has no subscription left anyway
}

class PubSubWaitLock final : public Lock {
 public:
  using Lock::Lock;
  // The unsubscribe tasks use the Env, which goes with this incarnation
  // (cancelling one that has ended does nothing).
  ~PubSubWaitLock() override {
    for (TaskId task : unsubscribing_) env_->cancel(task);
  }
  Task<bool> acquire(Env& env) override;
  Task<bool> release(Env& env) override;

 private:
  std::string channel() const { return "unlock:" + key(); }
  Task<bool> try_set(Env& env);
  Task<Duration> time_to_wait(Env& env, Duration left);
  Task<bool> subscribe(Env& env);

  std::string token_;
  Env* env_ = nullptr;  // set when an unsubscribe task was spawned
  std::vector<TaskId> unsubscribing_;
};

Task<bool> PubSubWaitLock::try_set(Env& env) {
  std::string token = new_token(env);  // the hold's only if this attempt wins
  auto r = co_await env.redis(cmd("SET", key(), token, "NX", "PX", ms(params().lease)), Purpose::Acquire);
  const bool took = replied_ok(r);
  if (took) token_ = std::move(token);
  co_return took;
}

// How long to wait for the unlock message: the holder's remaining TTL (at
// least 1 ms), at most what is left of the wait limit; none if the key is gone
// already, or if the PTTL timed out (that was a wait already); the retry
// interval when the TTL is otherwise unknown (a lost connection, no expiry).
Task<Duration> PubSubWaitLock::time_to_wait(Env& env, Duration left) {
  auto r = co_await env.redis(cmd("PTTL", key()), Purpose::Acquire);
  Duration wait = params().retry;
  if (r.status == sim::CallStatus::TimedOut) wait = Duration::zero();
  if (r.ok() && r.value.type == Reply::Type::Integer && r.value.integer == -2) wait = Duration::zero();
  if (r.ok() && r.value.type == Reply::Type::Integer && r.value.integer >= 0)
    wait = Duration{std::max<int64_t>(r.value.integer, 1) * 1'000'000};
  co_return std::min(wait, left);
}

Task<bool> PubSubWaitLock::subscribe(Env& env) {
  auto r = co_await env.subscriber(0, cmd("SUBSCRIBE", channel()), Purpose::Acquire);
  co_return r.ok() && !r.value.is_error();
}

Task<bool> PubSubWaitLock::acquire(Env& env) {
  const Instant deadline = env.monotonic_now(ClockUse::Pacing) + params().wait_limit;  // a wall clock's jump would move it
  const bool first = co_await try_set(env);
  if (first) co_return true;  // uncontended: no subscription at all
  bool held = false, subscribed = false, sent_subscribe = false;
  while (env.monotonic_now(ClockUse::Pacing) < deadline) {
    if (!subscribed) {
      subscribed = co_await subscribe(env);
      sent_subscribe = true;
    }
    held = co_await try_set(env);
    if (held) break;
    const Duration left = deadline - env.monotonic_now(ClockUse::Pacing);
    if (left <= Duration::zero()) break;
    const Duration wait = co_await time_to_wait(env, left);
    if (wait == Duration::zero()) continue;
    if (!subscribed) {  // no subscription (the subscriber link failed): poll at the TTL
      co_await env.sleep(wait);
      continue;
    }
    // Any message, or none within the wait: try again. A reset replaced the
    // connection (its read was lost, or it answers that nothing is subscribed): subscribe again.
    auto m = co_await env.next_pushed(0, wait);
    if (m.status == sim::CallStatus::ConnectionLost || (m.ok() && m.value.is_error())) subscribed = false;
  }
  if (sent_subscribe) {
    // An earlier one still in flight goes first (one connection, in order): it is left to finish.
    env_ = &env;
    unsubscribing_.push_back(env.spawn(unsubscribe(env, channel())));
  }
  co_return held;
}

Task<bool> PubSubWaitLock::release(Env& env) {
  auto r = co_await env.redis(
      cmd("EVAL", std::string(scripts::kCompareDeleteAndPublish), "2", key(), channel(), token_), Purpose::Release);
  co_return replied_int(r, 1);
}

}  // namespace

std::unique_ptr<Lock> make_pubsub_wait(const LockParams& p) { return std::make_unique<PubSubWaitLock>(p); }

}  // namespace locksim::lock
