#include "locksim/lock/renewal.hpp"

namespace locksim::lock {

Task<void> renew_until_refused(Env& env, Duration every, RenewalCommand renewal,
                               std::function<bool(const RedisResult&)> renewed, RenewalState& state,
                               RenewalRetry retry) {
  // The lease the acquire armed ends no sooner than a lease from now, by this clock
  // (monotonic: a wall clock stepped back would keep it retrying past the lease).
  Instant lease_end = env.monotonic_now(ClockUse::Renewal) + retry.lease;
  Duration wait = every;
  for (;;) {
    co_await env.sleep(wait);
    const Instant sent = env.monotonic_now(ClockUse::Renewal);
    Command command = renewal();
    auto r = co_await env.redis(std::move(command), Purpose::Renew);
    const bool accepted = renewed(r);
    if (accepted) {
      env.record_renewal(Step::Renewed, 0, sent);
      lease_end = sent + retry.lease;  // it ran after it was sent: the new lease ends no sooner
      wait = every;
      continue;
    }
    // Unanswered (a timeout, a lost connection): the lease may still be ours, so
    // try again until its own end. A refusal says it is someone else's: stop.
    if (!r.ok() && retry.lease.ns > 0 && env.monotonic_now(ClockUse::Renewal) + retry.every < lease_end) {
      wait = retry.every;
      continue;
    }
    env.record_renewal(Step::RenewFailed, r.ok() ? 0 : static_cast<int64_t>(r.status), sent);
    state.lost = true;
    state.renewing = false;
    co_return;
  }
}

void start_renewal(Env& env, Duration every, RenewalCommand renewal, std::function<bool(const RedisResult&)> renewed,
                   RenewalState& state, RenewalRetry retry) {
  stop_renewal(env, state);
  state.lost = false;
  state.task = env.spawn(renew_until_refused(env, every, std::move(renewal), std::move(renewed), state, retry));
  state.renewing = true;
}

void stop_renewal(Env& env, RenewalState& state) {
  if (state.renewing) env.cancel(state.task);
  state.renewing = false;
}

}  // namespace locksim::lock
