#include "locksim/server/script_watch.hpp"

#include <string>

#include "locksim/server/core.hpp"

namespace locksim::server {

void ScriptWatch::script_started() { started_ = std::chrono::steady_clock::now(); }

bool ScriptWatch::script_progress(const redis::RunningScript& script) {
  if (core_.stopped) return true;  // SHUTDOWN NOSAVE (or a signal): the script ends with the server
  if (!core_.script_busy) {
    const auto elapsed = std::chrono::steady_clock::now() - started_;
    if (elapsed < std::chrono::milliseconds(script.busy_reply_threshold_ms)) return false;
    core_.script_busy = true;
    core_.log("Slow script detected: still in execution after " +
              std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count()) +
              " milliseconds. You can try killing the script using the " +
              (script.is_eval ? "SCRIPT KILL" : "FUNCTION KILL") + " command. Script name is: " +
              std::string(script.name) + ".");
  }
  // Redis processEventsWhileBlocked: whatever is ready now (reads, writes, accepts, timers),
  // without waiting. The model refuses what may not run during the script.
  core_.io.poll();
  return core_.stopped;
}

void ScriptWatch::script_ended() { core_.script_busy = false; }

}  // namespace locksim::server
