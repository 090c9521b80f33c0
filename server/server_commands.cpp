// Server commands that client libraries' suites call and the model has no part in,
// answered as Redis 7.0 answers them on an idle server without persistence: MONITOR
// (a real stream), ROLE, LATENCY, SLOWLOG, LASTSAVE, SAVE, BGSAVE, BGREWRITEAOF,
// READONLY, READWRITE, ACL WHOAMI|USERS; and DEBUG SLEEP, which really stalls.
#include <cmath>

#include "locksim/server/connection.hpp"
#include "locksim/server/frontend.hpp"
#include "locksim/server/traffic.hpp"
#include "locksim/sim/redis/arguments.hpp"

namespace locksim::server {

using redis::Command;
using redis::Reply;

namespace {
Reply unknown_subcommand(const Command& argv, const char* command) {
  return Reply::error("ERR unknown subcommand or wrong number of arguments for '" + argv[1].substr(0, 128) +
                      "'. Try " + command + " HELP.");
}

Reply latency(const Command& argv) {
  if (argv.size() < 2) return redis::arity_error("latency");
  const std::string& sub = argv[1];
  if (redis::equals_lower(sub, "latest") && argv.size() == 2) return Reply::array({});
  if (redis::equals_lower(sub, "history") && argv.size() == 3) return Reply::array({});
  if (redis::equals_lower(sub, "reset")) return Reply::integer_(0);
  if (redis::equals_lower(sub, "histogram")) return Reply::array({});
  if (redis::equals_lower(sub, "graph") && argv.size() == 3)
    return Reply::error("ERR No samples available for event '" + argv[2] + "'");
  if (redis::equals_lower(sub, "doctor") && argv.size() == 2)
    return Reply::bulk(
        "Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. "
        "I honestly think you ought to sleep tonight.\n");
  if (redis::equals_lower(sub, "help") && argv.size() == 2)
    return Reply::array({Reply::status("LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"),
                         Reply::status("DOCTOR"), Reply::status("GRAPH <event>"), Reply::status("HISTORY <event>"),
                         Reply::status("LATEST"), Reply::status("RESET [<event> ...]"),
                         Reply::status("HISTOGRAM [COMMAND ...]"), Reply::status("HELP")});
  return unknown_subcommand(argv, "LATENCY");
}

Reply slowlog(const Command& argv) {
  if (argv.size() < 2) return redis::arity_error("slowlog");
  const std::string& sub = argv[1];
  if (redis::equals_lower(sub, "get") && argv.size() <= 3) {
    int64_t count = 0;
    if (argv.size() == 3 && (!redis::parse_int64(argv[2], count) || count < -1))
      return Reply::error("ERR count should be greater than or equal to -1");
    return Reply::array({});
  }
  if (redis::equals_lower(sub, "len") && argv.size() == 2) return Reply::integer_(0);
  if (redis::equals_lower(sub, "reset") && argv.size() == 2) return Reply::ok();
  return unknown_subcommand(argv, "SLOWLOG");
}

Reply acl(const Command& argv) {
  if (argv.size() < 2) return redis::arity_error("acl");
  if (redis::equals_lower(argv[1], "whoami") && argv.size() == 2) return Reply::bulk("default");
  if (redis::equals_lower(argv[1], "users") && argv.size() == 2) return Reply::array({Reply::bulk("default")});
  return Reply::error("ERR ACL " + argv[1].substr(0, 64) + " is not modelled: only the default user exists");
}

// DEBUG SLEEP <seconds>: Redis blocks its one thread, so every client stalls and the
// caller's OK comes at the end. Wall time: the server pauses as under LOCKSIM.PAUSE;
// manual time: the clock moves on by the sleep instead, and nothing waits.
Reply debug_sleep(Server::Core& core, Connection& conn, const Command& argv) {
  long double seconds = 0;
  if (argv.size() != 3 || !redis::parse_long_double(argv[2], seconds) || !std::isfinite(seconds))
    return Reply::error("ERR value is not a valid float");
  const int64_t ms = seconds <= 0 ? 0 : static_cast<int64_t>(std::min<long double>(seconds * 1000, 1e12L));
  if (ms == 0) return Reply::ok();
  if (ms > kMaxDurationMs) return Reply::error("ERR timeout is out of range");  // as LOCKSIM.PAUSE
  if (core.clock.mode() == TimeMode::Manual) {
    if (!core.clock.can_shift(ms)) return Reply::error("ERR the clock would leave its range (1970 to 2262)");
    core.clock.shift(ms);
    return Reply::ok();
  }
  core.pause_for(ms);
  conn.hold_reply_ms = std::max(conn.hold_reply_ms, ms);
  return Reply::ok();
}
}  // namespace

bool is_server_command(std::string_view name) {
  for (std::string_view ours : {"monitor", "role", "latency", "slowlog", "lastsave", "save", "bgsave", "bgrewriteaof",
                                "readonly", "readwrite", "acl"})
    if (name == ours) return true;
  return false;
}

std::optional<Reply> run_server_command(Server::Core& core, Connection& conn, const Command& argv,
                                        std::string_view name) {
  if (name == "debug") {
    if (argv.size() >= 2 && redis::equals_lower(argv[1], "sleep")) return debug_sleep(core, conn, argv);
    return std::nullopt;
  }
  if (name == "monitor") {
    if (argv.size() != 1) return redis::arity_error("monitor");
    if (!conn.monitor) core.traffic.monitors.push_back(conn.id());
    conn.monitor = true;
    return Reply::ok();
  }
  if (name == "role") {
    if (argv.size() != 1) return redis::arity_error("role");
    return Reply::array({Reply::bulk("master"), Reply::integer_(0), Reply::array({})});
  }
  if (name == "latency") return latency(argv);
  if (name == "slowlog") return slowlog(argv);
  if (name == "acl") return acl(argv);
  if (name == "lastsave") return Reply::integer_(core.traffic.started_ms / 1000);
  if (name == "save") return Reply::ok();
  if (name == "bgsave") {
    if (argv.size() > 2 || (argv.size() == 2 && !redis::equals_lower(argv[1], "schedule")))
      return Reply::error("ERR syntax error");
    return Reply::status("Background saving started");
  }
  if (name == "bgrewriteaof") return Reply::status("Background append only file rewriting started");
  if (name == "readonly" || name == "readwrite") return Reply::error("ERR This instance has cluster support disabled");
  return std::nullopt;
}

}  // namespace locksim::server
