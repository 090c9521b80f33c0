#pragma once
// The command table: names, arities and flags as Redis 7.0 declares them (internal).
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "locksim/sim/redis/server_state.hpp"

namespace locksim::redis {

using CommandHandler = Reply (*)(ExecContext&, const Command&);

enum CommandFlag : uint32_t {
  kNoScript = 1u << 0,     // refused inside EVAL ("not allowed from script")
  kNotQueued = 1u << 1,    // runs at once even inside MULTI (MULTI, EXEC, DISCARD, WATCH)
  kWrite = 1u << 2,        // refused by read-only scripts (EVAL_RO, flags=no-writes)
  kSubcommands = 1u << 3,  // has a subcommand table (check_subcommand)
  kWalksValues = 1u << 4,  // walks whole values it names (SUNIONSTORE, LREM, DEL): a script pays their size
  kDenyOom = 1u << 5,      // Redis's CMD_DENYOOM: may add data, refused over maxmemory (set from kDenyOomNames)
};

struct CommandSpec {
  std::string_view name;  // lowercase
  int arity;              // Redis convention: n exact, -n at least n
  uint32_t flags;
  CommandHandler handler;
  uint16_t slot = 0;  // its place in all_commands() (set with the table)
};

const CommandSpec* find_command(std::string_view name);  // case-insensitive
std::span<const CommandSpec> all_commands();             // the whole table, sorted by name
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
LOCKSIM_REDIS_HANDLER(cmd_config);
LOCKSIM_REDIS_HANDLER(cmd_info);
LOCKSIM_REDIS_HANDLER(cmd_debug);
LOCKSIM_REDIS_HANDLER(cmd_client);
// commands_pubsub.cpp
LOCKSIM_REDIS_HANDLER(cmd_publish);
LOCKSIM_REDIS_HANDLER(cmd_subscribe);
LOCKSIM_REDIS_HANDLER(cmd_unsubscribe);
LOCKSIM_REDIS_HANDLER(cmd_psubscribe);
LOCKSIM_REDIS_HANDLER(cmd_punsubscribe);
LOCKSIM_REDIS_HANDLER(cmd_pubsub);
// commands_db.cpp
LOCKSIM_REDIS_HANDLER(cmd_select);
LOCKSIM_REDIS_HANDLER(cmd_move);
LOCKSIM_REDIS_HANDLER(cmd_swapdb);
LOCKSIM_REDIS_HANDLER(cmd_copy);
LOCKSIM_REDIS_HANDLER(cmd_rename);
LOCKSIM_REDIS_HANDLER(cmd_renamenx);
LOCKSIM_REDIS_HANDLER(cmd_randomkey);
LOCKSIM_REDIS_HANDLER(cmd_scan);
LOCKSIM_REDIS_HANDLER(cmd_touch);
LOCKSIM_REDIS_HANDLER(cmd_object);
// commands_string_more.cpp
LOCKSIM_REDIS_HANDLER(cmd_mset);
LOCKSIM_REDIS_HANDLER(cmd_msetnx);
LOCKSIM_REDIS_HANDLER(cmd_getrange);
LOCKSIM_REDIS_HANDLER(cmd_setrange);
LOCKSIM_REDIS_HANDLER(cmd_getbit);
LOCKSIM_REDIS_HANDLER(cmd_setbit);
LOCKSIM_REDIS_HANDLER(cmd_bitcount);
LOCKSIM_REDIS_HANDLER(cmd_incrbyfloat);
// commands_hash_more.cpp
LOCKSIM_REDIS_HANDLER(cmd_hincrbyfloat);
LOCKSIM_REDIS_HANDLER(cmd_hstrlen);
LOCKSIM_REDIS_HANDLER(cmd_hrandfield);
LOCKSIM_REDIS_HANDLER(cmd_hscan);
LOCKSIM_REDIS_HANDLER(cmd_sscan);
LOCKSIM_REDIS_HANDLER(cmd_zscan);
// commands_list.cpp
LOCKSIM_REDIS_HANDLER(cmd_lpush);
LOCKSIM_REDIS_HANDLER(cmd_rpush);
LOCKSIM_REDIS_HANDLER(cmd_lpushx);
LOCKSIM_REDIS_HANDLER(cmd_rpushx);
LOCKSIM_REDIS_HANDLER(cmd_lpop);
LOCKSIM_REDIS_HANDLER(cmd_rpop);
LOCKSIM_REDIS_HANDLER(cmd_lrange);
LOCKSIM_REDIS_HANDLER(cmd_lindex);
LOCKSIM_REDIS_HANDLER(cmd_llen);
LOCKSIM_REDIS_HANDLER(cmd_lrem);
LOCKSIM_REDIS_HANDLER(cmd_lset);
LOCKSIM_REDIS_HANDLER(cmd_ltrim);
LOCKSIM_REDIS_HANDLER(cmd_lpos);
LOCKSIM_REDIS_HANDLER(cmd_linsert);
LOCKSIM_REDIS_HANDLER(cmd_lmove);
LOCKSIM_REDIS_HANDLER(cmd_rpoplpush);
LOCKSIM_REDIS_HANDLER(cmd_blpop);
LOCKSIM_REDIS_HANDLER(cmd_brpop);
LOCKSIM_REDIS_HANDLER(cmd_blmove);
LOCKSIM_REDIS_HANDLER(cmd_brpoplpush);
// commands_set.cpp
LOCKSIM_REDIS_HANDLER(cmd_sadd);
LOCKSIM_REDIS_HANDLER(cmd_srem);
LOCKSIM_REDIS_HANDLER(cmd_sismember);
LOCKSIM_REDIS_HANDLER(cmd_smismember);
LOCKSIM_REDIS_HANDLER(cmd_smembers);
LOCKSIM_REDIS_HANDLER(cmd_scard);
LOCKSIM_REDIS_HANDLER(cmd_spop);
LOCKSIM_REDIS_HANDLER(cmd_srandmember);
LOCKSIM_REDIS_HANDLER(cmd_smove);
LOCKSIM_REDIS_HANDLER(cmd_sinter);
LOCKSIM_REDIS_HANDLER(cmd_sunion);
LOCKSIM_REDIS_HANDLER(cmd_sdiff);
LOCKSIM_REDIS_HANDLER(cmd_sinterstore);
LOCKSIM_REDIS_HANDLER(cmd_sunionstore);
LOCKSIM_REDIS_HANDLER(cmd_sdiffstore);
LOCKSIM_REDIS_HANDLER(cmd_sintercard);
// commands_zset.cpp
LOCKSIM_REDIS_HANDLER(cmd_zadd);
LOCKSIM_REDIS_HANDLER(cmd_zincrby);
LOCKSIM_REDIS_HANDLER(cmd_zrem);
LOCKSIM_REDIS_HANDLER(cmd_zscore);
LOCKSIM_REDIS_HANDLER(cmd_zmscore);
LOCKSIM_REDIS_HANDLER(cmd_zrandmember);
LOCKSIM_REDIS_HANDLER(cmd_zcard);
LOCKSIM_REDIS_HANDLER(cmd_zcount);
LOCKSIM_REDIS_HANDLER(cmd_zlexcount);
LOCKSIM_REDIS_HANDLER(cmd_zrank);
LOCKSIM_REDIS_HANDLER(cmd_zrevrank);
LOCKSIM_REDIS_HANDLER(cmd_zrange);
LOCKSIM_REDIS_HANDLER(cmd_zrangestore);
LOCKSIM_REDIS_HANDLER(cmd_zrevrange);
LOCKSIM_REDIS_HANDLER(cmd_zrangebyscore);
LOCKSIM_REDIS_HANDLER(cmd_zrevrangebyscore);
LOCKSIM_REDIS_HANDLER(cmd_zrangebylex);
LOCKSIM_REDIS_HANDLER(cmd_zrevrangebylex);
LOCKSIM_REDIS_HANDLER(cmd_zremrangebyscore);
LOCKSIM_REDIS_HANDLER(cmd_zremrangebyrank);
LOCKSIM_REDIS_HANDLER(cmd_zremrangebylex);
LOCKSIM_REDIS_HANDLER(cmd_zpopmin);
LOCKSIM_REDIS_HANDLER(cmd_zpopmax);
LOCKSIM_REDIS_HANDLER(cmd_bzpopmin);
LOCKSIM_REDIS_HANDLER(cmd_bzpopmax);
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
LOCKSIM_REDIS_HANDLER(cmd_eval_ro);
LOCKSIM_REDIS_HANDLER(cmd_evalsha_ro);
// functions.cpp
LOCKSIM_REDIS_HANDLER(cmd_function);
LOCKSIM_REDIS_HANDLER(cmd_fcall);
LOCKSIM_REDIS_HANDLER(cmd_fcall_ro);
// commands_mpop.cpp
LOCKSIM_REDIS_HANDLER(cmd_lmpop);
LOCKSIM_REDIS_HANDLER(cmd_blmpop);
LOCKSIM_REDIS_HANDLER(cmd_zmpop);
LOCKSIM_REDIS_HANDLER(cmd_bzmpop);
// commands_zset_ops.cpp
LOCKSIM_REDIS_HANDLER(cmd_zunion);
LOCKSIM_REDIS_HANDLER(cmd_zinter);
LOCKSIM_REDIS_HANDLER(cmd_zdiff);
LOCKSIM_REDIS_HANDLER(cmd_zunionstore);
LOCKSIM_REDIS_HANDLER(cmd_zinterstore);
LOCKSIM_REDIS_HANDLER(cmd_zdiffstore);
LOCKSIM_REDIS_HANDLER(cmd_zintercard);
// commands_lcs.cpp
LOCKSIM_REDIS_HANDLER(cmd_lcs);
// commands_sort.cpp
LOCKSIM_REDIS_HANDLER(cmd_sort);
LOCKSIM_REDIS_HANDLER(cmd_sort_ro);
// commands_dump.cpp
LOCKSIM_REDIS_HANDLER(cmd_dump);
LOCKSIM_REDIS_HANDLER(cmd_restore);
// commands_wait.cpp
LOCKSIM_REDIS_HANDLER(cmd_wait);
#undef LOCKSIM_REDIS_HANDLER

}  // namespace locksim::redis
