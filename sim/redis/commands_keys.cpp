// Key commands: DEL UNLINK EXISTS TYPE EXPIRE PEXPIRE EXPIREAT PEXPIREAT TTL PTTL
// PERSIST EXPIRETIME PEXPIRETIME KEYS DBSIZE FLUSHALL FLUSHDB (Redis 7.0 db.c/expire.c).
#include <limits>

#include "locksim/sim/redis/arguments.hpp"
#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/glob.hpp"
#include "locksim/sim/redis/server_state.hpp"

namespace locksim::redis {

namespace {

enum ExpireFlag : unsigned { kNx = 1, kXx = 2, kGt = 4, kLt = 8 };

// Redis parseExtendedExpireArgumentsOrReply.
bool parse_expire_flags(const Command& argv, unsigned& flags, Reply& error) {
  for (size_t j = 3; j < argv.size(); ++j) {
    const std::string& opt = argv[j];
    if (equals_lower(opt, "nx"))
      flags |= kNx;
    else if (equals_lower(opt, "xx"))
      flags |= kXx;
    else if (equals_lower(opt, "gt"))
      flags |= kGt;
    else if (equals_lower(opt, "lt"))
      flags |= kLt;
    else {
      std::string text = "ERR Unsupported option " + opt;
      for (char& c : text)  // addReplyErrorFormat keeps the protocol valid
        if (c == '\r' || c == '\n') c = ' ';
      error = Reply::error(std::move(text));
      return false;
    }
  }
  if ((flags & kNx) && (flags & (kXx | kGt | kLt))) {
    error = error_reply("ERR NX and XX, GT or LT options at the same time are not compatible");
    return false;
  }
  if ((flags & kGt) && (flags & kLt)) {
    error = error_reply("ERR GT and LT options at the same time are not compatible");
    return false;
  }
  return true;
}

// Redis expireGenericCommand: basetime is now for relative forms, 0 for absolute ones.
Reply expire_generic(ExecContext& ctx, const Command& argv, int64_t basetime, bool seconds, std::string_view command) {
  unsigned flags = 0;
  Reply error;
  if (!parse_expire_flags(argv, flags, error)) return error;
  int64_t when = 0;
  if (!parse_int64(argv[2], when)) return error_reply(kNotInteger);
  if (seconds) {
    if (when > std::numeric_limits<int64_t>::max() / 1000 || when < std::numeric_limits<int64_t>::min() / 1000)
      return invalid_expire_error(command);
    when *= 1000;
  }
  if (__builtin_add_overflow(when, basetime, &when)) return invalid_expire_error(command);
  Entry* entry = ctx.db().lookup(argv[1], ctx.now_ms);
  if (!entry) return Reply::integer_(0);
  if (flags) {
    const int64_t current = entry->expire_at_ms;
    if ((flags & kNx) && current != -1) return Reply::integer_(0);
    if ((flags & kXx) && current == -1) return Reply::integer_(0);
    if ((flags & kGt) && (when <= current || current == -1)) return Reply::integer_(0);  // no TTL = infinite
    if ((flags & kLt) && current != -1 && when >= current) return Reply::integer_(0);
  }
  // Redis checkAlreadyExpired: a deadline not in the future deletes the key now.
  if (when <= ctx.now_ms) {
    ctx.db().remove(argv[1], ctx.conn_id(), ctx.now_ms);
  } else {
    ctx.db().set_expire(*entry, argv[1], when, ctx.conn_id(), ctx.now_ms);
  }
  return Reply::integer_(1);
}

Reply ttl_generic(ExecContext& ctx, const Command& argv, bool milliseconds) {
  Entry* entry = ctx.db().lookup(argv[1], ctx.now_ms);
  if (!entry) return Reply::integer_(-2);
  if (entry->expire_at_ms < 0) return Reply::integer_(-1);
  int64_t ttl = 0;
  if (__builtin_sub_overflow(entry->expire_at_ms, ctx.now_ms, &ttl)) ttl = std::numeric_limits<int64_t>::max();
  if (ttl < 0) ttl = 0;
  return Reply::integer_(milliseconds ? ttl : (ttl + 500) / 1000);
}

Reply expiretime_generic(ExecContext& ctx, const Command& argv, bool milliseconds) {
  Entry* entry = ctx.db().lookup(argv[1], ctx.now_ms);
  if (!entry) return Reply::integer_(-2);
  if (entry->expire_at_ms < 0) return Reply::integer_(-1);
  return Reply::integer_(milliseconds ? entry->expire_at_ms : (entry->expire_at_ms + 500) / 1000);
}

}  // namespace

Reply cmd_del(ExecContext& ctx, const Command& argv) {
  int64_t removed = 0;
  for (size_t i = 1; i < argv.size(); ++i) {
    if (ctx.db().remove_live(argv[i], ctx.conn_id(), ctx.now_ms)) ++removed;
  }
  return Reply::integer_(removed);
}

Reply cmd_exists(ExecContext& ctx, const Command& argv) {
  int64_t count = 0;
  for (size_t i = 1; i < argv.size(); ++i)
    if (ctx.db().lookup(argv[i], ctx.now_ms)) ++count;
  return Reply::integer_(count);
}

Reply cmd_type(ExecContext& ctx, const Command& argv) {
  Entry* entry = ctx.db().lookup(argv[1], ctx.now_ms);
  if (!entry) return Reply::status("none");
  return Reply::status(std::string(type_name(entry->type)));
}

Reply cmd_expire(ExecContext& ctx, const Command& argv) {
  return expire_generic(ctx, argv, ctx.now_ms, true, "expire");
}
Reply cmd_pexpire(ExecContext& ctx, const Command& argv) {
  return expire_generic(ctx, argv, ctx.now_ms, false, "pexpire");
}
Reply cmd_expireat(ExecContext& ctx, const Command& argv) { return expire_generic(ctx, argv, 0, true, "expireat"); }
Reply cmd_pexpireat(ExecContext& ctx, const Command& argv) { return expire_generic(ctx, argv, 0, false, "pexpireat"); }
Reply cmd_ttl(ExecContext& ctx, const Command& argv) { return ttl_generic(ctx, argv, false); }
Reply cmd_pttl(ExecContext& ctx, const Command& argv) { return ttl_generic(ctx, argv, true); }
Reply cmd_expiretime(ExecContext& ctx, const Command& argv) { return expiretime_generic(ctx, argv, false); }
Reply cmd_pexpiretime(ExecContext& ctx, const Command& argv) { return expiretime_generic(ctx, argv, true); }

Reply cmd_persist(ExecContext& ctx, const Command& argv) {
  Entry* entry = ctx.db().lookup(argv[1], ctx.now_ms);
  if (!entry) return Reply::integer_(0);
  return Reply::integer_(ctx.db().remove_expire(*entry, argv[1], ctx.conn_id(), ctx.now_ms) ? 1 : 0);
}

// Unlike Redis (hash-table order) the model lists keys in byte order, so the
// reply is deterministic; expired keys are skipped without being deleted.
Reply cmd_keys(ExecContext& ctx, const Command& argv) {
  const std::string& pattern = argv[1];
  const bool all = pattern == "*";
  std::vector<Reply> names;
  for (const auto& [key, entry] : ctx.db().keys) {
    if (entry.expired_at(ctx.now_ms)) continue;
    if (all || glob_match(pattern, key)) names.push_back(Reply::bulk(key));
  }
  return Reply::array(std::move(names));
}

// Counts keys not yet expired (as if active expiry had run), see docs/redis-model.md.
Reply cmd_dbsize(ExecContext& ctx, const Command&) {
  int64_t live = 0;
  for (const auto& [key, entry] : ctx.db().keys)
    if (!entry.expired_at(ctx.now_ms)) ++live;
  return Reply::integer_(live);
}

Reply cmd_flushall(ExecContext& ctx, const Command& argv) {
  if (argv.size() > 2) return error_reply(kSyntaxError);
  if (argv.size() == 2 && !equals_lower(argv[1], "async") && !equals_lower(argv[1], "sync"))
    return error_reply(kSyntaxError);
  if (equals_lower(argv[0], "flushdb")) {
    ctx.db().remove_all(ctx.conn_id(), ctx.now_ms);
  } else {
    for (Database& db : ctx.server.dbs) db.remove_all(ctx.conn_id(), ctx.now_ms);
  }
  return Reply::ok();
}

}  // namespace locksim::redis
