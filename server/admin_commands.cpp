// LOCKSIM.* admin commands: the clock (TIME ADVANCE JUMP FREEZE RESUME) and faults on
// the wire (PAUSE DROP DELAY RESTART), for testing real clients against the model.
#include <array>

#include "locksim/server/connection.hpp"
#include "locksim/server/traffic.hpp"
#include "locksim/sim/redis/arguments.hpp"
#include "locksim/sim/redis/command_table.hpp"

namespace locksim::server {

using redis::Command;
using redis::Reply;

namespace {
std::optional<int64_t> milliseconds_arg(const std::string& text, bool allow_negative) {
  int64_t value = 0;
  if (!redis::parse_int64(text, value) || (!allow_negative && value < 0)) return std::nullopt;
  return value;
}

const Reply& not_ms_error() {
  static const Reply error = Reply::error("ERR value is not an integer or out of range");
  return error;
}

// PAUSE and DELAY: a duration as CLIENT PAUSE takes its timeout (getTimeoutFromObjectOrReply):
// refused when negative or when the deadline would not fit the host's clock.
std::optional<Reply> refuse_duration(const std::string& text) {
  int64_t ms = 0;
  if (!redis::parse_int64(text, ms)) return Reply::error("ERR timeout is not an integer or out of range");
  if (ms < 0) return Reply::error("ERR timeout is negative");
  if (ms > kMaxDurationMs) return Reply::error("ERR timeout is out of range");
  return std::nullopt;
}

Reply drop_command(Server::Core& core, Connection& caller, const Command& argv) {
  if (argv.size() == 1 || (argv.size() == 2 && redis::equals_lower(argv[1], "all"))) {
    // Every other connection goes at once; the caller's, after its reply.
    const size_t dropped = core.drop_all_but(caller.id());
    caller.close_after_reply = true;
    return Reply::integer_(static_cast<int64_t>(dropped + 1));
  }
  int64_t id = 0;
  if (argv.size() != 2 || !redis::parse_int64(argv[1], id) || id <= 0)
    return Reply::error("ERR usage: LOCKSIM.DROP [ALL | client-id]");
  if (static_cast<redis::ConnectionId>(id) == caller.id()) {
    caller.close_after_reply = true;
    return Reply::integer_(1);
  }
  return Reply::integer_(core.drop(static_cast<redis::ConnectionId>(id)) ? 1 : 0);
}
}  // namespace

Reply run_admin_command(Server::Core& core, Connection& caller, const Command& argv) {
  char buffer[24];
  std::string_view name;
  redis::to_lower(argv[0], buffer, sizeof buffer, name);
  name.remove_prefix(8);  // "locksim."
  auto need = [&](size_t n) { return argv.size() == n; };
  if (name == "time" && need(1)) return Reply::integer_(core.clock.now_ms());
  if ((name == "advance" || name == "jump") && need(2)) {
    auto ms = milliseconds_arg(argv[1], name == "jump");
    if (!ms) return not_ms_error();
    if (!core.clock.can_shift(*ms)) return Reply::error("ERR the clock would leave its range (1970 to 2262)");
    core.clock.shift(*ms);
    return Reply::integer_(core.clock.now_ms());
  }
  if (name == "freeze" && need(1)) {
    core.clock.freeze();
    return Reply::ok();
  }
  if (name == "resume" && need(1)) {
    core.clock.resume();
    return Reply::ok();
  }
  if (name == "pause" && need(2)) {
    if (auto refused = refuse_duration(argv[1])) return std::move(*refused);
    core.pause_for(*milliseconds_arg(argv[1], false));
    return Reply::ok();
  }
  if (name == "delay" && need(2)) {
    if (auto refused = refuse_duration(argv[1])) return std::move(*refused);
    core.reply_delay_ms = *milliseconds_arg(argv[1], false);
    return Reply::ok();
  }
  if (name == "drop") return drop_command(core, caller, argv);
  if (name == "fault") return run_fault_command(core, argv);
  if (name == "enter" || name == "exit" || name == "write") return run_trial_command(core, caller, argv, name);
  if (name == "restart" && need(1)) {
    core.restart(caller.id());
    caller.close_after_reply = true;  // a restart closes every connection
    return Reply::ok();
  }
  static constexpr std::array kKnown = {"time",  "advance", "jump", "freeze", "resume",
                                        "pause", "delay",   "drop", "restart"};
  for (std::string_view known : kKnown)
    if (name == known) return redis::arity_error("locksim." + std::string(name));
  return redis::unknown_command_error(argv);
}

}  // namespace locksim::server
