// Connection commands answered by the front-end, as Redis 7.0 answers them:
// HELLO AUTH CLIENT QUIT RESET SELECT CONFIG COMMAND INFO MEMORY, and the LOCKSIM.* admin
// commands.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <utility>

#include "locksim/server/connection.hpp"
#include "locksim/server/frontend.hpp"
#include "locksim/server/traffic.hpp"
#include "locksim/sim/redis/arguments.hpp"
#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/glob.hpp"

namespace locksim::server {

using redis::Command;
using redis::Reply;

namespace {
constexpr const char* kRedisVersion = "7.0.15";

Reply wrong_args(std::string_view name) { return redis::arity_error(name); }

// ACL's default user: no password configured means any password is accepted.
std::optional<Reply> authenticate(Server::Core& core, Connection& conn, const std::string& user,
                                  const std::string& password) {
  const std::string& required = core.options.requirepass;
  if (user == "default" && (required.empty() || password == required)) {
    conn.authenticated = true;
    return std::nullopt;
  }
  return Reply::error("WRONGPASS invalid username-password pair or user is disabled.");
}

Reply cmd_auth(Server::Core& core, Connection& conn, const Command& argv) {
  if (argv.size() < 2) return wrong_args("auth");
  if (argv.size() > 3) return Reply::error("ERR syntax error");
  if (argv.size() == 2 && core.options.requirepass.empty())
    return Reply::error(
        "ERR AUTH <password> called without any password configured for the default user. "
        "Are you sure your configuration is correct?");
  auto failed =
      argv.size() == 2 ? authenticate(core, conn, "default", argv[1]) : authenticate(core, conn, argv[1], argv[2]);
  return failed ? std::move(*failed) : Reply::ok();
}

bool valid_client_name(const std::string& name) {
  for (char c : name)
    if (c < '!' || c > '~') return false;
  return true;
}

Reply hello_reply(const Connection& conn) {
  return Reply::array({Reply::bulk("server"), Reply::bulk("redis"), Reply::bulk("version"), Reply::bulk(kRedisVersion),
                       Reply::bulk("proto"), Reply::integer_(static_cast<int>(conn.protocol)), Reply::bulk("id"),
                       Reply::integer_(static_cast<int64_t>(conn.id())), Reply::bulk("mode"), Reply::bulk("standalone"),
                       Reply::bulk("role"), Reply::bulk("master"), Reply::bulk("modules"), Reply::array({})});
}

Reply cmd_hello(Server::Core& core, Connection& conn, const Command& argv) {
  int64_t version = 0;
  if (argv.size() >= 2) {
    if (!redis::parse_int64(argv[1], version))
      return Reply::error("ERR Protocol version is not an integer or out of range");
    if (version < 2 || version > 3) return Reply::error("NOPROTO unsupported protocol version");
  }
  const std::string* user = nullptr;
  const std::string* password = nullptr;
  const std::string* setname = nullptr;
  for (size_t j = 2; j < argv.size(); ++j) {
    const size_t more = argv.size() - 1 - j;
    if (redis::equals_lower(argv[j], "auth") && more >= 2) {
      user = &argv[j + 1];
      password = &argv[j + 2];
      j += 2;
    } else if (redis::equals_lower(argv[j], "setname") && more >= 1) {
      setname = &argv[++j];
    } else {
      return Reply::error("ERR Syntax error in HELLO option '" + argv[j] + "'");
    }
  }
  if (user) {
    if (auto failed = authenticate(core, conn, *user, *password)) return std::move(*failed);
  }
  if (!conn.authenticated)
    return Reply::error(
        "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO "
        "<proto> AUTH <user> <pass> option can be used to authenticate the client and select the "
        "RESP protocol version at the same time");
  if (setname) {
    if (!valid_client_name(*setname))
      return Reply::error("ERR Client names cannot contain spaces, newlines or special characters.");
    conn.name = *setname;
  }
  if (version) conn.protocol = static_cast<redis::Protocol>(version);
  return hello_reply(conn);
}

// CLIENT REPLY ON|OFF|SKIP (networking.c): only ON answers.
Reply client_reply(Connection& conn, const std::string& mode) {
  if (redis::equals_lower(mode, "on")) {
    conn.replies_on();
    return Reply::ok();
  }
  if (redis::equals_lower(mode, "off")) {
    conn.reply_off = true;
  } else if (redis::equals_lower(mode, "skip")) {
    conn.skip_next = !conn.reply_off;
  } else {
    return Reply::error("ERR syntax error");
  }
  conn.reply_suppressed = true;
  return Reply::ok();
}

Reply cmd_client(Server::Core& core, Connection& conn, const Command& argv) {
  if (argv.size() < 2) return wrong_args("client");
  const std::string& sub = argv[1];
  auto arity = [&](size_t n, const char* full) -> std::optional<Reply> {
    if (argv.size() != n) return wrong_args(full);
    return std::nullopt;
  };
  if (redis::equals_lower(sub, "id"))
    return arity(2, "client|id").value_or(Reply::integer_(static_cast<int64_t>(conn.id())));
  if (redis::equals_lower(sub, "getname")) {
    if (auto e = arity(2, "client|getname")) return *e;
    return conn.name.empty() ? Reply::nil() : Reply::bulk(conn.name);
  }
  if (redis::equals_lower(sub, "setname")) {
    if (auto e = arity(3, "client|setname")) return *e;
    if (!valid_client_name(argv[2]))
      return Reply::error("ERR Client names cannot contain spaces, newlines or special characters.");
    conn.name = argv[2];
    return Reply::ok();
  }
  if (redis::equals_lower(sub, "info")) return arity(2, "client|info").value_or(Reply::bulk(conn.info_line() + "\n"));
  if (auto reply = run_client_admin(core, conn, argv)) return std::move(*reply);
  if (redis::equals_lower(sub, "reply")) {
    if (auto e = arity(3, "client|reply")) return *e;
    return client_reply(conn, argv[2]);
  }
  // The model holds the blocked commands (its connection ids are the clients' ids).
  if (redis::equals_lower(sub, "unblock")) return core.model.query(conn.id(), argv, core.clock.now_ms());
  // Sent by newer clients on connect; accepted and ignored.
  if (redis::equals_lower(sub, "setinfo")) return Reply::ok();
  if (redis::equals_lower(sub, "help") && argv.size() == 2) {
    std::vector<Reply> lines{Reply::status("CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")};
    for (const char* line : {"CACHING (YES|NO)", "GETNAME", "GETREDIR", "ID", "INFO", "KILL <option> <value> [...]",
                             "LIST [TYPE normal|pubsub] [ID id ...]", "UNPAUSE", "PAUSE <timeout> [WRITE|ALL]",
                             "REPLY (ON|OFF|SKIP)", "SETNAME <name>", "TRACKING (ON|OFF) [...]", "TRACKINGINFO",
                             "UNBLOCK <clientid> [TIMEOUT|ERROR]", "NO-EVICT (ON|OFF)", "NO-TOUCH (ON|OFF)", "HELP"})
      lines.push_back(Reply::status(line));
    return Reply::array(std::move(lines));
  }
  std::string text = "ERR unknown subcommand '" + sub.substr(0, 128) + "'. Try CLIENT HELP.";
  return Reply::error(std::move(text));
}

std::vector<std::pair<std::string, std::string>> config_parameters(const Server::Core& core) {
  auto parameters = limit_parameters(core);
  parameters.insert(parameters.end(), {{"appendonly", "no"},
          {"bind", core.options.bind},
          {"databases", "1"},
          {"maxclients", std::to_string(core.options.maxclients)},
          {"maxmemory", std::to_string(core.options.model.maxmemory_bytes)},
          {"maxmemory-policy", "noeviction"},
          {"port", std::to_string(core.port)},
          {"requirepass", core.options.requirepass},
          {"save", ""},
          {"timeout", std::to_string(core.traffic.idle_timeout_s)},
          {"unixsocket", core.options.unix_path}});
  for (const auto& entry : core.accepted_config) {
    const auto& [name, value] = entry;
    // A lambda captures the pair's key, not a structured binding (clang 14 refuses those).
    auto same = [&key = entry.first](const auto& p) { return p.first == key; };
    if (auto known = std::find_if(parameters.begin(), parameters.end(), same); known != parameters.end())
      known->second = value;
    else
      parameters.emplace_back(name, value);
  }
  return parameters;
}

// CONFIG GET: the model's parameters (it may have none), then the server's own that
// match and the model did not give. CONFIG SET: config_set.cpp. RESETSTAT: INFO's counts.
Reply cmd_config(Server::Core& core, const Command& argv, std::optional<Reply> from_model) {
  if (argv.size() < 2) return wrong_args("config");
  const bool get = redis::equals_lower(argv[1], "get");
  if (from_model && get && from_model->type != Reply::Type::Array) return std::move(*from_model);
  if (get) {
    if (argv.size() < 3) return wrong_args("config|get");
    std::vector<Reply> pairs = from_model ? std::move(from_model->elements) : std::vector<Reply>{};
    auto given = [&pairs](const std::string& name) {
      for (size_t i = 0; i < pairs.size(); i += 2)
        if (pairs[i].str == name) return true;
      return false;
    };
    for (const auto& [name, value] : config_parameters(core)) {
      bool matches = false;
      for (size_t i = 2; i < argv.size() && !matches; ++i) {
        std::string pattern = argv[i];
        for (char& c : pattern) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        matches = redis::glob_match(pattern, name);
      }
      if (!matches || given(name)) continue;
      pairs.push_back(Reply::bulk(name));
      pairs.push_back(Reply::bulk(value));
    }
    return Reply::array(std::move(pairs));
  }
  if (redis::equals_lower(argv[1], "resetstat")) {
    reset_stats(core.traffic);
    return from_model ? std::move(*from_model) : Reply::ok();
  }
  if (from_model) return std::move(*from_model);
  return Reply::error("ERR unknown subcommand '" + argv[1].substr(0, 128) + "'. Try CONFIG HELP.");
}

// The model's own answer when it has the command; nullopt when it does not know it.
std::optional<Reply> model_answer(Server::Core& core, Connection& conn, const Command& argv) {
  Reply reply = core.model.query(conn.id(), argv, core.clock.now_ms());
  if (reply.is_error() && reply.str.rfind("ERR unknown command", 0) == 0) return std::nullopt;
  return reply;
}

// MEMORY USAGE: an estimate (Redis's own depends on its allocator): the key, the value
// of a string, a fixed overhead otherwise; nil for a missing key.
Reply cmd_memory(Server::Core& core, Connection& conn, const Command& argv) {
  if (auto reply = model_answer(core, conn, argv)) return std::move(*reply);
  if (argv.size() < 2) return wrong_args("memory");
  const std::string& sub = argv[1];
  if (argv.size() == 2 && redis::equals_lower(sub, "stats")) return memory_stats(core, conn);
  // Redis built with libc's malloc (INFO mem_allocator:libc) answers so.
  if (argv.size() == 2 && redis::equals_lower(sub, "malloc-stats"))
    return Reply::bulk("Stats not supported for the current allocator");
  if (argv.size() == 2 && redis::equals_lower(sub, "purge")) return Reply::ok();
  if (argv.size() == 2 && redis::equals_lower(sub, "doctor")) return memory_doctor(core, conn);
  if (argv.size() == 2 && redis::equals_lower(sub, "help"))
    return Reply::array({Reply::status("MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"),
                         Reply::status("DOCTOR"), Reply::status("MALLOC-STATS"), Reply::status("PURGE"),
                         Reply::status("STATS"), Reply::status("USAGE <key> [SAMPLES <count>]"), Reply::status("HELP")});
  if (!redis::equals_lower(sub, "usage"))
    return Reply::error("ERR unknown subcommand '" + sub.substr(0, 128) + "'. Try MEMORY HELP.");
  if (argv.size() != 3 && argv.size() != 5) return Reply::error("ERR syntax error");
  const int64_t now = core.clock.now_ms();
  const Reply type = core.model.query(conn.id(), {"TYPE", argv[2]}, now);
  if (type.str == "none") return Reply::nil();
  int64_t size = 56 + static_cast<int64_t>(argv[2].size());
  if (type.str == "string") size += core.model.query(conn.id(), {"STRLEN", argv[2]}, now).integer;
  return Reply::integer_(size);
}

// RESET (networking.c clearClientConnectionState): out of MULTI and every subscription,
// no WATCH, database 0, RESP2, no name, and authenticated only if no password is needed.
// The model's part is undone by the model (also while a script is busy: RESET is allow-busy).
Reply cmd_reset(Server::Core& core, Connection& conn, const Command& argv) {
  if (argv.size() != 1) return wrong_args("reset");
  core.model.reset_connection(conn.id());
  core.model.take_pushed(conn.id());
  conn.reset_connection_state();
  conn.authenticated = core.options.requirepass.empty();
  return Reply::status("RESET");
}

// SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]: nothing to save, so every form but ABORT
// stops the server; like Redis, the caller gets no reply, only its connection closed.
Reply cmd_shutdown(Server::Core& core, Connection& conn, const Command& argv) {
  bool abort = false;
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& option = argv[i];
    if (redis::equals_lower(option, "abort")) {
      abort = true;
    } else if (!redis::equals_lower(option, "nosave") && !redis::equals_lower(option, "save") &&
               !redis::equals_lower(option, "now") && !redis::equals_lower(option, "force")) {
      return Reply::error("ERR syntax error");
    }
  }
  if (abort) return argv.size() == 2 ? Reply::error("ERR No shutdown in progress.") : Reply::error("ERR syntax error");
  conn.reply_suppressed = true;
  conn.close_after_reply = true;
  // After this command's turn: the connections close and run() returns.
  asio::post(core.io, [&core] {
    if (!core.stopped) core.shutdown();
  });
  return Reply::ok();
}

// Redis's allow-busy commands that the front-end answers: SHUTDOWN only with NOSAVE.
bool runs_while_busy(std::string_view name, const Command& argv) {
  if (name == "auth" || name == "hello" || name == "quit" || name == "reset") return true;
  if (name != "shutdown") return false;
  for (size_t i = 1; i < argv.size(); ++i)
    if (redis::equals_lower(argv[i], "nosave")) return true;
  return false;
}

Reply cmd_select(Server::Core& core, Connection& conn, const Command& argv) {
  if (auto reply = model_answer(core, conn, argv)) return std::move(*reply);
  int64_t index = 0;
  if (!redis::parse_int64(argv[1], index)) return Reply::error("ERR value is not an integer or out of range");
  return index == 0 ? Reply::ok() : Reply::error("ERR DB index is out of range");
}
}  // namespace

