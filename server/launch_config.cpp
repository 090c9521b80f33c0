#include "locksim/server/launch_config.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "locksim/server/lower.hpp"
#include "locksim/sim/redis/cli_split.hpp"
#include "locksim/sim/redis/glob.hpp"

namespace locksim::server {

namespace {
// Redis 7.0's directives that change nothing the model does: persistence, replication,
// cluster, TLS, encodings, memory and latency tuning, logging to syslog.
constexpr std::array kWithoutEffect = {
    "save",           "appendonly",     "appendfsync",     "appendfilename",     "appenddirname",    "dbfilename",
    "rdbcompression", "rdbchecksum",    "rdb-*",           "aof-*",              "auto-aof-*",       "no-appendfsync-*",
    "stop-writes-*",  "databases",      "hz",              "dynamic-hz",         "activerehashing",  "active-*",
    "activedefrag",   "lazyfree-*",     "lfu-*",           "maxmemory*",         "*-max-listpack-*", "*-max-ziplist-*",
    "*-max-intset-*", "list-compress-depth", "hll-*",      "stream-node-*",      "slowlog-*",        "latency-*",
    "tracking-*",     "cluster-*",      "repl-*",          "replica-*",          "slave-*",          "replicaof",
    "slaveof",        "masterauth",     "masteruser",      "min-replicas-*",     "min-slaves-*",     "tls-*",
    "io-threads*",    "syslog-*",       "supervised",      "always-show-logo",   "set-proc-title",   "proc-title-*",
    "oom-score-*",    "disable-thp",    "jemalloc-*",      "crash-*",            "tcp-backlog",      "tcp-keepalive",
    "bind-source-addr", "socket-mark-id", "unixsocketperm", "enable-*",           "rename-command",
    "aclfile",        "acllog-*",       "acl-*",           "user",               "loadmodule",       "notify-keyspace-events",
    "lua-time-limit", "busy-reply-threshold", "shutdown-*", "sanitize-dump-payload", "ignore-warnings", "propagation-error-behavior",
    "locale-collate"};

bool directive_without_effect(const std::string& name) {
  for (const char* pattern : kWithoutEffect)
    if (redis::glob_match(pattern, name)) return true;
  return false;
}

int64_t integer_value(const std::string& name, const std::string& text, int64_t least, int64_t most) {
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < least || value > most)
    throw LaunchError("'" + name + "' wants an integer from " + std::to_string(least) + " to " +
                      std::to_string(most) + ", not '" + text + "'");
  return value;
}

bool yes_no(const std::string& name, const std::string& text) {
  const std::string v = lower(text);
  if (v == "yes") return true;
  if (v == "no") return false;
  throw LaunchError("'" + name + "' wants yes or no, not '" + text + "'");
}

void need_values(const std::string& name, const std::vector<std::string>& values, size_t least, size_t most) {
  if (values.size() < least || values.size() > most)
    throw LaunchError("wrong number of arguments for '" + name + "'");
}

std::string read_file(const std::string& path) {
  if (path == "-") return std::string(std::istreambuf_iterator<char>(std::cin), {});
  std::ifstream in(path, std::ios::binary);
  if (!in) throw LaunchError("cannot open config file '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}
}  // namespace

void apply_directive(LaunchOptions& o, const std::string& name, const std::vector<std::string>& values,
                     LaunchStyle style) {
  auto one = [&] {
    need_values(name, values, 1, 1);
    return values[0];
  };
  if (name == "port") {
    const int64_t port = integer_value(name, one(), style == LaunchStyle::Locksim ? -1 : 0, 65535);
    // redis-server: port 0 listens on no TCP port; locksim serve: it picks a free one.
    o.server.port = style == LaunchStyle::RedisServer && port == 0 ? -1 : static_cast<int>(port);
  } else if (name == "bind") {
    need_values(name, values, 1, 16);
    // Redis listens on every address given ("-" marks one it may skip); the model on the first.
    std::string first = values[0];
    if (!first.empty() && first[0] == '-') first.erase(0, 1);
    o.server.bind = first == "*" ? "0.0.0.0" : first;
    if (values.size() > 1) o.notes.push_back("bind: listening on " + o.server.bind + " only, not on the other addresses");
  } else if (name == "unixsocket" || name == "unix") {
    o.server.unix_path = one();
  } else if (name == "requirepass") {
    o.server.requirepass = one();
  } else if (name == "timeout") {  // as CONFIG SET timeout: idle clients closed after this many seconds
    o.server.idle_timeout_s = integer_value(name, one(), 0, 2147483647);
  } else if (name == "maxclients") {
    o.server.maxclients = static_cast<size_t>(integer_value(name, one(), 1, 1'000'000));
  } else if (is_limit_parameter(name)) {  // protected-mode and the clients' limits (limits.hpp)
    // client-output-buffer-limit takes one or more groups of four words; the others one.
    need_values(name, values, 1, name == "client-output-buffer-limit" ? 12 : 1);
    std::string value = values[0];
    for (size_t i = 1; i < values.size(); ++i) value += " " + values[i];
    const std::string refused = set_limit_parameter(name, value, o.server.limits, o.server.protected_mode,
                                                    o.server.model.maxmemory_bytes);
    if (!refused.empty()) throw LaunchError("'" + name + "': " + refused + ", not '" + value + "'");
  } else if (name == "time") {
    const std::string mode = lower(one());
    if (mode != "wall" && mode != "manual") throw LaunchError("'time' is wall or manual, not '" + values[0] + "'");
    o.server.time = mode == "manual" ? TimeMode::Manual : TimeMode::Wall;
  } else if (name == "daemonize") {
    o.daemonize = yes_no(name, one());
  } else if (name == "pidfile") {
    o.pidfile = one();
  } else if (name == "logfile") {
    o.logfile = one();
  } else if (name == "dir") {
    o.dir = one();
  } else if (name == "ready-file") {
    o.ready_file = one();
  } else if (name == "loglevel") {
    const std::string level = lower(one());
    constexpr std::array kLevels = {"debug", "verbose", "notice", "warning", "nothing"};
    if (std::find(kLevels.begin(), kLevels.end(), level) == kLevels.end())
      throw LaunchError("'loglevel' is one of debug, verbose, notice, warning, nothing; not '" + values[0] + "'");
    o.loglevel = level;
  } else if (name == "help" || name == "h") {
    o.help = true;
  } else if (name == "version" || name == "v") {
    o.version = true;
  } else if (name == "include") {
    need_values(name, values, 1, 1);
    apply_config_text(o, read_file(values[0]), values[0], style, 1);
  } else if (name == "sentinel") {
    throw LaunchError("sentinel mode is not modelled");
  } else if (directive_without_effect(name)) {
    // Quiet where the value asks for what the model is anyway: no persistence.
    const bool as_modelled =
        values.empty() || (values.size() == 1 && (values[0].empty() || lower(values[0]) == "no" || values[0] == "0"));
    if (!as_modelled || (name != "save" && name != "appendonly")) {
      std::string text = name;
      for (const std::string& v : values) text += " " + (v.empty() ? std::string("\"\"") : v);
      o.notes.push_back("ignored: " + text + " (nothing in the model it would change)");
    }
  } else {
    throw LaunchError("bad directive or wrong number of arguments: '" + name + "'");
  }
}

void apply_config_text(LaunchOptions& o, const std::string& text, const std::string& origin, LaunchStyle style,
                       int depth) {
  if (depth > 8) throw LaunchError("config files include each other more than 8 deep ('" + origin + "')");
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    const size_t start = line.find_first_not_of(" \t\r\n");
    if (start == std::string::npos || line[start] == '#') continue;
    auto words = redis::split_cli_line(line);
    if (!words || words->empty())
      throw LaunchError(origin + ":" + std::to_string(number) + ": unbalanced quotes in '" + line + "'");
    const std::string name = lower((*words)[0]);
    words->erase(words->begin());
    try {
      if (name == "include") {
        need_values(name, *words, 1, 1);
        apply_config_text(o, read_file((*words)[0]), (*words)[0], style, depth + 1);
      } else {
        apply_directive(o, name, *words, style);
      }
    } catch (const LaunchError& e) {
      throw LaunchError(origin + ":" + std::to_string(number) + ": " + e.what());
    }
  }
}

LaunchOptions parse_launch_arguments(const std::vector<std::string>& args, LaunchStyle style) {
  LaunchOptions o;
  size_t i = 0;
  // redis-server: the config file comes first ("-": read it from stdin).
  if (!args.empty() && (args[0] == "-" || !args[0].starts_with("-"))) {
    apply_config_text(o, read_file(args[0]), args[0], style);
    i = 1;
  }
  while (i < args.size()) {
    const std::string& arg = args[i];
    std::string name;
    if (arg.starts_with("--"))
      name = arg.substr(2);
    else if (arg == "-h" || arg == "-v")
      name = arg.substr(1);
    else
      throw LaunchError("'" + arg + "' is not a --directive (a config file comes first, alone)");
    std::vector<std::string> values;
    if (const size_t eq = name.find('='); eq != std::string::npos) {  // --port=6380
      values.push_back(name.substr(eq + 1));
      name.resize(eq);
    }
    // Every word up to the next --directive is a value (an empty one included: --save '').
    for (++i; i < args.size() && !(args[i].starts_with("--") && args[i].size() > 2); ++i) values.push_back(args[i]);
    name = lower(name);
    // `--save` alone is `save ""`, as in redis-server 7.
    if (name == "save" && values.empty()) values.emplace_back();
    apply_directive(o, name, values, style);
  }
  return o;
}

}  // namespace locksim::server
