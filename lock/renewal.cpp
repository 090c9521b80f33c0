#include "locksim/lock/renewal.hpp"

namespace locksim::lock {

Task<void> renew_until_refused(Env& env, Duration every, RenewalCommand renewal,
                               std::function<bool(const RedisResult&)> renewed, RenewalState& state) {
  for (;;) {
    co_await env.sleep(every);
    Command command = renewal();
    auto r = co_await env.redis(std::move(command), Purpose::Renew);
    const bool accepted = renewed(r);
    if (!accepted) {
      env.record(Step::RenewFailed, r.ok() ? 0 : static_cast<int64_t>(r.status));
      state.lost = true;
      state.renewing = false;
      co_return;
    }
    env.record(Step::Renewed);
  }
}

void start_renewal(Env& env, Duration every, RenewalCommand renewal, std::function<bool(const RedisResult&)> renewed,
                   RenewalState& state) {
  stop_renewal(env, state);
  state.lost = false;
  state.task = env.spawn(renew_until_refused(env, every, std::move(renewal), std::move(renewed), state));
  state.renewing = true;
}

void stop_renewal(Env& env, RenewalState& state) {
  if (state.renewing) env.cancel(state.task);
  state.renewing = false;
}

}  // namespace locksim::lock
