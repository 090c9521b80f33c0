#include "sim/redis/command_table.hpp"

#include <algorithm>
#include <array>

#include "sim/redis/arguments.hpp"

namespace locksim::redis {

namespace {
// Sorted by name for binary search; arities from Redis 7.0's command table.
constexpr std::array kCommands = {
    CommandSpec{"append", 3, 0, cmd_append},
    CommandSpec{"dbsize", 1, 0, cmd_dbsize},
    CommandSpec{"decr", 2, 0, cmd_decr},
    CommandSpec{"decrby", 3, 0, cmd_decrby},
    CommandSpec{"del", -2, 0, cmd_del},
    CommandSpec{"discard", 1, kNoScript | kNotQueued, cmd_discard},
    CommandSpec{"echo", 2, 0, cmd_echo},
    CommandSpec{"eval", -3, kNoScript, cmd_eval},
    CommandSpec{"evalsha", -3, kNoScript, cmd_evalsha},
    CommandSpec{"exec", 1, kNoScript | kNotQueued, cmd_exec},
    CommandSpec{"exists", -2, 0, cmd_exists},
    CommandSpec{"expire", -3, 0, cmd_expire},
    CommandSpec{"expireat", -3, 0, cmd_expireat},
    CommandSpec{"expiretime", 2, 0, cmd_expiretime},
    CommandSpec{"flushall", -1, 0, cmd_flushall},
    CommandSpec{"flushdb", -1, 0, cmd_flushall},
    CommandSpec{"get", 2, 0, cmd_get},
    CommandSpec{"getdel", 2, 0, cmd_getdel},
    CommandSpec{"getex", -2, 0, cmd_getex},
    CommandSpec{"getset", 3, 0, cmd_getset},
    CommandSpec{"hdel", -3, 0, cmd_hdel},
    CommandSpec{"hexists", 3, 0, cmd_hexists},
    CommandSpec{"hget", 3, 0, cmd_hget},
    CommandSpec{"hgetall", 2, 0, cmd_hgetall},
    CommandSpec{"hincrby", 4, 0, cmd_hincrby},
    CommandSpec{"hkeys", 2, 0, cmd_hkeys},
    CommandSpec{"hlen", 2, 0, cmd_hlen},
    CommandSpec{"hmget", -3, 0, cmd_hmget},
    CommandSpec{"hmset", -4, 0, cmd_hmset},
    CommandSpec{"hset", -4, 0, cmd_hset},
    CommandSpec{"hsetnx", 4, 0, cmd_hsetnx},
    CommandSpec{"hvals", 2, 0, cmd_hvals},
    CommandSpec{"incr", 2, 0, cmd_incr},
    CommandSpec{"incrby", 3, 0, cmd_incrby},
    CommandSpec{"keys", 2, 0, cmd_keys},
    CommandSpec{"mget", -2, 0, cmd_mget},
    CommandSpec{"multi", 1, kNoScript | kNotQueued, cmd_multi},
    CommandSpec{"persist", 2, 0, cmd_persist},
    CommandSpec{"pexpire", -3, 0, cmd_pexpire},
    CommandSpec{"pexpireat", -3, 0, cmd_pexpireat},
    CommandSpec{"pexpiretime", 2, 0, cmd_pexpiretime},
    CommandSpec{"ping", -1, 0, cmd_ping},
    CommandSpec{"psetex", 4, 0, cmd_psetex},
    CommandSpec{"pttl", 2, 0, cmd_pttl},
    CommandSpec{"publish", 3, 0, cmd_publish},
    CommandSpec{"script", -2, kNoScript, cmd_script},
    CommandSpec{"set", -3, 0, cmd_set},
    CommandSpec{"setex", 4, 0, cmd_setex},
    CommandSpec{"setnx", 3, 0, cmd_setnx},
    CommandSpec{"strlen", 2, 0, cmd_strlen},
    CommandSpec{"time", 1, 0, cmd_time},
    CommandSpec{"ttl", 2, 0, cmd_ttl},
    CommandSpec{"type", 2, 0, cmd_type},
    CommandSpec{"unlink", -2, 0, cmd_del},
    CommandSpec{"unwatch", 1, kNoScript, cmd_unwatch},
    CommandSpec{"watch", -2, kNoScript | kNotQueued, cmd_watch},
};

constexpr bool table_is_sorted() {
  for (size_t i = 1; i < kCommands.size(); ++i)
    if (!(kCommands[i - 1].name < kCommands[i].name)) return false;
  return true;
}
static_assert(table_is_sorted(), "kCommands must be sorted by name");

struct Subcommand {
  std::string_view name;
  int arity;
};
constexpr std::array kScriptSubcommands = {
    Subcommand{"debug", 3},
    Subcommand{"exists", -3},
    Subcommand{"flush", -2},
    Subcommand{"help", 2},
    Subcommand{"kill", 2},
    Subcommand{"load", 3},
};
}  // namespace

const CommandSpec* find_command(std::string_view name) {
  char buffer[16];
  std::string_view lower;
  if (!to_lower(name, buffer, sizeof buffer, lower)) return nullptr;
  auto it = std::lower_bound(kCommands.begin(), kCommands.end(), lower,
                             [](const CommandSpec& spec, std::string_view n) { return spec.name < n; });
  if (it == kCommands.end() || it->name != lower) return nullptr;
  return &*it;
}

Reply unknown_command_error(const Command& command) {
  // networking.c: each argument quoted, at most ~128 bytes of them, CR/LF made spaces.
  std::string args;
  for (size_t i = 1; i < command.size() && args.size() < 128; ++i) {
    size_t room = 128 - args.size();
    std::string_view arg = command[i];
    arg = arg.substr(0, std::min(room, arg.find('\0') == std::string_view::npos ? arg.size() : arg.find('\0')));
    args += '\'';
    args += arg;
    args += "' ";
  }
  std::string_view name = command.empty() ? std::string_view{} : std::string_view(command[0]);
  name = name.substr(0, std::min(name.size(), name.find('\0')));
  std::string text = "ERR unknown command '" + std::string(name.substr(0, 128)) +
                     "', with args beginning with: " + args;
  for (char& c : text)
    if (c == '\r' || c == '\n') c = ' ';
  return Reply::error(std::move(text));
}

std::optional<Reply> check_subcommand(const CommandSpec& spec, const Command& command) {
  if (spec.name != "script") return std::nullopt;
  char buffer[16];
  std::string_view lower;
  const Subcommand* found = nullptr;
  if (to_lower(command[1], buffer, sizeof buffer, lower)) {
    for (const Subcommand& sub : kScriptSubcommands)
      if (sub.name == lower) found = &sub;
  }
  if (!found) {
    std::string text = "ERR unknown subcommand '" + command[1].substr(0, 128) + "'. Try SCRIPT HELP.";
    for (char& c : text)
      if (c == '\r' || c == '\n') c = ' ';
    return Reply::error(std::move(text));
  }
  if (!arity_matches(found->arity, command.size()))
    return arity_error(std::string(spec.name) + "|" + std::string(found->name));
  return std::nullopt;
}

}  // namespace locksim::redis
