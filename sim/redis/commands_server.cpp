// Connection and server commands: PING ECHO TIME SELECT-free ones: CONFIG (the
// parameters that change semantics) INFO (server, clients, memory, keyspace) DEBUG (SLEEP,
// SET-ACTIVE-EXPIRE, RELOAD) CLIENT (ID, SETNAME, GETNAME, UNBLOCK).
#include <cmath>

#include <fmt/format.h>

#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/functions.hpp"
#include "locksim/sim/redis/glob.hpp"
#include "locksim/sim/redis/memory.hpp"
#include "locksim/sim/redis/scripting.hpp"
#include "locksim/sim/redis/typed_lookup.hpp"

namespace locksim::redis {

Reply cmd_ping(ExecContext& ctx, const Command& argv) {
  if (argv.size() > 2) return arity_error("ping");
  if (ctx.conn.subscribed())  // RESP2 in subscribed mode: a pong message
    return Reply::array({Reply::bulk("pong"), Reply::bulk(argv.size() == 2 ? argv[1] : "")});
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

namespace {

struct IntParameter {
  std::string_view name, alias;
  int64_t ServerConfig::*field;  // null for limits fields (below)
  int64_t EncodingLimits::*limit;
  int64_t min, max;
};

constexpr int64_t kLongMax = 9223372036854775807LL;
const IntParameter kIntParameters[] = {
    {"hash-max-listpack-entries", "hash-max-ziplist-entries", nullptr, &EncodingLimits::hash_max_listpack_entries, 0,
     kLongMax},
    {"hash-max-listpack-value", "hash-max-ziplist-value", nullptr, &EncodingLimits::hash_max_listpack_value, 0,
     kLongMax},
    {"set-max-intset-entries", "", nullptr, &EncodingLimits::set_max_intset_entries, 0, kLongMax},
    {"zset-max-listpack-entries", "zset-max-ziplist-entries", nullptr, &EncodingLimits::zset_max_listpack_entries, 0,
     kLongMax},
    {"zset-max-listpack-value", "zset-max-ziplist-value", nullptr, &EncodingLimits::zset_max_listpack_value, 0,
     kLongMax},
    {"list-max-listpack-size", "list-max-ziplist-size", nullptr, &EncodingLimits::list_max_listpack_size, -2147483648LL,
     2147483647},
    {"hz", "", &ServerConfig::hz, nullptr, 0, 2147483647},
    {"busy-reply-threshold", "lua-time-limit", &ServerConfig::lua_time_limit_ms, nullptr, 0, kLongMax},
};

int64_t& field_of(ServerConfig& config, const IntParameter& p) {
  return p.field ? config.*p.field : config.limits.*p.limit;
}

const IntParameter* find_parameter(std::string_view name) {
  for (const IntParameter& p : kIntParameters)
    if (equals_lower(name, p.name) || (!p.alias.empty() && equals_lower(name, p.alias))) return &p;
  return nullptr;
}

Reply config_get(ExecContext& ctx, const Command& argv) {
  std::vector<Reply> out;
  auto add = [&](std::string_view name, std::string value) {
    for (size_t i = 0; i < out.size(); i += 2)
      if (out[i].str == name) return;
    out.push_back(Reply::bulk(std::string(name)));
    out.push_back(Reply::bulk(std::move(value)));
  };
  for (size_t j = 2; j < argv.size(); ++j) {
    std::string pattern = argv[j];
    for (char& c : pattern) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const IntParameter& p : kIntParameters) {
      const std::string value = std::to_string(field_of(ctx.server.config, p));
      if (!p.alias.empty() && glob_match(pattern, p.alias)) add(p.alias, value);
      if (glob_match(pattern, p.name)) add(p.name, value);
    }
    if (glob_match(pattern, "notify-keyspace-events"))
      add("notify-keyspace-events", Notifications::flags_to_string(ctx.server.config.notify_keyspace_events));
    if (glob_match(pattern, "databases")) add("databases", std::to_string(kDatabases));
  }
  return Reply::array(std::move(out));
}

Reply config_set(ExecContext& ctx, const Command& argv) {
  if (argv.size() % 2 == 1)
    return error_reply("ERR Unknown option or number of arguments for CONFIG SET - '" + argv[2] + "'");
  ServerConfig updated = ctx.server.config;
  size_t maxmemory = ctx.server.options.maxmemory_bytes;
  std::vector<std::string> seen;
  for (size_t j = 2; j + 1 < argv.size(); j += 2) {
    const std::string& name = argv[j];
    const std::string& value = argv[j + 1];
    const std::string failed = "ERR CONFIG SET failed (possibly related to argument '" + name + "') - ";
    for (const std::string& s : seen)
      if (equals_lower(s, name) || (find_parameter(s) && find_parameter(s) == find_parameter(name)))
        return error_reply(failed + "duplicate parameter");
    seen.push_back(name);
    if (equals_lower(name, "databases")) return error_reply(failed + "can't set immutable config");
    if (equals_lower(name, "notify-keyspace-events")) {
      const auto flags = Notifications::parse_flags(value);
      if (!flags) return error_reply(failed + "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
      updated.notify_keyspace_events = *flags;
      continue;
    }
    if (equals_lower(name, "maxmemory")) {  // bytes (locksim serve reads Redis's units first); 0: no cap
      int64_t bytes = 0;
      if (!parse_int64(value, bytes)) return error_reply(failed + "argument must be a memory value");
      if (bytes < 0) return error_reply(failed + "argument must be between 0 and 9223372036854775807 inclusive");
      maxmemory = static_cast<size_t>(bytes);
      continue;
    }
    const IntParameter* p = find_parameter(name);
    if (!p) return error_reply("ERR Unknown option or number of arguments for CONFIG SET - '" + name + "'");
    int64_t v = 0;
    if (!parse_int64(value, v)) return error_reply(failed + "argument couldn't be parsed into an integer");
    if (v < p->min || v > p->max)
      return error_reply(failed + "argument must be between " + std::to_string(p->min) + " and " +
                         std::to_string(p->max) + " inclusive");
    field_of(updated, *p) = v;
  }
  updated.hz = std::clamp<int64_t>(updated.hz, 1, 500);
  ctx.server.config = updated;
  ctx.server.options.maxmemory_bytes = maxmemory;
  ctx.server.notifications.flags = updated.notify_keyspace_events;
  return Reply::ok();
}

Reply help_reply(std::initializer_list<const char*> lines) {
  std::vector<Reply> out;
  for (const char* line : lines) out.push_back(Reply::status(line));
  return Reply::array(std::move(out));
}

}  // namespace

Reply cmd_config(ExecContext& ctx, const Command& argv) {
  if (equals_lower(argv[1], "get")) return config_get(ctx, argv);
  if (equals_lower(argv[1], "set")) return config_set(ctx, argv);
  if (equals_lower(argv[1], "resetstat")) {
    ctx.server.stats.reset();
    return Reply::ok();
  }
  if (equals_lower(argv[1], "rewrite")) return error_reply("ERR The server is running without a config file");
  return help_reply({"CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", "GET <pattern>",
                     "    Return parameters matching the glob-like <pattern> and their values.",
                     "SET <directive> <value>", "    Set the configuration <directive> to <value>.", "RESETSTAT",
                     "    Reset statistics reported by the INFO command.", "REWRITE",
                     "    Rewrite the configuration file.", "HELP", "    Prints this help."});
}

namespace {
// INFO's memory section: the data set as the maxmemory accounting sizes it (plus
// an empty Redis's own bytes), the Lua state's, and the script and function counts.
std::string memory_section(const Server::State& server) {
  const size_t data = dataset_bytes(server);
  const size_t lua = server.scripts ? server.scripts->lua_bytes() : 0;
  const size_t scripts = server.scripts ? server.scripts->cached_scripts() : 0;
  const size_t functions = server.functions ? server.functions->function_count() : 0;
  const size_t libraries = server.functions ? server.functions->library_count() : 0;
  std::string out = "# Memory\r\n";
  auto line = [&](std::string_view name, size_t value) { out += fmt::format("{}:{}\r\n", name, value); };
  line("used_memory", data + (server.host_memory ? server.host_memory() : kEmptyServerBytes));
  line("used_memory_dataset", data);
  line("used_memory_lua", lua);
  line("used_memory_vm_eval", lua);
  line("number_of_cached_scripts", scripts);
  line("number_of_functions", functions);
  line("number_of_libraries", libraries);
  line("maxmemory", server.options.maxmemory_bytes);  // what the OOM check enforces
  out += "maxmemory_policy:noeviction\r\n";
  return out;
}
}  // namespace

Reply cmd_info(ExecContext& ctx, const Command& argv) {
  bool server = argv.size() == 1, clients = server, memory = server, keyspace = server, stats = server,
       errorstats = server, commandstats = false;
  for (size_t i = 1; i < argv.size(); ++i) {
    const bool all_default =
        equals_lower(argv[i], "all") || equals_lower(argv[i], "everything") || equals_lower(argv[i], "default");
    const bool all = all_default && !equals_lower(argv[i], "default");  // commandstats is not a default section
    server = server || all_default || equals_lower(argv[i], "server");
    clients = clients || all_default || equals_lower(argv[i], "clients");
    memory = memory || all_default || equals_lower(argv[i], "memory");
    keyspace = keyspace || all_default || equals_lower(argv[i], "keyspace");
    stats = stats || all_default || equals_lower(argv[i], "stats");
    errorstats = errorstats || all_default || equals_lower(argv[i], "errorstats");
    commandstats = commandstats || all || equals_lower(argv[i], "commandstats");
  }
  std::string out;
  const int64_t uptime_ms = ctx.server.start_ms < 0 ? 0 : ctx.now_ms - ctx.server.start_ms;
  if (server) {
    out +=
        "# Server\r\nredis_version:7.0.15\r\nredis_mode:standalone\r\nos:locksim model\r\narch_bits:64\r\n"
        "multiplexing_api:none\r\nprocess_id:1\r\ntcp_port:0\r\n";
    out += "uptime_in_seconds:" + std::to_string(uptime_ms / 1000) + "\r\n";
    out += "uptime_in_days:" + std::to_string(uptime_ms / 86'400'000) + "\r\n";
    out += "hz:" + std::to_string(ctx.server.config.hz) + "\r\nconfigured_hz:" + std::to_string(ctx.server.config.hz) +
           "\r\n";
  }
  if (clients) {
    if (!out.empty()) out += "\r\n";
    int64_t connected = 0, blocked = 0, pubsub = 0;
    for (const auto& conn : ctx.server.connections) {
      if (!conn) continue;
      ++connected;
      if (conn->blocked) ++blocked;
      if (conn->subscribed()) ++pubsub;
    }
    out += "# Clients\r\nconnected_clients:" + std::to_string(connected) +
           "\r\nblocked_clients:" + std::to_string(blocked) + "\r\npubsub_clients:" + std::to_string(pubsub) + "\r\n";
  }
  if (memory) {
    if (!out.empty()) out += "\r\n";
    out += memory_section(ctx.server);
  }
  if (stats) {
    if (!out.empty()) out += "\r\n";
    out += "# Stats\r\ntotal_error_replies:" + std::to_string(ctx.server.stats.total_error_replies()) + "\r\n";
  }
  if (errorstats) {
    if (!out.empty()) out += "\r\n";
    out += "# Errorstats\r\n" + ctx.server.stats.errorstats_section();
  }
  if (commandstats) {
    if (!out.empty()) out += "\r\n";
    out += "# Commandstats\r\n" + ctx.server.stats.commandstats_section();
  }
  if (keyspace) {
    if (!out.empty()) out += "\r\n";
    out += "# Keyspace\r\n";
    for (const Database& db : ctx.server.dbs) {
      int64_t keys = 0, expires = 0;
      for (const auto& [key, entry] : db.keys) {
        ++keys;
        if (entry.expire_at_ms >= 0) ++expires;
      }
      if (keys == 0) continue;
      out += "db" + std::to_string(db.id) + ":keys=" + std::to_string(keys) + ",expires=" + std::to_string(expires) +
             ",avg_ttl=0\r\n";
    }
  }
  return Reply::bulk(std::move(out));
}

Reply cmd_debug(ExecContext& ctx, const Command& argv) {
  const std::string unknown =
      "ERR Unknown subcommand or wrong number of arguments for '" + argv[1] + "'. Try DEBUG HELP.";
  if (equals_lower(argv[1], "sleep") && argv.size() == 3) {
    long double seconds = 0;
    if (!parse_long_double(argv[2], seconds)) return error_reply("ERR value is not a valid float");
    return Reply::ok();  // the model's clock is the caller's: it does not stall
  }
  if (equals_lower(argv[1], "set-active-expire") && argv.size() == 3) {
    int64_t on = 0;
    if (!parse_int64(argv[2], on)) return error_reply(kNotInteger);
    ctx.server.config.active_expire = on != 0;
    return Reply::ok();
  }
  if (equals_lower(argv[1], "reload") || equals_lower(argv[1], "jmap")) return Reply::ok();
  if (equals_lower(argv[1], "help"))
    return help_reply({"DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", "RELOAD",
                       "    Kept for compatibility: the model has no persistence.", "SET-ACTIVE-EXPIRE <0|1>",
                       "    Setting it to 0 disables expiring keys in background when they are not accessed.",
                       "SLEEP <seconds>", "    Answers OK at once: the model's time is the caller's.", "HELP",
                       "    Prints this help."});
  return Reply::error(unknown);
}

namespace {
// CLIENT UNBLOCK <id> [TIMEOUT|ERROR]: the blocked client gets its timeout reply (a
// null array) or an UNBLOCKED error now; 1 if it was blocked, 0 otherwise.
Reply client_unblock(ExecContext& ctx, const Command& argv) {
  if (argv.size() > 4)
    return error_reply("ERR unknown subcommand or wrong number of arguments for 'unblock'. Try CLIENT HELP.");
  bool as_error = false;
  if (argv.size() == 4) {
    if (equals_lower(argv[3], "error"))
      as_error = true;
    else if (!equals_lower(argv[3], "timeout"))
      return error_reply("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
  }
  Reply error;
  int64_t id = 0;
  if (!int_arg(argv[2], id, error)) return error;
  ConnectionState* target = id > 0 ? ctx.server.find_connection(static_cast<ConnectionId>(id)) : nullptr;
  if (!target || !target->blocked) return Reply::integer_(0);
  ctx.server.unblock(*target);
  ctx.server.push(*target,
                  as_error ? Reply::error("UNBLOCKED client unblocked via CLIENT UNBLOCK") : Reply::nil_array());
  return Reply::integer_(1);
}
}  // namespace

Reply cmd_client(ExecContext& ctx, const Command& argv) {
  if (equals_lower(argv[1], "id")) return Reply::integer_(static_cast<int64_t>(ctx.conn.id));
  if (equals_lower(argv[1], "unblock")) return client_unblock(ctx, argv);
  if (equals_lower(argv[1], "getname")) return ctx.conn.name.empty() ? Reply::nil() : Reply::bulk(ctx.conn.name);
  if (equals_lower(argv[1], "setname")) {
    for (char c : argv[2])
      if (c < '!' || c > '~')
        return error_reply("ERR Client names cannot contain spaces, newlines or special characters.");
    ctx.conn.name = argv[2];
    return Reply::ok();
  }
  return help_reply({"CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", "GETNAME",
                     "    Return the name of the current connection.", "ID",
                     "    Return the ID of the current connection.", "SETNAME <name>",
                     "    Assign the name <name> to the current connection.", "UNBLOCK <clientid> [TIMEOUT|ERROR]",
                     "    Unblock the specified blocked client.", "HELP", "    Prints this help."});
}

}  // namespace locksim::redis
