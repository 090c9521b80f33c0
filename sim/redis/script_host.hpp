#pragma once
// What a host that serves other clients (a network front-end) learns of a running
// script, and how it can stop one: Redis's scriptInterrupt. The model has no clock, so
// the host decides when a script is "busy" (over busy-reply-threshold, in its own time)
// and then serves its other connections from inside the script (Redis's
// processEventsWhileBlocked). Their commands reach Server::execute as usual, which
// answers -BUSY to all but the allow-busy ones (MULTI, DISCARD, WATCH, UNWATCH,
// SCRIPT KILL, FUNCTION KILL); SCRIPT KILL marks the script killed and it stops with
// Redis's error at its next instruction.
//
// Without a host (the simulator, the console) nothing of this happens: a script runs
// to its end or to its instruction budget, deterministically.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace locksim::redis {

// Instructions between two calls of ScriptHost::script_progress (Redis's hook runs every 100,000).
inline constexpr uint64_t kScriptProgressInstructions = 100'000;

struct RunningScript {
  bool is_eval = true;                    // EVAL/EVALSHA (SCRIPT KILL); false: FCALL (FUNCTION KILL)
  bool wrote = false;                     // it called a write command: SCRIPT KILL no longer stops it
  int64_t busy_reply_threshold_ms = 5000;  // CONFIG busy-reply-threshold (lua-time-limit)
  std::string_view name;                  // the script's SHA-1 or the function's name
  const std::vector<std::string>* command = nullptr;  // the caller's EVAL or FCALL (FUNCTION STATS)
  int64_t started_ms = 0;                 // the caller's "now" when it started (FUNCTION STATS)
};

class ScriptHost {
 public:
  virtual void script_started() = 0;
  // Called from inside the running script every kScriptProgressInstructions. The host may
  // run other connections' commands through Server::execute here (never the caller's,
  // never Server::advance, disconnect or flushall). Returns true to stop the
  // script whatever it wrote (SHUTDOWN NOSAVE); a SCRIPT KILL needs no return value.
  virtual bool script_progress(const RunningScript& script) = 0;
  virtual void script_ended() = 0;

 protected:
  ~ScriptHost() = default;
};

}  // namespace locksim::redis
