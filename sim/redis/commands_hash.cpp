// Hash commands: HSET HMSET HSETNX HGET HDEL HEXISTS HINCRBY HGETALL HKEYS HVALS HLEN HMGET
// (Redis 7.0 t_hash.c). Fields keep insertion order, as a small hash's listpack does.
#include <limits>

#include "locksim/sim/redis/arguments.hpp"
#include "locksim/sim/redis/command_table.hpp"

namespace locksim::redis {

namespace {

// Redis hashTypeLookupWriteOrCreate: creates an empty hash if the key is absent.
Entry* hash_for_write(ExecContext& ctx, const std::string& key, Reply& error, bool& created) {
  Entry* entry = ctx.db().lookup(key, ctx.now_ms);
  created = false;
  if (!entry) {
    created = true;
    return &ctx.db().create(key, ValueType::Hash);
  }
  if (entry->type != ValueType::Hash) {
    error = error_reply(kWrongType);
    return nullptr;
  }
  return entry;
}

// A read of a key that must be a hash; null (and no error) when absent.
const Entry* hash_for_read(ExecContext& ctx, const std::string& key, Reply& error) {
  Entry* entry = ctx.db().lookup(key, ctx.now_ms);
  if (entry && entry->type != ValueType::Hash) {
    error = error_reply(kWrongType);
    return nullptr;
  }
  return entry;
}

std::optional<std::string> old_rendering(ExecContext& ctx, const Entry& entry, bool created) {
  if (!ctx.db().observing() || created) return std::nullopt;
  return entry.render();
}

Reply hset_generic(ExecContext& ctx, const Command& argv, std::string_view name, bool reply_ok) {
  if (argv.size() % 2 == 1) return arity_error(name);
  Reply error;
  bool created = false;
  Entry* entry = hash_for_write(ctx, argv[1], error, created);
  if (!entry) return error;
  auto old = old_rendering(ctx, *entry, created);
  int64_t added = 0;
  for (size_t i = 2; i + 1 < argv.size(); i += 2)
    if (entry->hash().set(argv[i], argv[i + 1], ctx.limits())) ++added;
  ctx.db().changed(argv[1], *entry, std::move(old), ctx.conn_id(), ctx.now_ms);
  return reply_ok ? Reply::ok() : Reply::integer_(added);
}

}  // namespace

Reply cmd_hset(ExecContext& ctx, const Command& argv) { return hset_generic(ctx, argv, "hset", false); }
Reply cmd_hmset(ExecContext& ctx, const Command& argv) { return hset_generic(ctx, argv, "hmset", true); }

Reply cmd_hsetnx(ExecContext& ctx, const Command& argv) {
  Reply error;
  bool created = false;
  Entry* entry = hash_for_write(ctx, argv[1], error, created);
  if (!entry) return error;
  if (entry->hash().get(argv[2])) return Reply::integer_(0);
  auto old = old_rendering(ctx, *entry, created);
  entry->hash().set(argv[2], argv[3], ctx.limits());
  ctx.db().changed(argv[1], *entry, std::move(old), ctx.conn_id(), ctx.now_ms);
  return Reply::integer_(1);
}

Reply cmd_hget(ExecContext& ctx, const Command& argv) {
  Reply error;
  const Entry* entry = hash_for_read(ctx, argv[1], error);
  if (error.is_error()) return error;
  const std::string* value = entry ? entry->hash().get(argv[2]) : nullptr;
  return value ? Reply::bulk(*value) : Reply::nil();
}

Reply cmd_hdel(ExecContext& ctx, const Command& argv) {
  Entry* entry = ctx.db().lookup(argv[1], ctx.now_ms);
  if (!entry) return Reply::integer_(0);
  if (entry->type != ValueType::Hash) return error_reply(kWrongType);
  auto old = old_rendering(ctx, *entry, false);
  int64_t removed = 0;
  for (size_t i = 2; i < argv.size(); ++i) {
    if (entry->hash().erase(argv[i])) ++removed;
    if (entry->hash().empty()) break;  // Redis deletes the key at once and stops
  }
  if (removed == 0) return Reply::integer_(0);
  if (entry->hash().empty()) {
    ctx.db().remove(argv[1], ctx.conn_id(), ctx.now_ms);
  } else {
    ctx.db().changed(argv[1], *entry, std::move(old), ctx.conn_id(), ctx.now_ms);
  }
  return Reply::integer_(removed);
}

Reply cmd_hexists(ExecContext& ctx, const Command& argv) {
  Reply error;
  const Entry* entry = hash_for_read(ctx, argv[1], error);
  if (error.is_error()) return error;
  return Reply::integer_(entry && entry->hash().get(argv[2]) ? 1 : 0);
}

Reply cmd_hincrby(ExecContext& ctx, const Command& argv) {
  int64_t increment = 0;
  if (!parse_int64(argv[3], increment)) return error_reply(kNotInteger);
  Reply error;
  bool created = false;
  Entry* entry = hash_for_write(ctx, argv[1], error, created);
  if (!entry) return error;
  int64_t current = 0;
  if (const std::string* value = entry->hash().get(argv[2])) {
    if (!parse_int64(*value, current)) error = error_reply("ERR hash value is not an integer");
  }
  if (!error.is_error() &&
      ((increment < 0 && current < 0 && increment < std::numeric_limits<int64_t>::min() - current) ||
       (increment > 0 && current > 0 && increment > std::numeric_limits<int64_t>::max() - current)))
    error = error_reply("ERR increment or decrement would overflow");
  if (error.is_error()) return error;  // a new key has no field yet, so it cannot fail here
  auto old = old_rendering(ctx, *entry, created);
  const int64_t result = current + increment;
  entry->hash().set(argv[2], std::to_string(result), ctx.limits());
  ctx.db().changed(argv[1], *entry, std::move(old), ctx.conn_id(), ctx.now_ms);
  return Reply::integer_(result);
}

namespace {
enum class HashPart { Fields, Values, Both };
Reply list_hash(ExecContext& ctx, const Command& argv, HashPart part) {
  Reply error;
  const Entry* entry = hash_for_read(ctx, argv[1], error);
  if (error.is_error()) return error;
  std::vector<Reply> out;
  if (entry) {
    out.reserve(entry->hash().size() * (part == HashPart::Both ? 2 : 1));
    for (const auto& [field, value] : entry->hash().fields()) {
      if (part != HashPart::Values) out.push_back(Reply::bulk(field));
      if (part != HashPart::Fields) out.push_back(Reply::bulk(value));
    }
  }
  return Reply::array(std::move(out));
}
}  // namespace

Reply cmd_hgetall(ExecContext& ctx, const Command& argv) { return list_hash(ctx, argv, HashPart::Both); }
Reply cmd_hkeys(ExecContext& ctx, const Command& argv) { return list_hash(ctx, argv, HashPart::Fields); }
Reply cmd_hvals(ExecContext& ctx, const Command& argv) { return list_hash(ctx, argv, HashPart::Values); }

Reply cmd_hlen(ExecContext& ctx, const Command& argv) {
  Reply error;
  const Entry* entry = hash_for_read(ctx, argv[1], error);
  if (error.is_error()) return error;
  return Reply::integer_(entry ? static_cast<int64_t>(entry->hash().size()) : 0);
}

Reply cmd_hmget(ExecContext& ctx, const Command& argv) {
  Reply error;
  const Entry* entry = hash_for_read(ctx, argv[1], error);
  if (error.is_error()) return error;
  std::vector<Reply> out;
  out.reserve(argv.size() - 2);
  for (size_t i = 2; i < argv.size(); ++i) {
    const std::string* value = entry ? entry->hash().get(argv[i]) : nullptr;
    out.push_back(value ? Reply::bulk(*value) : Reply::nil());
  }
  return Reply::array(std::move(out));
}

}  // namespace locksim::redis
