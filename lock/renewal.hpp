#pragma once
// The watchdog's renewal loop (Redisson's scheduleExpirationRenewal): every
// interval, send the renewal command; at the first reply that is not a
// renewal — the lock is someone else's now, or no answer came — record it,
// mark the lease as possibly lost and stop, as Redisson does.
#include <functional>

#include "locksim/lock/env.hpp"

namespace locksim::lock {

struct RenewalState {
  bool renewing = false;
  bool lost = false;
  TaskId task = 0;
};

// Builds the renewal command at each send (placeholders such as a variant's
// {now_ms} are then fresh).
using RenewalCommand = std::function<Command()>;

// Runs until refused (or cancelled with its process or by release). It keeps
// references to `env` and `state`: the lock that owns them must stop it
// (release does) before they go, or die with it in a crash.
Task<void> renew_until_refused(Env& env, Duration every, RenewalCommand renewal,
                               std::function<bool(const RedisResult&)> renewed, RenewalState& state);

// Starts it as a second task of the client's process, stopping one still
// running from an earlier hold.
void start_renewal(Env& env, Duration every, RenewalCommand renewal, std::function<bool(const RedisResult&)> renewed,
                   RenewalState& state);
void stop_renewal(Env& env, RenewalState& state);

}  // namespace locksim::lock
