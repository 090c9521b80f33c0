// String commands: GET SET SETNX SETEX PSETEX GETSET GETDEL GETEX MGET INCR INCRBY
// DECR DECRBY APPEND STRLEN, following Redis 7.0's t_string.c behaviour.
#include <limits>
#include <optional>

#include "locksim/sim/redis/arguments.hpp"
#include "locksim/sim/redis/command_table.hpp"

namespace locksim::redis {

namespace {

enum SetFlag : unsigned {
  kNx = 1u << 0,
  kXx = 1u << 1,
  kGet = 1u << 2,
  kKeepTtl = 1u << 3,
  kPersist = 1u << 4,
  kEx = 1u << 5,
  kPx = 1u << 6,
  kExat = 1u << 7,
  kPxat = 1u << 8,
};
constexpr unsigned kAnyExpire = kEx | kPx | kExat | kPxat;

enum class OptionsFor { Set, GetEx };

// Redis parseExtendedStringArgumentsOrReply: which options may follow which.
bool parse_options(const Command& argv, OptionsFor who, unsigned& flags, const std::string*& expire) {
  const bool is_set = who == OptionsFor::Set;
  for (size_t j = is_set ? 3 : 2; j < argv.size(); ++j) {
    const std::string& opt = argv[j];
    const bool has_next = j + 1 < argv.size();
    if (is_set && equals_lower(opt, "nx") && !(flags & kXx)) {
      flags |= kNx;
    } else if (is_set && equals_lower(opt, "xx") && !(flags & kNx)) {
      flags |= kXx;
    } else if (is_set && equals_lower(opt, "get")) {
      flags |= kGet;
    } else if (is_set && equals_lower(opt, "keepttl") && !(flags & (kPersist | kAnyExpire))) {
      flags |= kKeepTtl;
    } else if (!is_set && equals_lower(opt, "persist") && !(flags & (kAnyExpire | kKeepTtl))) {
      flags |= kPersist;
    } else if (has_next && equals_lower(opt, "ex") && !(flags & (kKeepTtl | kPersist | kExat | kPx | kPxat))) {
      flags |= kEx;
      expire = &argv[++j];
    } else if (has_next && equals_lower(opt, "px") && !(flags & (kKeepTtl | kPersist | kEx | kExat | kPxat))) {
      flags |= kPx;
      expire = &argv[++j];
    } else if (has_next && equals_lower(opt, "exat") && !(flags & (kKeepTtl | kPersist | kEx | kPx | kPxat))) {
      flags |= kExat;
      expire = &argv[++j];
    } else if (has_next && equals_lower(opt, "pxat") && !(flags & (kKeepTtl | kPersist | kEx | kExat | kPx))) {
      flags |= kPxat;
      expire = &argv[++j];
    } else {
      return false;
    }
  }
  return true;
}

// Redis getExpireMillisecondsOrReply: an absolute deadline in ms, or an error reply.
bool expire_deadline(const std::string& text, unsigned flags, int64_t now_ms, std::string_view command,
                     int64_t& deadline, Reply& error) {
  int64_t value = 0;
  if (!parse_int64(text, value)) {
    error = error_reply(kNotInteger);
    return false;
  }
  const bool seconds = flags & (kEx | kExat);
  if (value <= 0 || (seconds && value > std::numeric_limits<int64_t>::max() / 1000)) {
    error = invalid_expire_error(command);
    return false;
  }
  if (seconds) value *= 1000;
  if (flags & (kEx | kPx)) {
    // Redis adds the clock without an overflow check; an overflow shows up as <= 0.
    if (__builtin_add_overflow(value, now_ms, &value)) {
      error = invalid_expire_error(command);
      return false;
    }
  }
  if (value <= 0) {
    error = invalid_expire_error(command);
    return false;
  }
  deadline = value;
  return true;
}

// The reply of a SET that stored (or not): OK / nil, or SETNX's 1 / 0. Only the reply
// sent is built.
enum class SetReplies { OkOrNil, OneOrZero };

Reply set_generic(ExecContext& ctx, const std::string& key, const std::string& value, unsigned flags,
                  const std::string* expire, std::string_view command, SetReplies replies) {
  int64_t deadline = -1;
  if (expire) {
    Reply error;
    if (!expire_deadline(*expire, flags, ctx.now_ms, command, deadline, error)) return error;
  }
  Entry* entry = ctx.db().lookup(key, ctx.now_ms);
  std::optional<Reply> previous;  // SET ... GET's reply (a plain SET builds and destroys none)
  if (flags & kGet) {
    if (entry && entry->type != ValueType::String) return error_reply(kWrongType);
    previous = entry ? Reply::bulk(entry->str) : Reply::nil();
  }
  const bool found = entry != nullptr;
  if (((flags & kNx) && found) || ((flags & kXx) && !found)) {
    if (flags & kGet) return std::move(*previous);
    return replies == SetReplies::OkOrNil ? Reply::nil() : Reply::integer_(0);
  }
  const int64_t new_deadline = expire ? deadline : ((flags & kKeepTtl) ? Database::kKeepTtl : -1);
  ctx.db().set_string(key, value, new_deadline, ctx.conn_id(), ctx.now_ms);
  if (flags & kGet) return std::move(*previous);
  return replies == SetReplies::OkOrNil ? Reply::ok() : Reply::integer_(1);
}

// Looks up a key that must hold a string; sets `error` on a wrong type.
Entry* lookup_string(ExecContext& ctx, const std::string& key, Reply& error) {
  Entry* entry = ctx.db().lookup(key, ctx.now_ms);
  if (entry && entry->type != ValueType::String) {
    error = error_reply(kWrongType);
    return nullptr;
  }
  return entry;
}

Reply incr_decr(ExecContext& ctx, const std::string& key, int64_t increment) {
  Reply error;
  Entry* entry = lookup_string(ctx, key, error);
  if (error.is_error()) return error;
  int64_t current = 0;
  if (entry && !parse_int64(entry->str, current)) return error_reply(kNotInteger);
  if ((increment < 0 && current < 0 && increment < std::numeric_limits<int64_t>::min() - current) ||
      (increment > 0 && current > 0 && increment > std::numeric_limits<int64_t>::max() - current))
    return error_reply("ERR increment or decrement would overflow");
  const int64_t result = current + increment;
  if (entry) {
    std::optional<std::string> old;
    if (ctx.db().observing()) old = entry->str;
    entry->str = std::to_string(result);  // INCR keeps the key's TTL
    entry->raw = entry->no_int = false;   // and stores an integer
    ctx.db().changed(key, *entry, std::move(old), ctx.conn_id(), ctx.now_ms);
  } else {
    ctx.db().set_string(key, std::to_string(result), -1, ctx.conn_id(), ctx.now_ms);
  }
  return Reply::integer_(result);
}

}  // namespace

Reply cmd_get(ExecContext& ctx, const Command& argv) {
  // lookup_string without its error reply: GET is the model's hottest command.
  const Entry* entry = ctx.db().lookup(argv[1], ctx.now_ms);
  if (!entry) return Reply::nil();
  if (entry->type != ValueType::String) return error_reply(kWrongType);
  return Reply::bulk_of(entry->str);
}

Reply cmd_set(ExecContext& ctx, const Command& argv) {
  unsigned flags = 0;
  const std::string* expire = nullptr;
  if (!parse_options(argv, OptionsFor::Set, flags, expire)) return error_reply(kSyntaxError);
  return set_generic(ctx, argv[1], argv[2], flags, expire, "set", SetReplies::OkOrNil);
}

Reply cmd_setnx(ExecContext& ctx, const Command& argv) {
  return set_generic(ctx, argv[1], argv[2], kNx, nullptr, "setnx", SetReplies::OneOrZero);
}

Reply cmd_setex(ExecContext& ctx, const Command& argv) {
  return set_generic(ctx, argv[1], argv[3], kEx, &argv[2], "setex", SetReplies::OkOrNil);
}

Reply cmd_psetex(ExecContext& ctx, const Command& argv) {
  return set_generic(ctx, argv[1], argv[3], kPx, &argv[2], "psetex", SetReplies::OkOrNil);
}

Reply cmd_getset(ExecContext& ctx, const Command& argv) {
  Reply error;
  Entry* entry = lookup_string(ctx, argv[1], error);
  if (error.is_error()) return error;
  Reply previous = entry ? Reply::bulk(entry->str) : Reply::nil();
  ctx.db().set_string(argv[1], argv[2], -1, ctx.conn_id(), ctx.now_ms);
  return previous;
}

Reply cmd_getdel(ExecContext& ctx, const Command& argv) {
  Reply error;
  Entry* entry = lookup_string(ctx, argv[1], error);
  if (error.is_error()) return error;
  if (!entry) return Reply::nil();
  Reply previous = Reply::bulk(entry->str);
  ctx.db().remove(argv[1], ctx.conn_id(), ctx.now_ms);
  return previous;
}

Reply cmd_getex(ExecContext& ctx, const Command& argv) {
  unsigned flags = 0;
  const std::string* expire = nullptr;
  if (!parse_options(argv, OptionsFor::GetEx, flags, expire)) return error_reply(kSyntaxError);
  Reply error;
  Entry* entry = lookup_string(ctx, argv[1], error);
  if (error.is_error()) return error;
  if (!entry) return Reply::nil();
  int64_t deadline = -1;
  if (expire && !expire_deadline(*expire, flags, ctx.now_ms, "getex", deadline, error)) return error;
  Reply value = Reply::bulk(entry->str);
  // An absolute deadline already reached deletes the key (Redis checkAlreadyExpired: when <= now).
  if ((flags & (kExat | kPxat)) && deadline <= ctx.now_ms) {
    ctx.db().remove(argv[1], ctx.conn_id(), ctx.now_ms);
  } else if (expire) {
    ctx.db().set_expire(*entry, argv[1], deadline, ctx.conn_id(), ctx.now_ms);
  } else if (flags & kPersist) {
    ctx.db().remove_expire(*entry, argv[1], ctx.conn_id(), ctx.now_ms);
  }
  return value;
}

Reply cmd_mget(ExecContext& ctx, const Command& argv) {
  std::vector<Reply> values;
  values.reserve(argv.size() - 1);
  for (size_t i = 1; i < argv.size(); ++i) {
    Entry* entry = ctx.db().lookup(argv[i], ctx.now_ms);
    values.push_back(entry && entry->type == ValueType::String ? Reply::bulk(entry->str) : Reply::nil());
  }
  return Reply::array(std::move(values));
}

Reply cmd_incr(ExecContext& ctx, const Command& argv) { return incr_decr(ctx, argv[1], 1); }
Reply cmd_decr(ExecContext& ctx, const Command& argv) { return incr_decr(ctx, argv[1], -1); }

Reply cmd_incrby(ExecContext& ctx, const Command& argv) {
  int64_t increment = 0;
  if (!parse_int64(argv[2], increment)) return error_reply(kNotInteger);
  return incr_decr(ctx, argv[1], increment);
}

Reply cmd_decrby(ExecContext& ctx, const Command& argv) {
  int64_t decrement = 0;
  if (!parse_int64(argv[2], decrement)) return error_reply(kNotInteger);
  if (decrement == std::numeric_limits<int64_t>::min()) return error_reply("ERR decrement would overflow");
  return incr_decr(ctx, argv[1], -decrement);
}

Reply cmd_append(ExecContext& ctx, const Command& argv) {
  Reply error;
  Entry* entry = lookup_string(ctx, argv[1], error);
  if (error.is_error()) return error;
  if (!entry) {
    ctx.db().set_string(argv[1], argv[2], -1, ctx.conn_id(), ctx.now_ms);
    return Reply::integer_(static_cast<int64_t>(argv[2].size()));
  }
  if (static_cast<int64_t>(entry->str.size() + argv[2].size()) > kMaxStringLength)
    return error_reply("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
  std::optional<std::string> old;
  if (ctx.db().observing()) old = entry->str;
  entry->str += argv[2];
  entry->raw = true;  // an appended string is encoded raw, whatever it holds
  ctx.db().changed(argv[1], *entry, std::move(old), ctx.conn_id(), ctx.now_ms);
  return Reply::integer_(static_cast<int64_t>(entry->str.size()));
}

Reply cmd_strlen(ExecContext& ctx, const Command& argv) {
  Reply error;
  Entry* entry = lookup_string(ctx, argv[1], error);
  if (error.is_error()) return error;
  return Reply::integer_(entry ? static_cast<int64_t>(entry->str.size()) : 0);
}

}  // namespace locksim::redis
