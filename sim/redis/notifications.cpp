#include "locksim/sim/redis/notifications.hpp"

#include <algorithm>
#include <array>

namespace locksim::redis {

namespace {

enum : uint32_t {
  kKeyspace = 1u << 0,
  kKeyevent = 1u << 1,
  kGeneric = 1u << 2,
  kString = 1u << 3,
  kList = 1u << 4,
  kSet = 1u << 5,
  kHash = 1u << 6,
  kZset = 1u << 7,
  kExpired = 1u << 8,
  kEvicted = 1u << 9,
  kStream = 1u << 10,
  kKeyMiss = 1u << 11,
  kModule = 1u << 13,
  kNew = 1u << 14,
  kAll = kGeneric | kString | kList | kSet | kHash | kZset | kExpired | kEvicted | kStream | kModule,
};

struct EventClass {
  char letter;
  uint32_t flag;
};
constexpr std::array kClasses = {EventClass{'g', kGeneric}, EventClass{'$', kString},  EventClass{'l', kList},
                                 EventClass{'s', kSet},     EventClass{'h', kHash},    EventClass{'z', kZset},
                                 EventClass{'x', kExpired}, EventClass{'e', kEvicted}, EventClass{'t', kStream},
                                 EventClass{'d', kModule},  EventClass{'n', kNew}};

// The event a command sends for the keys it changes, and its class, as Redis's
// commands name them (sorted by command for binary search).
struct CommandEvent {
  std::string_view command, event;
  uint32_t type;
};
constexpr std::array kEvents = {
    CommandEvent{"append", "append", kString},
    CommandEvent{"blmove", "lpush", kList},
    CommandEvent{"blmpop", "lpop", kList},
    CommandEvent{"blpop", "lpop", kList},
    CommandEvent{"brpop", "rpop", kList},
    CommandEvent{"brpoplpush", "lpush", kList},
    CommandEvent{"bzmpop", "zpopmin", kZset},
    CommandEvent{"bzpopmax", "zpopmax", kZset},
    CommandEvent{"bzpopmin", "zpopmin", kZset},
    CommandEvent{"copy", "copy_to", kGeneric},
    CommandEvent{"decr", "decrby", kString},
    CommandEvent{"decrby", "decrby", kString},
    CommandEvent{"del", "del", kGeneric},
    CommandEvent{"expire", "expire", kGeneric},
    CommandEvent{"expireat", "expire", kGeneric},
    CommandEvent{"getdel", "del", kGeneric},
    CommandEvent{"getex", "expire", kGeneric},
    CommandEvent{"getset", "set", kString},
    CommandEvent{"hdel", "hdel", kHash},
    CommandEvent{"hincrby", "hincrby", kHash},
    CommandEvent{"hincrbyfloat", "hincrbyfloat", kHash},
    CommandEvent{"hmset", "hset", kHash},
    CommandEvent{"hset", "hset", kHash},
    CommandEvent{"hsetnx", "hset", kHash},
    CommandEvent{"incr", "incrby", kString},
    CommandEvent{"incrby", "incrby", kString},
    CommandEvent{"incrbyfloat", "incrbyfloat", kString},
    CommandEvent{"linsert", "linsert", kList},
    CommandEvent{"lmove", "lpush", kList},
    CommandEvent{"lmpop", "lpop", kList},
    CommandEvent{"lpop", "lpop", kList},
    CommandEvent{"lpush", "lpush", kList},
    CommandEvent{"lpushx", "lpush", kList},
    CommandEvent{"lrem", "lrem", kList},
    CommandEvent{"lset", "lset", kList},
    CommandEvent{"ltrim", "ltrim", kList},
    CommandEvent{"move", "move_to", kGeneric},
    CommandEvent{"mset", "set", kString},
    CommandEvent{"msetnx", "set", kString},
    CommandEvent{"persist", "persist", kGeneric},
    CommandEvent{"pexpire", "expire", kGeneric},
    CommandEvent{"pexpireat", "expire", kGeneric},
    CommandEvent{"psetex", "set", kString},
    CommandEvent{"rename", "rename_to", kGeneric},
    CommandEvent{"renamenx", "rename_to", kGeneric},
    CommandEvent{"restore", "restore", kGeneric},
    CommandEvent{"rpop", "rpop", kList},
    CommandEvent{"rpoplpush", "lpush", kList},
    CommandEvent{"rpush", "rpush", kList},
    CommandEvent{"rpushx", "rpush", kList},
    CommandEvent{"sadd", "sadd", kSet},
    CommandEvent{"sdiffstore", "sdiffstore", kSet},
    CommandEvent{"set", "set", kString},
    CommandEvent{"setbit", "setbit", kString},
    CommandEvent{"setex", "set", kString},
    CommandEvent{"setnx", "set", kString},
    CommandEvent{"setrange", "setrange", kString},
    CommandEvent{"sinterstore", "sinterstore", kSet},
    CommandEvent{"smove", "sadd", kSet},
    CommandEvent{"sort", "sortstore", kList},
    CommandEvent{"spop", "spop", kSet},
    CommandEvent{"srem", "srem", kSet},
    CommandEvent{"sunionstore", "sunionstore", kSet},
    CommandEvent{"unlink", "del", kGeneric},
    CommandEvent{"zadd", "zadd", kZset},
    CommandEvent{"zdiffstore", "zdiffstore", kZset},
    CommandEvent{"zincrby", "zincr", kZset},
    CommandEvent{"zinterstore", "zinterstore", kZset},
    CommandEvent{"zmpop", "zpopmin", kZset},
    CommandEvent{"zpopmax", "zpopmax", kZset},
    CommandEvent{"zpopmin", "zpopmin", kZset},
    CommandEvent{"zrangestore", "zrangestore", kZset},
    CommandEvent{"zrem", "zrem", kZset},
    CommandEvent{"zremrangebylex", "zremrangebylex", kZset},
    CommandEvent{"zremrangebyrank", "zremrangebyrank", kZset},
    CommandEvent{"zremrangebyscore", "zremrangebyscore", kZset},
    CommandEvent{"zunionstore", "zunionstore", kZset},
};

const CommandEvent* event_of(std::string_view command) {
  auto it = std::lower_bound(kEvents.begin(), kEvents.end(), command,
                             [](const CommandEvent& e, std::string_view c) { return e.command < c; });
  return it != kEvents.end() && it->command == command ? &*it : nullptr;
}

}  // namespace

std::optional<uint32_t> Notifications::parse_flags(std::string_view classes) {
  uint32_t flags = 0;
  for (char c : classes) {
    auto it = std::find_if(kClasses.begin(), kClasses.end(), [c](const EventClass& k) { return k.letter == c; });
    if (it != kClasses.end())
      flags |= it->flag;
    else if (c == 'A')
      flags |= kAll;
    else if (c == 'K')
      flags |= kKeyspace;
    else if (c == 'E')
      flags |= kKeyevent;
    else if (c == 'm')
      flags |= kKeyMiss;
    else
      return std::nullopt;
  }
  return flags;
}

std::string Notifications::flags_to_string(uint32_t flags) {
  std::string out;
  if ((flags & kAll) == kAll) {
    out += 'A';
  } else {
    for (const EventClass& k : kClasses)
      if (flags & k.flag) out += k.letter;
  }
  if (flags & kKeyspace) out += 'K';
  if (flags & kKeyevent) out += 'E';
  if (flags & kKeyMiss) out += 'm';
  return out;
}

void Notifications::send(uint32_t type, std::string_view event, int db, std::string_view key) {
  if (!(flags & type) || !publish) return;
  const std::string at = std::to_string(db);
  if (flags & kKeyspace) publish(server, "__keyspace@" + at + "__:" + std::string(key), std::string(event));
  if (flags & kKeyevent) publish(server, "__keyevent@" + at + "__:" + std::string(event), std::string(key));
}

void Notifications::command_event(int db, std::string_view key) {
  const CommandEvent* e = event_of(command_);
  if (!e) return;
  for (const auto& [d, k] : done_)
    if (d == db && k == key) return;
  done_.emplace_back(db, std::string(key));
  send(e->type, e->event, db, key);
}

void Notifications::modified(int db, std::string_view key) {
  if (skip_ && skip_->first == db && skip_->second == key) {
    skip_.reset();
    return;
  }
  command_event(db, key);
}

// A key deleted by a command: the command's event, then "del" (an emptied list, set, ...).
void Notifications::removed(int db, std::string_view key) {
  const CommandEvent* e = event_of(command_);
  if (!e || e->event != "del") command_event(db, key);
  done_.emplace_back(db, std::string(key));
  send(kGeneric, "del", db, key);
  skip_.emplace(db, std::string(key));
}

void Notifications::expired(int db, std::string_view key) {
  send(kExpired, "expired", db, key);
  skip_.emplace(db, std::string(key));
}

void Notifications::added(int db, std::string_view key) { send(kNew, "new", db, key); }

}  // namespace locksim::redis