// Redis queues these inside MULTI (only QUIT and RESET run at once), so the model queues
// them for the front-end (redis::HostCommands), CONFIG too (its SET and GET know the
// front-end's parameters as well as the model's). INFO and SELECT are the model's own.
bool queued_for_frontend(std::string_view name) {
  for (std::string_view ours : {"client", "config", "hello", "auth", "command", "memory", "shutdown", "monitor", "role", "latency",
                                "slowlog", "lastsave", "save", "bgsave", "bgrewriteaof", "readonly", "readwrite", "acl",
                                "module", "replicaof", "slaveof", "lolwut", "cluster", "asking"})
    if (redis::equals_lower(name, ours)) return true;
  return name.size() > 8 && redis::equals_lower(name.substr(0, 8), "locksim.");
}

namespace {
// What Redis checks when it queues: the arity, and a container command's subcommand.
std::optional<Reply> check_queued(const Command& argv) {
  char buffer[24];
  std::string_view name;
  if (!redis::to_lower(argv[0], buffer, sizeof buffer, name)) return std::nullopt;
  const size_t least =
      name == "client" || name == "auth" || name == "memory" || name == "latency" || name == "slowlog" || name == "acl" ||
              name == "module" || name == "cluster"
          ? 2
          : name == "replicaof" || name == "slaveof" ? 3
          : 1;
  if (argv.size() < least) return wrong_args(name);
  if (name == "config") {  // the model's table has CONFIG's subcommands and their arities
    const redis::CommandSpec* spec = redis::find_command(name);
    if (!redis::arity_matches(spec->arity, argv.size())) return wrong_args(name);
    return redis::check_subcommand(*spec, argv);
  }
  // Redis's no-multi commands: refused when queued, and EXEC then aborts.
  if (name == "shutdown" || name == "save") return Reply::error("ERR Command not allowed inside a transaction");
  if (name != "client") return std::nullopt;
  static constexpr std::array<std::pair<const char*, int>, 17> kClientSubcommands = {{{"id", 2},
                                                                                      {"pause", -3},
                                                                                      {"unpause", 2},
                                                                                      {"tracking", -3},
                                                                                      {"getredir", 2},
                                                                                      {"trackinginfo", 2},
                                                                                      {"caching", 3},
                                                                                      {"getname", 2},
                                                                                      {"setname", 3},
                                                                                      {"info", 2},
                                                                                      {"list", -2},
                                                                                      {"kill", -3},
                                                                                      {"setinfo", 4},
                                                                                      {"no-evict", 3},
                                                                                      {"no-touch", 3},
                                                                                      {"reply", 3},
                                                                                      {"unblock", -3}}};
  for (const auto& [sub, arity] : kClientSubcommands) {
    if (!redis::equals_lower(argv[1], sub)) continue;
    const bool fits =
        arity >= 0 ? argv.size() == static_cast<size_t>(arity) : argv.size() >= static_cast<size_t>(-arity);
    return fits ? std::nullopt : std::optional<Reply>(wrong_args("client|" + std::string(sub)));
  }
  return Reply::error("ERR unknown subcommand '" + argv[1].substr(0, 128) + "'. Try CLIENT HELP.");
}
}  // namespace

