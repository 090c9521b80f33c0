// CONFIG SET parameter value [parameter value ...] as Redis 7.0 answers it: all or
// nothing. Every name is checked first (an unknown one is refused before any value is
// looked at), then the server's own values are checked on a copy, then the model's
// parameters go to the model in one CONFIG SET (itself all or nothing), and only if it
// accepts them are the server's own set.
#include <array>
#include <set>

#include "locksim/server/connection.hpp"
#include "locksim/server/frontend.hpp"
#include "locksim/server/lower.hpp"
#include "locksim/sim/redis/arguments.hpp"
#include "locksim/sim/redis/glob.hpp"

namespace locksim::server {

using redis::Command;
using redis::Reply;

namespace {
// Parameters of persistence and of Redis's internal encodings the model does not
// keep: it accepts them and is unchanged (Redis's test suite sets them). The encodings
// it does keep (hash, zset, set, list limits) are the model's own parameters.
bool without_effect(const std::string& lower_name) {
  static constexpr std::array kPatterns = {
      "save",           "appendonly",   "appendfsync",     "list-compress-depth", "*-max-ziplist-*", "*-max-listpack-*",
      "*-max-intset-*", "activedefrag", "lazyfree-lazy-*", "latency-tracking*",   "slowlog-*"};
  for (const char* pattern : kPatterns)
    if (redis::glob_match(pattern, lower_name)) return true;
  return false;
}

// The server's own settable parameters, checked into `next` (a copy) or refused with
// the text after "... - ".
struct Settings {
  size_t maxmemory = 0;
  ClientLimits limits;
  bool protected_mode = true;
  int64_t timeout_s = 0;
  std::string requirepass;
};

std::string check_own(const std::string& name, const std::string& value, Settings& next, size_t maxmemory) {
  if (name == "timeout") {
    int64_t seconds = 0;
    if (!redis::parse_int64(value, seconds)) return "argument couldn't be parsed into an integer";
    if (seconds < 0 || seconds > 2147483647) return "argument must be between 0 and 2147483647 inclusive";
    next.timeout_s = seconds;
    return "";
  }
  if (name == "slowlog-log-slower-than" || name == "slowlog-max-len") {
    int64_t n = 0;
    if (!redis::parse_int64(value, n)) return "argument couldn't be parsed into an integer";
    if (name == "slowlog-max-len" && n < 0) return "argument must be between 0 and 9223372036854775807 inclusive";
    return "";
  }
  if (name == "maxmemory") {  // Redis's units (100mb, 1gb); 0: no cap
    const auto bytes = parse_memory(value);
    if (!bytes) return "argument must be a memory value";
    if (*bytes > static_cast<uint64_t>(INT64_MAX))
      return "argument must be between 0 and 9223372036854775807 inclusive";
    next.maxmemory = static_cast<size_t>(*bytes);
    return "";
  }
  if (name == "requirepass") {
    next.requirepass = value;
    return "";
  }
  if (is_limit_parameter(name)) return set_limit_parameter(name, value, next.limits, next.protected_mode, maxmemory);
  return "";  // without effect
}

bool is_own(const std::string& lower_name) {
  return lower_name == "timeout" || lower_name == "requirepass" || lower_name == "maxmemory" ||
         is_limit_parameter(lower_name);
}
}  // namespace

Reply config_set(Server::Core& core, Connection& conn, const Command& argv) {
  if (argv.size() < 4) return redis::arity_error("config|set");
  if (argv.size() % 2 == 1) return Reply::error("ERR syntax error");
  const int64_t now = core.clock.now_ms();
  Command to_model{"CONFIG", "SET"};
  std::vector<std::pair<std::string, const std::string*>> own;
  std::set<std::string> seen;
  for (size_t i = 2; i < argv.size(); i += 2) {
    const std::string name = lower(argv[i]);
    if (!seen.insert(name).second)
      return Reply::error("ERR CONFIG SET failed (possibly related to argument '" + argv[i] + "') - duplicate parameter");
    if (is_own(name)) {
      own.emplace_back(name, &argv[i + 1]);
      continue;
    }
    // The model's own parameters first: it has the encodings' limits (OBJECT ENCODING follows them).
    const Reply known = core.model.query(conn.id(), {"CONFIG", "GET", argv[i]}, now);
    if (known.type == Reply::Type::Array && !known.elements.empty()) {
      to_model.push_back(argv[i]);
      to_model.push_back(argv[i + 1]);
    } else if (without_effect(name)) {
      own.emplace_back(name, &argv[i + 1]);
    } else {
      return Reply::error("ERR Unknown option or number of arguments for CONFIG SET - '" + argv[i] + "'");
    }
  }
  Settings next{core.options.model.maxmemory_bytes, core.options.limits, core.options.protected_mode,
                core.traffic.idle_timeout_s, core.options.requirepass};
  for (const auto& [name, value] : own) {
    const std::string failed = check_own(name, *value, next, core.options.model.maxmemory_bytes);
    if (!failed.empty())
      return Reply::error("ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + failed);
  }
  if (to_model.size() > 2) {
    Reply reply = core.model.query(conn.id(), to_model, now);
    if (reply.is_error()) return reply;
  }
  for (const auto& [name, value] : own)
    if (without_effect(name) && !is_own(name)) core.accepted_config[name] = *value;
  for (const auto& [name, value] : own) {  // checked above: they parse
    if (name == "slowlog-log-slower-than") redis::parse_int64(*value, core.slowlog.slower_than_us);
    if (name == "slowlog-max-len") redis::parse_int64(*value, core.slowlog.max_len);
  }
  if (next.maxmemory != core.options.model.maxmemory_bytes) {  // the model's cap, in bytes
    core.model.query(conn.id(), {"CONFIG", "SET", "maxmemory", std::to_string(next.maxmemory)}, now);
    core.options.model.maxmemory_bytes = next.maxmemory;
  }
  core.options.limits = next.limits;
  core.options.protected_mode = next.protected_mode;
  core.options.requirepass = next.requirepass;  // connections already authenticated stay so, as in Redis
  if (next.timeout_s != core.traffic.idle_timeout_s) set_idle_timeout(core, next.timeout_s);
  return Reply::ok();
}

}  // namespace locksim::server
