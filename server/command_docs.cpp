// COMMAND, COMMAND COUNT|LIST|INFO|DOCS|GETKEYS: every command the server answers, the
// model's (its command table) and the front-end's own (LOCKSIM.* included), with Redis
// 7.0's legacy key positions, which clients read to find a command's keys.
#include <algorithm>
#include <array>
#include <optional>
#include <string>

#include "locksim/server/command_facts.hpp"
#include "locksim/server/connection.hpp"
#include "locksim/server/lower.hpp"
#include "locksim/server/traffic.hpp"
#include "locksim/sim/redis/arguments.hpp"
#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/glob.hpp"

namespace locksim::server {

using redis::Command;
using redis::Reply;

namespace {
Reply syntax_error_reply() { return Reply::error("ERR syntax error"); }

struct FrontendCommand {
  std::string_view name;
  int arity;
  std::string_view summary;
};

// The commands the front-end answers itself, sorted by name.
constexpr std::array<FrontendCommand, 37> kFrontend = {{
    {"auth", -2, "Authenticates the connection."},
    {"bgrewriteaof", 1, "Answers as Redis does; the model keeps no files."},
    {"bgsave", -1, "Answers as Redis does; the model keeps no files."},
    {"command", -1, "Returns detailed information about all commands."},
    {"hello", -1, "Handshakes with the server (RESP2 or RESP3)."},
    {"lastsave", 1, "Returns the Unix timestamp of the last save: the server's start."},
    {"latency", -2, "Latency monitoring: answers as an idle Redis does."},
    {"locksim.advance", 2, "Moves the server's clock forward by ms; returns the new time."},
    {"locksim.delay", 2, "Holds back every reply of every client by ms (0: off)."},
    {"locksim.drop", -1, "Closes every connection (ALL) or one (client id)."},
    {"locksim.enter", -2, "locksim trial: the caller enters its critical section on a resource (ENTER resource [token])."},
    {"locksim.exit", 2, "locksim trial: the caller leaves its critical section on a resource."},
    {"locksim.fault", -2,
     "Per-client, per-command faults: ADD kind [CLIENT id] [NAME g] [ADDR g] [COMMAND g] [KEY g] [COUNT n] [FOR ms] "
     "[HANDSHAKES] | LIST | CLEAR [id] | REFUSE ms."},
    {"locksim.freeze", 1, "Stops the server's clock."},
    {"locksim.jump", 2, "Moves the server's clock by ms, either way."},
    {"locksim.pause", 2,
     "Stalls the whole server for ms, as SIGSTOP does (CLIENT PAUSE and DEBUG SLEEP are Redis's own stalls)."},
    {"locksim.restart", 1, "Forgets all data and closes every connection."},
    {"locksim.resume", 1, "Lets the server's clock run again."},
    {"locksim.time", 1, "Returns the server's clock in ms."},
    {"locksim.write", 4, "locksim trial: a write to a fenced resource (WRITE resource token value); STALE for an old token."},
    {"memory", -2, "Memory usage estimates."},
    {"monitor", 1, "Streams back every command the server runs."},
    {"quit", -1, "Closes the connection."},
    {"readonly", 1, "Cluster only; answers as a standalone Redis does."},
    {"readwrite", 1, "Cluster only; answers as a standalone Redis does."},
    {"reset", 1, "Resets the connection."},
    {"role", 1, "Returns the replication role: master."},
    {"save", 1, "Answers as Redis does; the model keeps no files."},
    {"shutdown", -1, "Stops the server."},
    {"slowlog", -2, "The slow log: commands slower than slowlog-log-slower-than microseconds."},
    {"acl", -2, "ACL WHOAMI and ACL USERS only: the default user."},
    {"asking", 1, "Cluster only; answers as a standalone Redis does."},
    {"cluster", -2, "Cluster only; answers as a standalone Redis does."},
    {"lolwut", -1, "Displays the Redis version (no art)."},
    {"module", -2, "MODULE LIST and HELP: no modules (enable-module-command no, as Redis's default)."},
    {"replicaof", 3, "REPLICAOF NO ONE: a master stays one; following another server is not modelled."},
    {"slaveof", 3, "SLAVEOF NO ONE: a master stays one; following another server is not modelled."},
}};

struct KeyRange {
  int first = 1, last = 1, step = 1;
  bool movable = false;
};

bool one_of(std::string_view name, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Redis 7.0's legacy (first, last, step) key positions; movable: counted by numkeys.
KeyRange key_range(std::string_view name) {
  if (one_of(name, {"eval", "eval_ro", "evalsha", "evalsha_ro", "fcall", "fcall_ro", "blmpop", "bzmpop", "lmpop",
                    "zmpop", "sintercard", "zintercard", "zdiff", "zinter", "zunion"}))
    return {0, 0, 0, true};
  if (one_of(name, {"zdiffstore", "zinterstore", "zunionstore", "sort", "sort_ro"})) return {1, 1, 1, true};
  if (one_of(name, {"del", "exists", "mget", "sdiff", "sinter", "sunion", "touch", "unlink", "watch", "sdiffstore",
                    "sinterstore", "sunionstore"}))
    return {1, -1, 1};
  if (one_of(name, {"blpop", "brpop", "bzpopmax", "bzpopmin"})) return {1, -2, 1};
  if (one_of(name, {"mset", "msetnx"})) return {1, -1, 2};
  if (one_of(name, {"blmove", "brpoplpush", "copy", "lmove", "rename", "renamenx", "rpoplpush", "smove", "lcs",
                    "zrangestore"}))
    return {1, 2, 1};
  const redis::CommandSpec* spec = redis::find_command(name);
  if (!spec || one_of(name, {"client", "config", "dbsize", "debug", "discard", "echo", "exec", "flushall", "flushdb",
                             "function", "info", "keys", "multi", "ping", "psubscribe", "publish", "pubsub",
                             "punsubscribe", "randomkey", "scan", "script", "select", "subscribe", "swapdb", "time",
                             "unsubscribe", "unwatch", "wait"}))
    return {0, 0, 0};
  if (name == "object") return {2, 2, 1};
  return {};
}

std::string_view group_of(std::string_view name) {
  if (name.starts_with("locksim.")) return "locksim";
  if (one_of(name, {"eval", "eval_ro", "evalsha", "evalsha_ro", "fcall", "fcall_ro", "script", "function"}))
    return "scripting";
  if (one_of(name, {"multi", "exec", "discard", "watch", "unwatch"})) return "transactions";
  if (one_of(name, {"subscribe", "unsubscribe", "psubscribe", "punsubscribe", "publish", "pubsub"})) return "pubsub";
  if (one_of(name, {"auth", "hello", "client", "select", "quit", "reset", "ping", "echo"})) return "connection";
  if (name.starts_with("h")) return "hash";
  if (name.starts_with("z") || name.starts_with("bz")) return "sorted-set";
  if (name.starts_with("s") && !one_of(name, {"set", "setex", "setnx", "setrange", "setbit", "strlen", "substr",
                                              "scan", "sort", "sort_ro", "save", "shutdown", "slowlog", "swapdb"}))
    return "set";
  if (name.starts_with("l") || name.starts_with("bl") || name.starts_with("br") || name.starts_with("rpop") ||
      name.starts_with("rpush"))
    return one_of(name, {"lastsave", "latency", "lcs"}) ? (name == "lcs" ? "string" : "server") : "list";
  if (one_of(name, {"del", "exists", "expire", "expireat", "expiretime", "pexpire", "pexpireat", "pexpiretime", "ttl",
                    "pttl", "persist", "keys", "scan", "type", "rename", "renamenx", "randomkey", "touch", "unlink",
                    "dump", "restore", "copy", "move", "object", "sort", "sort_ro", "wait"}))
    return "generic";
  if (one_of(name, {"getbit", "setbit", "bitcount"})) return "bitmap";
  if (one_of(name, {"get", "set", "setex", "setnx", "psetex", "getset", "getdel", "getex", "mget", "mset", "msetnx",
                    "incr", "incrby", "incrbyfloat", "decr", "decrby", "append", "strlen", "getrange", "setrange",
                    "substr"}))
    return "string";
  return "server";
}

std::vector<std::string_view> all_names() {
  std::vector<std::string_view> names;
  for (const redis::CommandSpec& spec : redis::all_commands()) names.push_back(spec.name);
  for (const FrontendCommand& c : kFrontend)
    if (!redis::find_command(c.name)) names.push_back(c.name);
  std::sort(names.begin(), names.end());
  return names;
}

const FrontendCommand* frontend_command(std::string_view name) {
  for (const FrontendCommand& c : kFrontend)
    if (c.name == name) return &c;
  return nullptr;
}

int arity_of(std::string_view name) {
  if (const redis::CommandSpec* spec = redis::find_command(name)) return spec->arity;
  const FrontendCommand* c = frontend_command(name);
  return c ? c->arity : 0;
}

// COMMAND INFO's entry: name, arity, flags, first key, last key, step, ACL categories,
// tips, key specs, subcommands.
Reply info_entry(std::string_view name) {
  const redis::CommandSpec* spec = redis::find_command(name);
  const KeyRange keys = key_range(name);
  std::vector<Reply> flags;
  if (spec && (spec->flags & redis::kWrite)) flags.push_back(Reply::status("write"));
  else if (keys.first > 0) flags.push_back(Reply::status("readonly"));
  if (spec && (spec->flags & redis::kNoScript)) flags.push_back(Reply::status("noscript"));
  if (name.starts_with("locksim.") || one_of(name, {"shutdown", "monitor", "debug", "save", "bgsave", "config"}))
    flags.push_back(Reply::status("admin"));
  if (keys.movable) flags.push_back(Reply::status("movablekeys"));
  std::vector<Reply> categories;
  if (const CommandFacts* facts = command_facts(name)) {
    for (std::string_view category : split_words(facts->categories, ' '))
      categories.push_back(Reply::status("@" + std::string(category)));
  }
  return Reply::array({Reply::bulk(std::string(name)), Reply::integer_(arity_of(name)), Reply::array(std::move(flags)),
                       Reply::integer_(keys.first), Reply::integer_(keys.last), Reply::integer_(keys.step),
                       Reply::array(std::move(categories)), Reply::array({}), Reply::array({}), Reply::array({})});
}

Reply docs_entry(std::string_view name) {
  const FrontendCommand* c = frontend_command(name);
  std::string summary = c ? std::string(c->summary) : "As Redis 7.0's " + std::string(name) + " (docs/redis-model.md).";
  if (name == "client") summary += " CLIENT PAUSE holds commands as Redis 7.0 does; LOCKSIM.PAUSE stalls everything.";
  if (name == "debug") summary = "DEBUG SLEEP really sleeps (the whole server, as LOCKSIM.PAUSE); SET-ACTIVE-EXPIRE.";
  return Reply::array({Reply::bulk("summary"), Reply::bulk(std::move(summary)), Reply::bulk("since"),
                       Reply::bulk(name.starts_with("locksim.") ? "0.1.0" : "1.0.0"), Reply::bulk("group"),
                       Reply::bulk(std::string(group_of(name))), Reply::bulk("complexity"), Reply::bulk("O(1)")});
}

bool known(std::string_view name) { return redis::find_command(name) || frontend_command(name); }

// The subcommands the server answers, as Redis 7.0 names them in COMMAND LIST
// ("container|sub"). tests/server checks that each is answered and that Redis's others
// are refused as unknown.
constexpr std::array<std::string_view, 102> kSubcommands = {
    "acl|users", "acl|whoami", "client|caching", "client|getname", "client|getredir", "client|help", "client|id",
    "client|info", "client|kill", "client|list", "client|no-evict", "client|pause", "client|reply", "client|setname",
    "client|tracking", "client|trackinginfo", "client|unblock", "client|unpause", "cluster|addslots",
    "cluster|addslotsrange", "cluster|bumpepoch", "cluster|count-failure-reports", "cluster|countkeysinslot",
    "cluster|delslots", "cluster|delslotsrange", "cluster|failover", "cluster|flushslots", "cluster|forget",
    "cluster|getkeysinslot", "cluster|help", "cluster|info", "cluster|keyslot", "cluster|links", "cluster|meet",
    "cluster|myid", "cluster|nodes", "cluster|replicas", "cluster|replicate", "cluster|reset", "cluster|saveconfig",
    "cluster|set-config-epoch", "cluster|setslot", "cluster|shards", "cluster|slaves", "cluster|slots",
    "command|count", "command|docs", "command|getkeys", "command|getkeysandflags", "command|help", "command|info",
    "command|list", "config|get", "config|help", "config|resetstat", "config|rewrite", "config|set",
    "function|delete", "function|flush", "function|kill", "function|list", "function|load", "function|restore",
    "latency|doctor", "latency|graph", "latency|help", "latency|histogram", "latency|history", "latency|latest",
    "latency|reset", "memory|doctor", "memory|help", "memory|malloc-stats", "memory|purge", "memory|stats",
    "memory|usage", "module|help", "module|list", "module|load", "module|loadex", "module|unload", "object|encoding",
    "object|freq", "object|help", "object|idletime", "object|refcount", "pubsub|channels", "pubsub|help",
    "pubsub|numpat", "pubsub|numsub", "pubsub|shardchannels", "pubsub|shardnumsub", "script|debug", "script|exists",
    "script|flush", "script|help", "script|kill", "script|load", "slowlog|get", "slowlog|help", "slowlog|len",
    "slowlog|reset",
};

// COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN glob]: every command,
// each container's subcommands after it (Redis commandListWithoutFilter); no modules here.
Reply command_list(const Command& argv) {
  if (argv.size() != 2 && (argv.size() != 5 || !redis::equals_lower(argv[2], "filterby"))) return syntax_error_reply();
  const std::string by = argv.size() == 5 ? lower(argv[3]) : "";
  if (!by.empty() && by != "module" && by != "aclcat" && by != "pattern") return syntax_error_reply();
  const std::string category = by == "aclcat" ? lower(argv[4]) : "";
  std::vector<Reply> names;
  auto add = [&](std::string_view name) {
    if (by == "pattern" && !redis::glob_match(lower(argv[4]), name)) return;
    if (by == "aclcat") {
      const CommandFacts* facts = command_facts(name.substr(0, name.find('|')));
      if (!facts || !has_category(*facts, category)) return;
    }
    names.push_back(Reply::bulk(std::string(name)));
  };
  for (std::string_view name : all_names()) {
    if (by == "module") break;
    add(name);
    if (by == "aclcat") continue;  // a subcommand's categories are its own: not in the facts table
    for (std::string_view sub : kSubcommands)
      if (sub.starts_with(name) && sub.size() > name.size() && sub[name.size()] == '|') add(sub);
  }
  return Reply::array(std::move(names));
}
}  // namespace

bool is_frontend_command(std::string_view lower_name) { return frontend_command(lower_name) != nullptr; }

std::vector<std::string_view> command_keys(const Command& argv) {
  std::vector<std::string_view> keys;
  const std::string name = lower(argv[0]);
  const KeyRange range = key_range(name);
  auto numkeys_at = [&](size_t at) {
    int64_t n = 0;
    if (at >= argv.size() || !redis::parse_int64(argv[at], n) || n < 0) return;
    for (size_t i = at + 1; i < argv.size() && i <= at + static_cast<size_t>(n); ++i) keys.push_back(argv[i]);
  };
  if (range.movable) {
    if (one_of(name, {"eval", "eval_ro", "evalsha", "evalsha_ro", "fcall", "fcall_ro"})) numkeys_at(2);
    else if (one_of(name, {"blmpop", "bzmpop"})) numkeys_at(2);
    else if (one_of(name, {"zdiffstore", "zinterstore", "zunionstore"})) {
      keys.push_back(argv[1]);
      numkeys_at(2);
    } else if (name == "sort") {  // Redis sortGetKeys: the key, then the last STORE's destination
      if (argv.size() > 1) keys.push_back(argv[1]);
      std::optional<std::string_view> store;
      for (size_t i = 2; i < argv.size(); ++i) {
        if (redis::equals_lower(argv[i], "limit")) i += 2;
        else if (redis::equals_lower(argv[i], "get") || redis::equals_lower(argv[i], "by")) i += 1;
        else if (redis::equals_lower(argv[i], "store") && i + 1 < argv.size()) store = argv[++i];
      }
      if (store) keys.push_back(*store);
    } else if (range.first > 0 && argv.size() > 1) {
      keys.push_back(argv[1]);
    } else {
      numkeys_at(1);
    }
    return keys;
  }
  if (range.first <= 0) return keys;
  const int64_t argc = static_cast<int64_t>(argv.size());
  const int64_t last = range.last < 0 ? argc + range.last : range.last;
  for (int64_t i = range.first; i <= last && i < argc; i += range.step) keys.push_back(argv[static_cast<size_t>(i)]);
  return keys;
}

namespace {
// The flags of the spec a command's k-th key belongs to: keys are found in spec order, the
// last spec taking the rest (ZUNIONSTORE: the destination, then its sources). SET's flags
// vary: without GET it only overwrites (Redis setGetKeys).
std::vector<Reply> key_flags(const Command& target, std::string_view name, size_t k) {
  const CommandFacts* facts = command_facts(name);
  const auto specs = facts ? split_words(facts->key_specs, '|') : std::vector<std::string_view>{};
  if (specs.empty()) return {};
  std::vector<Reply> flags;
  bool set_get = false;
  for (size_t i = 3; name == "set" && i < target.size(); ++i) set_get = set_get || redis::equals_lower(target[i], "get");
  if (name == "set" && !set_get) return {Reply::status("OW"), Reply::status("update")};
  for (std::string_view flag : split_words(specs[std::min(k, specs.size() - 1)], ' '))
    if (flag != "variable_flags") flags.push_back(Reply::status(std::string(flag)));
  return flags;
}

// COMMAND GETKEYS|GETKEYSANDFLAGS command [arg ...] (Redis getKeysSubcommandImpl).
Reply command_getkeys(const Command& argv, bool with_flags) {
  if (argv.size() < 4) return redis::arity_error(with_flags ? "command|getkeysandflags" : "command|getkeys");
  const Command target(argv.begin() + 2, argv.end());
  const std::string name = lower(target[0]);
  if (!known(name)) return Reply::error("ERR Invalid command specified");
  if (!redis::arity_matches(arity_of(name), target.size()))
    return Reply::error("ERR Invalid number of arguments specified for command");
  const KeyRange range = key_range(name);
  if (range.first <= 0 && !range.movable) return Reply::error("ERR The command has no key arguments");
  std::vector<Reply> keys;
  for (std::string_view key : command_keys(target)) {
    Reply found = Reply::bulk(std::string(key));
    if (with_flags) found = Reply::array({std::move(found), Reply::array(key_flags(target, name, keys.size()))});
    keys.push_back(std::move(found));
  }
  // Scripts and functions may name no key (Redis's CMD_NO_MANDATORY_KEYS); others must.
  if (keys.empty() && !one_of(name, {"eval", "eval_ro", "evalsha", "evalsha_ro", "fcall", "fcall_ro"}))
    return Reply::error("ERR Invalid arguments specified for command");
  return Reply::array(std::move(keys));
}
}  // namespace

Reply run_command_command(const Command& argv) {
  if (argv.size() == 1) {
    std::vector<Reply> all;
    for (std::string_view name : all_names()) all.push_back(info_entry(name));
    return Reply::array(std::move(all));
  }
  const std::string sub = lower(argv[1]);
  if (sub == "count") {
    if (argv.size() != 2) return redis::arity_error("command|count");
    return Reply::integer_(static_cast<int64_t>(all_names().size()));
  }
  if (sub == "list") return command_list(argv);
  if (sub == "info" || sub == "docs") {
    std::vector<Reply> out;
    std::vector<std::string> asked;
    for (size_t i = 2; i < argv.size(); ++i) asked.push_back(lower(argv[i]));
    if (asked.empty())
      for (std::string_view name : all_names()) asked.emplace_back(name);
    for (const std::string& name : asked) {
      if (sub == "info") {
        out.push_back(known(name) ? info_entry(name) : Reply::nil_array());
      } else if (known(name)) {
        out.push_back(Reply::bulk(name));
        out.push_back(docs_entry(name));
      }
    }
    return Reply::array(std::move(out));
  }
  if (sub == "getkeys" || sub == "getkeysandflags") return command_getkeys(argv, sub == "getkeysandflags");
  if (sub == "help") return Reply::array({Reply::status("COMMAND [COUNT|LIST|INFO|DOCS|GETKEYS] ...")});
  return Reply::error("ERR unknown subcommand '" + argv[1].substr(0, 128) + "'. Try COMMAND HELP.");
}

}  // namespace locksim::server
