// Multi-key pops (Redis 7.0 t_list.c lmpopGenericCommand, t_zset.c zmpopGenericCommand):
// LMPOP BLMPOP ZMPOP BZMPOP. They pop up to COUNT elements from the first non-empty
// key and answer [key, [elements]], or a null array; the blocking forms park the
// command as BLPOP does (blocking.cpp) and time out on the server clock.
#include <algorithm>

#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/typed_lookup.hpp"

namespace locksim::redis {

bool parse_block_timeout(ExecContext& ctx, std::string_view text, int64_t& deadline, Reply& error);
Reply block_on(ExecContext& ctx, const Command& argv, std::vector<std::string> keys, int64_t deadline,
               ValueType waits_for);

namespace {

struct MpopRequest {
  std::vector<std::string> keys;
  bool second_end = false;  // RIGHT for lists, MAX for sorted sets
  int64_t count = 1;
};

// getRangeLongFromObjectOrReply(1, LONG_MAX, message): the message for both a
// non-number and a number below 1.
bool positive_arg(std::string_view text, std::string_view message, int64_t& out, Reply& error) {
  if (parse_int64(text, out) && out >= 1) return true;
  error = error_reply(message);
  return false;
}

// numkeys key [key ...] <first_end|second_end> [COUNT n], in Redis's order of checks.
bool parse_mpop(const Command& argv, size_t numkeys_at, std::string_view first_end, std::string_view second_end,
                MpopRequest& req, Reply& error) {
  int64_t numkeys = 0;
  if (!positive_arg(argv[numkeys_at], "ERR numkeys should be greater than 0", numkeys, error)) return false;
  if (numkeys >= static_cast<int64_t>(argv.size() - numkeys_at - 1)) {
    error = error_reply(kSyntaxError);
    return false;
  }
  const size_t where = numkeys_at + 1 + static_cast<size_t>(numkeys);
  req.second_end = equals_lower(argv[where], second_end);
  if (!req.second_end && !equals_lower(argv[where], first_end)) {
    error = error_reply(kSyntaxError);
    return false;
  }
  bool counted = false;
  for (size_t j = where + 1; j < argv.size(); ++j) {
    if (!counted && equals_lower(argv[j], "count") && j + 1 < argv.size()) {
      if (!positive_arg(argv[++j], "ERR count should be greater than 0", req.count, error)) return false;
      counted = true;
    } else {
      error = error_reply(kSyntaxError);
      return false;
    }
  }
  req.keys.assign(argv.begin() + static_cast<long>(numkeys_at) + 1, argv.begin() + static_cast<long>(where));
  return true;
}

// Pops from the first non-empty list: [key, [values...]] (RIGHT lists the tail first).
Reply lmpop(ExecContext& ctx, const MpopRequest& req, Reply& error) {
  for (const std::string& key : req.keys) {
    Entry* entry = lookup_typed(ctx, key, ValueType::List, error);
    if (error.is_error()) return error;
    if (!entry) continue;
    auto old = ctx.db().old_rendering(entry);
    ListValue& list = entry->list();
    std::vector<Reply> popped;
    for (int64_t n = req.count; n > 0 && !list.empty(); --n) {
      if (req.second_end) {
        popped.push_back(Reply::bulk(std::move(list.back())));
        list.pop_back();
      } else {
        popped.push_back(Reply::bulk(std::move(list.front())));
        list.pop_front();
      }
    }
    ctx.db().changed_or_removed(key, *entry, std::move(old), ctx.conn_id(), ctx.now_ms);
    return Reply::array({Reply::bulk(key), Reply::array(std::move(popped))});
  }
  return Reply::nil_array();
}

// Pops from the first non-empty sorted set: [key, [[member, score], ...]].
Reply zmpop(ExecContext& ctx, const MpopRequest& req, Reply& error) {
  for (const std::string& key : req.keys) {
    Entry* entry = lookup_typed(ctx, key, ValueType::ZSet, error);
    if (error.is_error()) return error;
    if (!entry) continue;
    auto old = ctx.db().old_rendering(entry);
    ZSet& zset = entry->zset();
    std::vector<Reply> popped;
    for (int64_t n = req.count; n > 0 && !zset.empty(); --n) {
      const ZSet::Item item = req.second_end ? *std::prev(zset.items().end()) : *zset.items().begin();
      zset.erase(item.second);
      popped.push_back(Reply::array({Reply::bulk(item.second), Reply::bulk(format_double(item.first))}));
    }
    ctx.db().changed_or_removed(key, *entry, std::move(old), ctx.conn_id(), ctx.now_ms);
    return Reply::array({Reply::bulk(key), Reply::array(std::move(popped))});
  }
  return Reply::nil_array();
}

using PopFn = Reply (*)(ExecContext&, const MpopRequest&, Reply&);

Reply mpop_generic(ExecContext& ctx, const Command& argv, bool blocking, PopFn pop, ValueType type,
                   std::string_view first_end, std::string_view second_end) {
  MpopRequest req;
  Reply error;
  if (!parse_mpop(argv, blocking ? 2 : 1, first_end, second_end, req, error)) return error;
  if (!blocking) return pop(ctx, req, error);
  int64_t deadline = -1;
  if (!parse_block_timeout(ctx, argv[1], deadline, error)) return error;
  Reply popped = pop(ctx, req, error);
  if (!popped.is_nil() || !ctx.may_block) return popped;
  return block_on(ctx, argv, req.keys, deadline, type);
}

}  // namespace

Reply cmd_lmpop(ExecContext& ctx, const Command& argv) {
  return mpop_generic(ctx, argv, false, lmpop, ValueType::List, "left", "right");
}
Reply cmd_blmpop(ExecContext& ctx, const Command& argv) {
  return mpop_generic(ctx, argv, true, lmpop, ValueType::List, "left", "right");
}
Reply cmd_zmpop(ExecContext& ctx, const Command& argv) {
  return mpop_generic(ctx, argv, false, zmpop, ValueType::ZSet, "min", "max");
}
Reply cmd_bzmpop(ExecContext& ctx, const Command& argv) {
  return mpop_generic(ctx, argv, true, zmpop, ValueType::ZSet, "min", "max");
}

}  // namespace locksim::redis
