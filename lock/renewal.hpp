#pragma once
// The watchdog's renewal loop (Redisson's scheduleExpirationRenewal): every
// interval, send the renewal command. A refusal (the lock is someone else's now)
// stops it at once. A renewal that got no answer (a timeout, a lost connection)
// is tried again every `retry.every` until the lease's own end: a cut or a slow
// link shorter than what is left of the lease does not lose the lock. (Redisson
// stops at the first failed renewal; a cut of 167 ms then lost a 1 s lease.)
// Stopping is recorded as RenewFailed and marks the lease as possibly lost.
#include <functional>

#include "locksim/lock/env.hpp"

namespace locksim::lock {

struct RenewalState {
  bool renewing = false;
  bool lost = false;
  TaskId task = 0;
};

// How an unanswered renewal is retried: every `every` while `lease` (the lease each
// renewal arms) may still be running; a zero lease: never (stop at once).
struct RenewalRetry {
  Duration lease{};
  Duration every{};
};

// Builds the renewal command at each send (placeholders such as a variant's
// {now_ms} are then fresh).
using RenewalCommand = std::function<Command()>;

// Runs until refused (or cancelled with its process or by release). It keeps
// references to `env` and `state`: the lock that owns them must stop it
// (release does) before they go, or die with it in a crash.
Task<void> renew_until_refused(Env& env, Duration every, RenewalCommand renewal,
                               std::function<bool(const RedisResult&)> renewed, RenewalState& state,
                               RenewalRetry retry = {});

// Starts it as a second task of the client's process, stopping one still
// running from an earlier hold.
void start_renewal(Env& env, Duration every, RenewalCommand renewal, std::function<bool(const RedisResult&)> renewed,
                   RenewalState& state, RenewalRetry retry = {});
void stop_renewal(Env& env, RenewalState& state);

}  // namespace locksim::lock