void wire_frontend_commands(Server::Core& core) {
  redis::HostCommands host;
  host.owns = queued_for_frontend;
  host.check = [&core](const Command& argv) {
    std::optional<Reply> refused = check_queued(argv);
    if (refused) note_frontend_command(core, argv, "-" + refused->str, true);
    return refused;
  };
  host.run = [&core](redis::ConnectionId id, const Command& argv) {
    auto client = core.clients.find(id);
    std::optional<Reply> reply;
    if (client != core.clients.end()) reply = run_frontend_command(core, *client->second, argv);
    if (!reply) reply = Reply::error("ERR the connection is gone");
    // Counted in its turn at EXEC, as Redis's call() counts each queued command.
    note_frontend_command(core, argv, reply->is_error() ? "-" + reply->str : std::string("+"));
    return std::move(*reply);
  };
  core.model.set_host_commands(std::move(host));
}

namespace {
// Every name run_frontend_command answers but LOCKSIM.*: the connection's commands and
// the server commands.
constexpr std::string_view kConnectionCommandNames[] = {"auth",   "hello",  "reset",  "quit",     "client", "config",
                                                        "command", "info",  "select", "memory", "shutdown", "debug"};

constexpr uint32_t frontend_name_hash(std::string_view name) {
  uint32_t h = 2166136261u;  // FNV-1a
  for (const char c : name) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  return h;
}

// Those names in an open-addressed table built at compile time: a model command (GET,
// SET, INCR, ...) is told apart by one hash and, at most, a comparison or two, not by
// comparing its name with each of the front-end's.
class FrontendNames {
 public:
  constexpr FrontendNames() {
    for (std::string_view name : kConnectionCommandNames) add(name);
    for (std::string_view name : kServerCommandNames) add(name);
  }
  constexpr bool contains(std::string_view lower_name) const {
    for (size_t i = frontend_name_hash(lower_name) & kMask; !slots_[i].empty(); i = (i + 1) & kMask)
      if (slots_[i] == lower_name) return true;
    return false;
  }

