// Server commands that client libraries' suites call and the model has no part in,
// answered as Redis 7.0 answers them on an idle standalone server without persistence:
// MONITOR (a real stream), ROLE, LATENCY, SLOWLOG (a real slow log: slowlog.hpp),
// LASTSAVE, SAVE, BGSAVE, BGREWRITEAOF, READONLY, READWRITE, CLUSTER, ASKING, MODULE,
// REPLICAOF NO ONE, LOLWUT, ACL WHOAMI|USERS; and DEBUG SLEEP, which really stalls.
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

// MODULE as Redis 7.0 answers with enable-module-command at its default (no): LIST and
// HELP only; there are no modules to list.
Reply module(const Command& argv) {
  if (argv.size() < 2) return redis::arity_error("module");
  if (redis::equals_lower(argv[1], "list") && argv.size() == 2) return Reply::array({});
  if (redis::equals_lower(argv[1], "help") && argv.size() == 2)
    return Reply::array({Reply::status("MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"),
                         Reply::status("LIST"), Reply::status("    Return a list of loaded modules."),
                         Reply::status("LOAD <path> [<arg> ...]"), Reply::status("LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]"),
                         Reply::status("UNLOAD <name>"), Reply::status("HELP")});
  for (const char* sub : {"load", "loadex", "unload"})
    if (redis::equals_lower(argv[1], sub))
      return Reply::error(
          "ERR MODULE command not allowed. If the enable-module-command option is set to \"local\", you can run it "
          "from a local connection, otherwise you need to set this option in the configuration file, and then "
          "restart the server.");
  return unknown_subcommand(argv, "MODULE");
}

// REPLICAOF (SLAVEOF): a standalone master stays one; following another server is not
// modelled (serve has no replication; the simulator's replicas are in sim/).
Reply replicaof(const Command& argv, std::string_view name) {
  if (argv.size() != 3) return redis::arity_error(name);
  if (redis::equals_lower(argv[1], "no") && redis::equals_lower(argv[2], "one")) return Reply::ok();
  return Reply::error("ERR " + std::string(name) + " host port is not modelled: locksim serve is a master without replication");
}

// LOLWUT [VERSION v]: Redis draws art for versions 5 and 6; the model answers what
// Redis answers for a version without art, the version line.
Reply lolwut(const Command& argv) {
  if (argv.size() > 1 && redis::equals_lower(argv[1], "version")) {
    int64_t version = 0;
    if (argv.size() < 3 || !redis::parse_int64(argv[2], version))
      return Reply::error("ERR value is not an integer or out of range");
  }
  return Reply::bulk("Redis ver. 7.0.15\n");
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
  for (std::string_view ours : kServerCommandNames)
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
  if (name == "slowlog") {
    if (argv.size() < 2) return redis::arity_error("slowlog");
    return core.slowlog.command(argv);
  }
  if (name == "module") return module(argv);
  if (name == "replicaof" || name == "slaveof") return replicaof(argv, name);
  if (name == "lolwut") return lolwut(argv);
  // A standalone Redis answers every CLUSTER subcommand and ASKING so.
  if (name == "cluster" || name == "asking") return Reply::error("ERR This instance has cluster support disabled");
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
