#pragma once
// The command table: names, arities and flags as Redis 7.0 declares them (internal).
#include <cstdint>
#include <optional>
#include <string_view>

#include "sim/redis/server_state.hpp"

namespace locksim::redis {

using CommandHandler = Reply (*)(ExecContext&, const Command&);

enum CommandFlag : uint32_t {
  kNoScript = 1u << 0,   // refused inside EVAL ("not allowed from script")
  kNotQueued = 1u << 1,  // runs at once even inside MULTI (MULTI, EXEC, DISCARD, WATCH)
};

struct CommandSpec {
  std::string_view name;  // lowercase
  int arity;              // Redis convention: n exact, -n at least n
  uint32_t flags;
  CommandHandler handler;
};

const CommandSpec* find_command(std::string_view name);  // case-insensitive
inline bool arity_matches(int arity, size_t argc) {
  return arity >= 0 ? argc == static_cast<size_t>(arity) : argc >= static_cast<size_t>(-arity);
}
// "ERR unknown command 'x', with args beginning with: 'a' 'b' "
Reply unknown_command_error(const Command& command);
// For commands with subcommands (SCRIPT): Redis rejects an unknown subcommand or a
// wrong arity before the command runs (and a MULTI queue is then aborted).
std::optional<Reply> check_subcommand(const CommandSpec& spec, const Command& command);

// Handlers, one group per file.
#define LOCKSIM_REDIS_HANDLER(name) Reply name(ExecContext& ctx, const Command& argv)
// commands_string.cpp
LOCKSIM_REDIS_HANDLER(cmd_get);
LOCKSIM_REDIS_HANDLER(cmd_set);
LOCKSIM_REDIS_HANDLER(cmd_setnx);
LOCKSIM_REDIS_HANDLER(cmd_setex);
LOCKSIM_REDIS_HANDLER(cmd_psetex);
LOCKSIM_REDIS_HANDLER(cmd_getset);
LOCKSIM_REDIS_HANDLER(cmd_getdel);
LOCKSIM_REDIS_HANDLER(cmd_getex);
LOCKSIM_REDIS_HANDLER(cmd_mget);
LOCKSIM_REDIS_HANDLER(cmd_incr);
LOCKSIM_REDIS_HANDLER(cmd_incrby);
LOCKSIM_REDIS_HANDLER(cmd_decr);
LOCKSIM_REDIS_HANDLER(cmd_decrby);
LOCKSIM_REDIS_HANDLER(cmd_append);
LOCKSIM_REDIS_HANDLER(cmd_strlen);
// commands_keys.cpp
LOCKSIM_REDIS_HANDLER(cmd_del);
LOCKSIM_REDIS_HANDLER(cmd_exists);
LOCKSIM_REDIS_HANDLER(cmd_type);
LOCKSIM_REDIS_HANDLER(cmd_expire);
LOCKSIM_REDIS_HANDLER(cmd_pexpire);
LOCKSIM_REDIS_HANDLER(cmd_expireat);
LOCKSIM_REDIS_HANDLER(cmd_pexpireat);
LOCKSIM_REDIS_HANDLER(cmd_ttl);
LOCKSIM_REDIS_HANDLER(cmd_pttl);
LOCKSIM_REDIS_HANDLER(cmd_expiretime);
LOCKSIM_REDIS_HANDLER(cmd_pexpiretime);
LOCKSIM_REDIS_HANDLER(cmd_persist);
LOCKSIM_REDIS_HANDLER(cmd_keys);
LOCKSIM_REDIS_HANDLER(cmd_dbsize);
LOCKSIM_REDIS_HANDLER(cmd_flushall);
// commands_hash.cpp
LOCKSIM_REDIS_HANDLER(cmd_hset);
LOCKSIM_REDIS_HANDLER(cmd_hmset);
LOCKSIM_REDIS_HANDLER(cmd_hsetnx);
LOCKSIM_REDIS_HANDLER(cmd_hget);
LOCKSIM_REDIS_HANDLER(cmd_hdel);
LOCKSIM_REDIS_HANDLER(cmd_hexists);
LOCKSIM_REDIS_HANDLER(cmd_hincrby);
LOCKSIM_REDIS_HANDLER(cmd_hgetall);
LOCKSIM_REDIS_HANDLER(cmd_hkeys);
LOCKSIM_REDIS_HANDLER(cmd_hvals);
LOCKSIM_REDIS_HANDLER(cmd_hlen);
LOCKSIM_REDIS_HANDLER(cmd_hmget);
// commands_server.cpp
LOCKSIM_REDIS_HANDLER(cmd_ping);
LOCKSIM_REDIS_HANDLER(cmd_echo);
LOCKSIM_REDIS_HANDLER(cmd_time);
LOCKSIM_REDIS_HANDLER(cmd_publish);
// transactions.cpp
LOCKSIM_REDIS_HANDLER(cmd_multi);
LOCKSIM_REDIS_HANDLER(cmd_exec);
LOCKSIM_REDIS_HANDLER(cmd_discard);
LOCKSIM_REDIS_HANDLER(cmd_watch);
LOCKSIM_REDIS_HANDLER(cmd_unwatch);
// scripting.cpp
LOCKSIM_REDIS_HANDLER(cmd_eval);
LOCKSIM_REDIS_HANDLER(cmd_evalsha);
LOCKSIM_REDIS_HANDLER(cmd_script);
#undef LOCKSIM_REDIS_HANDLER

}  // namespace locksim::redis