 private:
  static constexpr size_t kMask = 63;  // 64 slots, over twice the names: short probes
  static_assert(std::size(kConnectionCommandNames) + std::size(kServerCommandNames) <= (kMask + 1) / 2);
  constexpr void add(std::string_view name) {
    size_t i = frontend_name_hash(name) & kMask;
    while (!slots_[i].empty()) i = (i + 1) & kMask;
    slots_[i] = name;
  }
  std::string_view slots_[kMask + 1]{};
};
constexpr FrontendNames kFrontendNames;
static_assert(kFrontendNames.contains("client") && kFrontendNames.contains("asking") && !kFrontendNames.contains("set"));
}  // namespace

std::optional<Reply> run_frontend_command(Server::Core& core, Connection& conn, const Command& argv) {
  static constexpr std::string_view kAdminPrefix = "locksim.";
  char buffer[24];
  std::string_view name;
  if (!redis::to_lower(argv[0], buffer, sizeof buffer, name)) return std::nullopt;
  if (!kFrontendNames.contains(name) && !name.starts_with(kAdminPrefix)) return std::nullopt;  // the model's
  // While a script is busy only these run here; the model answers the rest -BUSY (script_watch.hpp).
  if (core.script_busy && !runs_while_busy(name, argv)) return std::nullopt;
  // Before AUTH only AUTH, HELLO and QUIT run (Redis authRequired).
  if (name == "auth") return cmd_auth(core, conn, argv);
  if (name == "hello") return cmd_hello(core, conn, argv);
  if (name == "reset") return cmd_reset(core, conn, argv);
  if (name == "quit") {
    conn.close_after_reply = true;
    return Reply::ok();
  }
  // (Every name here is in kConnectionCommandNames or kServerCommandNames.)
  const bool ours = name == "client" || name == "config" || name == "command" || name == "info" || name == "select" ||
                    name == "memory" || name == "shutdown" || name.starts_with(kAdminPrefix) || is_server_command(name) ||
                    (name == "debug" && argv.size() >= 2 && redis::equals_lower(argv[1], "sleep"));
  if (!ours) return std::nullopt;
  if (!conn.authenticated) return Reply::error("NOAUTH Authentication required.");
  if (name.starts_with(kAdminPrefix)) return run_admin_command(core, conn, argv);
  if (name == "client") return cmd_client(core, conn, argv);
  if (name == "shutdown") return cmd_shutdown(core, conn, argv);
  if (auto reply = run_server_command(core, conn, argv, name)) return reply;
  // CONFIG and INFO: the model's when it has them (its parameters change its semantics).
  if (name == "config") {
    if (argv.size() >= 2 && redis::equals_lower(argv[1], "set")) return config_set(core, conn, argv);
    return cmd_config(core, argv, model_answer(core, conn, argv));
  }
  if (name == "info") return run_info_command(core, conn, argv);
  if (name == "command") return run_command_command(argv);
  if (name == "memory") return cmd_memory(core, conn, argv);
  if (argv.size() != 2) return wrong_args("select");
  return cmd_select(core, conn, argv);
}

}  // namespace locksim::server
