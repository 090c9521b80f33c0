// Connection and server commands: PING ECHO TIME PUBLISH.
#include "sim/redis/arguments.hpp"
#include "sim/redis/command_table.hpp"

namespace locksim::redis {

Reply cmd_ping(ExecContext&, const Command& argv) {
  if (argv.size() > 2) return arity_error("ping");
  return argv.size() == 2 ? Reply::bulk(argv[1]) : Reply::status("PONG");
}

Reply cmd_echo(ExecContext&, const Command& argv) { return Reply::bulk(argv[1]); }

// The model's clock, not the host's: seconds and microseconds of now_ms.
Reply cmd_time(ExecContext& ctx, const Command&) {
  int64_t seconds = ctx.now_ms / 1000;
  int64_t millis = ctx.now_ms % 1000;
  if (millis < 0) {
    millis += 1000;
    --seconds;
  }
  return Reply::array({Reply::bulk(std::to_string(seconds)), Reply::bulk(std::to_string(millis * 1000))});
}

// No subscribers exist in the model, so nobody receives the message.
Reply cmd_publish(ExecContext&, const Command&) { return Reply::integer_(0); }

}  // namespace locksim::redis
