#pragma once
// Key lookups that expect a value type, as Redis's lookupKey*OrReply + checkType (internal).
#include "locksim/sim/redis/arguments.hpp"
#include "locksim/sim/redis/server_state.hpp"

namespace locksim::redis {

// The key's value if it holds `type`; null when absent (error stays unset) or of
// another type (error = WRONGTYPE).
inline Entry* lookup_typed(ExecContext& ctx, std::string_view key, ValueType type, Reply& error) {
  Entry* entry = ctx.db().lookup(key, ctx.now_ms);
  if (entry && entry->type != type) {
    error = error_reply(kWrongType);
    return nullptr;
  }
  return entry;
}

// As lookup_typed, creating an empty value of `type` when the key is absent.
inline Entry* lookup_or_create(ExecContext& ctx, std::string_view key, ValueType type, Reply& error, bool& created) {
  Entry* entry = lookup_typed(ctx, key, type, error);
  created = false;
  if (entry || error.is_error()) return entry;
  created = true;
  return &ctx.db().create(key, type);
}

// Redis getLongLongFromObjectOrReply.
inline bool int_arg(std::string_view text, int64_t& out, Reply& error) {
  if (parse_int64(text, out)) return true;
  error = error_reply(kNotInteger);
  return false;
}

}  // namespace locksim::redis
