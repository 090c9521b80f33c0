#include "locksim/sim/redis/command_table.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <type_traits>

#include "locksim/sim/redis/arguments.hpp"

namespace locksim::redis {

namespace {
// Redis's CMD_DENYOOM commands (those the model has, and the ones it may gain): over
// maxmemory they are refused (memory.hpp). Marked in the table at compile time, so the
// check before every command is one flag test.
constexpr std::string_view kDenyOomNames[] = {
    "append", "bitop",       "copy",       "getset",      "hincrby",     "hincrbyfloat", "hmset",     "hset",
    "hsetnx", "incr",        "incrby",     "incrbyfloat", "decr",        "decrby",       "linsert",   "lmove",
    "lpush",  "lpushx",      "lset",       "mset",        "msetnx",      "psetex",       "rpoplpush", "rpush",
    "rpushx", "sadd",        "sdiffstore", "set",         "setex",       "setnx",        "setrange",  "sinterstore",
    "smove",  "sunionstore", "zadd",       "zincrby",     "zunionstore", "zinterstore",  "restore",   "pfadd"};

template <size_t N>
constexpr std::array<CommandSpec, N> with_deny_oom(std::array<CommandSpec, N> table) {
  for (size_t i = 0; i < N; ++i) {
    table[i].slot = static_cast<uint16_t>(i);
    for (std::string_view name : kDenyOomNames)
      if (table[i].name == name) table[i].flags |= kDenyOom;
  }
  return table;
}

// Sorted by name for binary search; arities from Redis 7.0's command table.
constexpr std::array kCommands = with_deny_oom(std::array{
    CommandSpec{"append", 3, kWrite, cmd_append},
    CommandSpec{"bitcount", -2, kWalksValues, cmd_bitcount},
    // Blocking commands that Redis 7.0 flags noscript (BLMPOP and BZMPOP it does not).
    CommandSpec{"blmove", 6, kWrite | kNoScript, cmd_blmove},
    CommandSpec{"blmpop", -5, kWrite, cmd_blmpop},
    CommandSpec{"blpop", -3, kWrite | kNoScript, cmd_blpop},
    CommandSpec{"brpop", -3, kWrite | kNoScript, cmd_brpop},
    CommandSpec{"brpoplpush", 4, kWrite | kNoScript, cmd_brpoplpush},
    CommandSpec{"bzmpop", -5, kWrite, cmd_bzmpop},
    CommandSpec{"bzpopmax", -3, kWrite | kNoScript, cmd_bzpopmax},
    CommandSpec{"bzpopmin", -3, kWrite | kNoScript, cmd_bzpopmin},
    CommandSpec{"client", -2, kNoScript | kSubcommands, cmd_client},
    CommandSpec{"config", -2, kNoScript | kSubcommands, cmd_config},
    CommandSpec{"copy", -3, kWrite | kWalksValues, cmd_copy},
    CommandSpec{"dbsize", 1, 0, cmd_dbsize},
    CommandSpec{"debug", -2, kNoScript, cmd_debug},
    CommandSpec{"decr", 2, kWrite, cmd_decr},
    CommandSpec{"decrby", 3, kWrite, cmd_decrby},
    CommandSpec{"del", -2, kWrite | kWalksValues, cmd_del},
    CommandSpec{"discard", 1, kNoScript | kNotQueued, cmd_discard},
    CommandSpec{"dump", 2, kWalksValues, cmd_dump},
    CommandSpec{"echo", 2, 0, cmd_echo},
    CommandSpec{"eval", -3, kNoScript, cmd_eval},
    CommandSpec{"eval_ro", -3, kNoScript, cmd_eval_ro},
    CommandSpec{"evalsha", -3, kNoScript, cmd_evalsha},
    CommandSpec{"evalsha_ro", -3, kNoScript, cmd_evalsha_ro},
    CommandSpec{"exec", 1, kNoScript | kNotQueued, cmd_exec},
    CommandSpec{"exists", -2, 0, cmd_exists},
    CommandSpec{"expire", -3, kWrite, cmd_expire},
    CommandSpec{"expireat", -3, kWrite, cmd_expireat},
    CommandSpec{"expiretime", 2, 0, cmd_expiretime},
    CommandSpec{"fcall", -3, kNoScript, cmd_fcall},
    CommandSpec{"fcall_ro", -3, kNoScript, cmd_fcall_ro},
    CommandSpec{"flushall", -1, kWrite | kWalksValues, cmd_flushall},
    CommandSpec{"flushdb", -1, kWrite | kWalksValues, cmd_flushall},
    CommandSpec{"function", -2, kNoScript | kSubcommands, cmd_function},
    CommandSpec{"get", 2, 0, cmd_get},
    CommandSpec{"getbit", 3, 0, cmd_getbit},
    CommandSpec{"getdel", 2, kWrite, cmd_getdel},
    CommandSpec{"getex", -2, kWrite, cmd_getex},
    CommandSpec{"getrange", 4, 0, cmd_getrange},
    CommandSpec{"getset", 3, kWrite, cmd_getset},
    CommandSpec{"hdel", -3, kWrite, cmd_hdel},
    CommandSpec{"hexists", 3, 0, cmd_hexists},
    CommandSpec{"hget", 3, 0, cmd_hget},
    CommandSpec{"hgetall", 2, 0, cmd_hgetall},
    CommandSpec{"hincrby", 4, kWrite, cmd_hincrby},
    CommandSpec{"hincrbyfloat", 4, kWrite, cmd_hincrbyfloat},
    CommandSpec{"hkeys", 2, 0, cmd_hkeys},
    CommandSpec{"hlen", 2, 0, cmd_hlen},
    CommandSpec{"hmget", -3, 0, cmd_hmget},
    CommandSpec{"hmset", -4, kWrite, cmd_hmset},
    CommandSpec{"hrandfield", -2, 0, cmd_hrandfield},
    CommandSpec{"hscan", -3, 0, cmd_hscan},
    CommandSpec{"hset", -4, kWrite, cmd_hset},
    CommandSpec{"hsetnx", 4, kWrite, cmd_hsetnx},
    CommandSpec{"hstrlen", 3, 0, cmd_hstrlen},
    CommandSpec{"hvals", 2, 0, cmd_hvals},
    CommandSpec{"incr", 2, kWrite, cmd_incr},
    CommandSpec{"incrby", 3, kWrite, cmd_incrby},
    CommandSpec{"incrbyfloat", 3, kWrite, cmd_incrbyfloat},
    CommandSpec{"info", -1, 0, cmd_info},
    CommandSpec{"keys", 2, kWalksValues, cmd_keys},
    CommandSpec{"lcs", -3, kWalksValues, cmd_lcs},
    CommandSpec{"lindex", 3, kWalksValues, cmd_lindex},
    CommandSpec{"linsert", 5, kWrite | kWalksValues, cmd_linsert},
    CommandSpec{"llen", 2, 0, cmd_llen},
    CommandSpec{"lmove", 5, kWrite, cmd_lmove},
    CommandSpec{"lmpop", -4, kWrite, cmd_lmpop},
    CommandSpec{"lpop", -2, kWrite, cmd_lpop},
    CommandSpec{"lpos", -3, kWalksValues, cmd_lpos},
    CommandSpec{"lpush", -3, kWrite, cmd_lpush},
    CommandSpec{"lpushx", -3, kWrite, cmd_lpushx},
    CommandSpec{"lrange", 4, 0, cmd_lrange},
    CommandSpec{"lrem", 4, kWrite | kWalksValues, cmd_lrem},
    CommandSpec{"lset", 4, kWrite | kWalksValues, cmd_lset},
    CommandSpec{"ltrim", 4, kWrite | kWalksValues, cmd_ltrim},
    CommandSpec{"mget", -2, 0, cmd_mget},
    CommandSpec{"move", 3, kWrite, cmd_move},
    CommandSpec{"mset", -3, kWrite, cmd_mset},
    CommandSpec{"msetnx", -3, kWrite, cmd_msetnx},
    CommandSpec{"multi", 1, kNoScript | kNotQueued, cmd_multi},
    CommandSpec{"object", -2, kSubcommands, cmd_object},
    CommandSpec{"persist", 2, kWrite, cmd_persist},
    CommandSpec{"pexpire", -3, kWrite, cmd_pexpire},
    CommandSpec{"pexpireat", -3, kWrite, cmd_pexpireat},
    CommandSpec{"pexpiretime", 2, 0, cmd_pexpiretime},
    CommandSpec{"ping", -1, 0, cmd_ping},
    CommandSpec{"psetex", 4, kWrite, cmd_psetex},
    CommandSpec{"psubscribe", -2, kNoScript, cmd_psubscribe},
    CommandSpec{"pttl", 2, 0, cmd_pttl},
    CommandSpec{"publish", 3, kWrite, cmd_publish},
    CommandSpec{"pubsub", -2, kSubcommands, cmd_pubsub},
    CommandSpec{"punsubscribe", -1, kNoScript, cmd_punsubscribe},
    CommandSpec{"randomkey", 1, 0, cmd_randomkey},
    CommandSpec{"rename", 3, kWrite, cmd_rename},
    CommandSpec{"renamenx", 3, kWrite, cmd_renamenx},
    CommandSpec{"restore", -4, kWrite, cmd_restore},
    CommandSpec{"rpop", -2, kWrite, cmd_rpop},
    CommandSpec{"rpoplpush", 3, kWrite, cmd_rpoplpush},
    CommandSpec{"rpush", -3, kWrite, cmd_rpush},
    CommandSpec{"rpushx", -3, kWrite, cmd_rpushx},
    CommandSpec{"sadd", -3, kWrite, cmd_sadd},
    CommandSpec{"scan", -2, 0, cmd_scan},
    CommandSpec{"scard", 2, 0, cmd_scard},
    CommandSpec{"script", -2, kNoScript | kSubcommands, cmd_script},
    CommandSpec{"sdiff", -2, kWalksValues, cmd_sdiff},
    CommandSpec{"sdiffstore", -3, kWrite | kWalksValues, cmd_sdiffstore},
    CommandSpec{"select", 2, 0, cmd_select},
    CommandSpec{"set", -3, kWrite, cmd_set},
    CommandSpec{"setbit", 4, kWrite, cmd_setbit},
    CommandSpec{"setex", 4, kWrite, cmd_setex},
    CommandSpec{"setnx", 3, kWrite, cmd_setnx},
    CommandSpec{"setrange", 4, kWrite, cmd_setrange},
    CommandSpec{"sinter", -2, kWalksValues, cmd_sinter},
    CommandSpec{"sintercard", -3, kWalksValues, cmd_sintercard},
    CommandSpec{"sinterstore", -3, kWrite | kWalksValues, cmd_sinterstore},
    CommandSpec{"sismember", 3, 0, cmd_sismember},
    CommandSpec{"smembers", 2, 0, cmd_smembers},
    CommandSpec{"smismember", -3, 0, cmd_smismember},
    CommandSpec{"smove", 4, kWrite, cmd_smove},
    CommandSpec{"sort", -2, kWrite | kWalksValues, cmd_sort},
    CommandSpec{"sort_ro", -2, kWalksValues, cmd_sort_ro},
    CommandSpec{"spop", -2, kWrite, cmd_spop},
    CommandSpec{"srandmember", -2, 0, cmd_srandmember},
    CommandSpec{"srem", -3, kWrite, cmd_srem},
    CommandSpec{"sscan", -3, 0, cmd_sscan},
    CommandSpec{"strlen", 2, 0, cmd_strlen},
    CommandSpec{"subscribe", -2, kNoScript, cmd_subscribe},
    CommandSpec{"substr", 4, 0, cmd_getrange},
    CommandSpec{"sunion", -2, kWalksValues, cmd_sunion},
    CommandSpec{"sunionstore", -3, kWrite | kWalksValues, cmd_sunionstore},
    CommandSpec{"swapdb", 3, kWrite, cmd_swapdb},
    CommandSpec{"time", 1, 0, cmd_time},
    CommandSpec{"touch", -2, 0, cmd_touch},
    CommandSpec{"ttl", 2, 0, cmd_ttl},
    CommandSpec{"type", 2, 0, cmd_type},
    CommandSpec{"unlink", -2, kWrite | kWalksValues, cmd_del},
    CommandSpec{"unsubscribe", -1, kNoScript, cmd_unsubscribe},
    CommandSpec{"unwatch", 1, kNoScript, cmd_unwatch},
    CommandSpec{"wait", 3, kNoScript, cmd_wait},
    CommandSpec{"watch", -2, kNoScript | kNotQueued, cmd_watch},
    CommandSpec{"zadd", -4, kWrite, cmd_zadd},
    CommandSpec{"zcard", 2, 0, cmd_zcard},
    CommandSpec{"zcount", 4, 0, cmd_zcount},
    CommandSpec{"zdiff", -3, kWalksValues, cmd_zdiff},
    CommandSpec{"zdiffstore", -4, kWrite | kWalksValues, cmd_zdiffstore},
    CommandSpec{"zincrby", 4, kWrite, cmd_zincrby},
    CommandSpec{"zinter", -3, kWalksValues, cmd_zinter},
    CommandSpec{"zintercard", -3, kWalksValues, cmd_zintercard},
    CommandSpec{"zinterstore", -4, kWrite | kWalksValues, cmd_zinterstore},
    CommandSpec{"zlexcount", 4, 0, cmd_zlexcount},
    CommandSpec{"zmpop", -4, kWrite, cmd_zmpop},
    CommandSpec{"zmscore", -3, 0, cmd_zmscore},
    CommandSpec{"zpopmax", -2, kWrite, cmd_zpopmax},
    CommandSpec{"zpopmin", -2, kWrite, cmd_zpopmin},
    CommandSpec{"zrandmember", -2, 0, cmd_zrandmember},
    CommandSpec{"zrange", -4, 0, cmd_zrange},
    CommandSpec{"zrangebylex", -4, 0, cmd_zrangebylex},
    CommandSpec{"zrangebyscore", -4, 0, cmd_zrangebyscore},
    CommandSpec{"zrangestore", -5, kWrite | kWalksValues, cmd_zrangestore},
    CommandSpec{"zrank", 3, 0, cmd_zrank},
    CommandSpec{"zrem", -3, kWrite, cmd_zrem},
    CommandSpec{"zremrangebylex", 4, kWrite | kWalksValues, cmd_zremrangebylex},
    CommandSpec{"zremrangebyrank", 4, kWrite | kWalksValues, cmd_zremrangebyrank},
    CommandSpec{"zremrangebyscore", 4, kWrite | kWalksValues, cmd_zremrangebyscore},
    CommandSpec{"zrevrange", -4, 0, cmd_zrevrange},
    CommandSpec{"zrevrangebylex", -4, 0, cmd_zrevrangebylex},
    CommandSpec{"zrevrangebyscore", -4, 0, cmd_zrevrangebyscore},
    CommandSpec{"zrevrank", 3, 0, cmd_zrevrank},
    CommandSpec{"zscan", -3, 0, cmd_zscan},
    CommandSpec{"zscore", 3, 0, cmd_zscore},
    CommandSpec{"zunion", -3, kWalksValues, cmd_zunion},
    CommandSpec{"zunionstore", -4, kWrite | kWalksValues, cmd_zunionstore},
});

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
constexpr Subcommand kScriptSubcommands[] = {
    {"debug", 3}, {"exists", -3}, {"flush", -2}, {"help", 2}, {"kill", 2}, {"load", 3},
};
constexpr Subcommand kObjectSubcommands[] = {
    {"encoding", 3}, {"freq", 3}, {"help", 2}, {"idletime", 3}, {"refcount", 3},
};
constexpr Subcommand kConfigSubcommands[] = {
    {"get", -3}, {"help", 2}, {"resetstat", 2}, {"rewrite", 2}, {"set", -4},
};
constexpr Subcommand kClientSubcommands[] = {
    {"getname", 2}, {"help", 2}, {"id", 2}, {"setname", 3}, {"unblock", -3},
};
constexpr Subcommand kFunctionSubcommands[] = {
    {"delete", 3}, {"dump", 2},  {"flush", -2},   {"help", 2},  {"kill", 2},
    {"list", -2},  {"load", -3}, {"restore", -3}, {"stats", 2},
};
constexpr Subcommand kPubsubSubcommands[] = {
    {"channels", -2}, {"help", 2}, {"numpat", 2}, {"numsub", -2}, {"shardchannels", -2}, {"shardnumsub", -2},
};

struct SubcommandTable {
  std::string_view command, shown;
  const Subcommand* begin;
  size_t size;
};
template <size_t N>
constexpr SubcommandTable table(std::string_view command, std::string_view shown, const Subcommand (&subs)[N]) {
  return SubcommandTable{command, shown, subs, N};
}
constexpr SubcommandTable kSubcommandTables[] = {
    table("script", "SCRIPT", kScriptSubcommands), table("object", "OBJECT", kObjectSubcommands),
    table("config", "CONFIG", kConfigSubcommands), table("client", "CLIENT", kClientSubcommands),
    table("pubsub", "PUBSUB", kPubsubSubcommands), table("function", "FUNCTION", kFunctionSubcommands),
};
}  // namespace

namespace {
// A command name of at most 16 bytes as two little-endian words, ASCII-lowercased
// (names are case-insensitive): a lookup hashes and compares two words, not bytes.
struct PackedName {
  uint64_t lo = 0, hi = 0;
  bool operator==(const PackedName&) const = default;
};
constexpr size_t kLongestName = 16;

template <class Word>
Word load_word(const char* at) {
  Word word;
  std::memcpy(&word, at, sizeof word);
  return word;
}

// Up to 8 bytes as a little-endian word, zero above them, in at most two loads (the two
// may overlap: they read the same bytes into the same places).
[[gnu::always_inline]] inline uint64_t load_bytes(const char* at, size_t n) {
  static_assert(std::endian::native == std::endian::little);
  if (n >= 8) return load_word<uint64_t>(at);
  if (n >= 4) return load_word<uint32_t>(at) | uint64_t{load_word<uint32_t>(at + n - 4)} << (8 * (n - 4));
  if (n >= 2) return load_word<uint16_t>(at) | uint64_t{load_word<uint16_t>(at + n - 2)} << (8 * (n - 2));
  return n == 1 ? uint64_t{static_cast<unsigned char>(at[0])} : 0;
}

constexpr PackedName pack_name(std::string_view name) {
  PackedName p;
  if (std::is_constant_evaluated()) {  // building the index
    for (size_t i = 0; i < name.size() && i < 8; ++i) p.lo |= uint64_t{static_cast<unsigned char>(name[i])} << (8 * i);
    for (size_t i = 8; i < name.size(); ++i) p.hi |= uint64_t{static_cast<unsigned char>(name[i])} << (8 * (i - 8));
  } else {  // every command: a byte at a time was most of a lookup
    p.lo = load_bytes(name.data(), std::min<size_t>(name.size(), 8));
    if (name.size() > 8) p.hi = load_bytes(name.data() + 8, name.size() - 8);
  }
  p.lo = ascii_lower_word(p.lo);
  p.hi = ascii_lower_word(p.hi);
  return p;
}

constexpr bool names_fit() {
  for (const CommandSpec& spec : kCommands)
    if (spec.name.size() > kLongestName) return false;
  return true;
}
static_assert(names_fit(), "command names are packed into 16 bytes");

// Command names hashed into an open-addressed table, built once: a lookup packs the name
// (lowercasing a word at a time), hashes the two words and, almost always, compares once.
// Packing is one-to-one for a given length, so equal words and length mean equal names.
// Built at compile time: no guard at each lookup, no order of static initialisation.
class CommandIndex {
 public:
  constexpr CommandIndex() {
    for (uint16_t i = 0; i < kCommands.size(); ++i) {
      const PackedName name = pack_name(kCommands[i].name);
      size_t slot = hash(name) & kMask;
      while (slots_[slot].index != 0) slot = (slot + 1) & kMask;
      slots_[slot] = {name, static_cast<uint16_t>(i + 1)};
    }
  }
  const CommandSpec* find(std::string_view name) const {
    if (name.size() > kLongestName) return nullptr;
    const PackedName packed = pack_name(name);
    for (size_t slot = hash(packed) & kMask; slots_[slot].index != 0; slot = (slot + 1) & kMask) {
      const Slot& s = slots_[slot];
      if (s.name == packed) {
        const CommandSpec& spec = kCommands[s.index - 1u];
        if (spec.name.size() == name.size()) return &spec;
      }
    }
    return nullptr;
  }

 private:
  static constexpr size_t kSlots = 1024, kMask = kSlots - 1;  // at most half full
  static_assert(kCommands.size() * 2 <= kSlots);
  static constexpr size_t hash(const PackedName& name) {
    const uint64_t h = (name.lo * 0x9E3779B97F4A7C15ULL) ^ (name.hi * 0xC2B2AE3D27D4EB4FULL);
    return static_cast<size_t>(h ^ (h >> 31));
  }
  struct Slot {
    PackedName name;
    uint16_t index = 0;  // into kCommands + 1; 0 = empty
  };
  Slot slots_[kSlots] = {};
};
constexpr CommandIndex command_index;
}  // namespace

const CommandSpec* find_command(std::string_view name) { return command_index.find(name); }

std::span<const CommandSpec> all_commands() { return kCommands; }

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
  std::string text =
      "ERR unknown command '" + std::string(name.substr(0, 128)) + "', with args beginning with: " + args;
  for (char& c : text)
    if (c == '\r' || c == '\n') c = ' ';
  return Reply::error(std::move(text));
}

std::optional<Reply> check_subcommand(const CommandSpec& spec, const Command& command) {
  const SubcommandTable* subs = nullptr;
  for (const SubcommandTable& t : kSubcommandTables)
    if (t.command == spec.name) subs = &t;
  if (!subs) return std::nullopt;
  char buffer[16];
  std::string_view lower;
  const Subcommand* found = nullptr;
  if (to_lower(command[1], buffer, sizeof buffer, lower)) {
    for (size_t i = 0; i < subs->size; ++i)
      if (subs->begin[i].name == lower) found = &subs->begin[i];
  }
  if (!found) {
    std::string text =
        "ERR unknown subcommand '" + command[1].substr(0, 128) + "'. Try " + std::string(subs->shown) + " HELP.";
    for (char& c : text)
      if (c == '\r' || c == '\n') c = ' ';
    return Reply::error(std::move(text));
  }
  if (!arity_matches(found->arity, command.size()))
    return arity_error(std::string(spec.name) + "|" + std::string(found->name));
  return std::nullopt;
}

}  // namespace locksim::redis
