// List commands (Redis 7.0 t_list.c): LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP LRANGE LINDEX
// LLEN LREM LSET LTRIM LPOS LINSERT LMOVE RPOPLPUSH and the blocking BLPOP BRPOP BLMOVE
// BRPOPLPUSH, whose timeouts run on the server clock (see blocking.cpp).
#include <cmath>
#include <limits>

#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/typed_lookup.hpp"

namespace locksim::redis {

namespace {

enum class End { Left, Right };

Reply push_generic(ExecContext& ctx, const Command& argv, End where, bool only_existing) {
  Reply error;
  bool created = false;
  Entry* entry = nullptr;
  if (only_existing) {
    entry = lookup_typed(ctx, argv[1], ValueType::List, error);
    if (!entry) return error.is_error() ? error : Reply::integer_(0);
  } else {
    entry = lookup_or_create(ctx, argv[1], ValueType::List, error, created);
    if (!entry) return error;
  }
  auto old = created ? std::nullopt : ctx.db().old_rendering(entry);
  ListValue& list = entry->list();
  for (size_t i = 2; i < argv.size(); ++i) {
    if (where == End::Left)
      list.push_front(argv[i]);
    else
      list.push_back(argv[i]);
  }
  ctx.db().changed(argv[1], *entry, std::move(old), ctx.conn_id(), ctx.now_ms);
  ctx.db().signal_ready(argv[1]);
  return Reply::integer_(static_cast<int64_t>(list.size()));
}

std::string pop_one(ListValue& list, End where) {
  std::string value;
  if (where == End::Left) {
    value = std::move(list.front());
    list.pop_front();
  } else {
    value = std::move(list.back());
    list.pop_back();
  }
  return value;
}

Reply pop_generic(ExecContext& ctx, const Command& argv, End where) {
  if (argv.size() > 3) return arity_error(where == End::Left ? "lpop" : "rpop");
  int64_t count = -1;
  if (argv.size() == 3 && (!parse_int64(argv[2], count) || count < 0))
    return error_reply("ERR value is out of range, must be positive");
  Reply error;
  Entry* entry = lookup_typed(ctx, argv[1], ValueType::List, error);
  if (error.is_error()) return error;
  if (!entry) return count < 0 ? Reply::nil() : Reply::nil_array();
  auto old = ctx.db().old_rendering(entry);
  ListValue& list = entry->list();
  Reply reply;
  if (count < 0) {
    reply = Reply::bulk(pop_one(list, where));
  } else {
    std::vector<Reply> out;
    while (count-- > 0 && !list.empty()) out.push_back(Reply::bulk(pop_one(list, where)));
    reply = Reply::array(std::move(out));
    if (reply.elements.empty()) return reply;  // LPOP key 0 changes nothing
  }
  ctx.db().changed_or_removed(argv[1], *entry, std::move(old), ctx.conn_id(), ctx.now_ms);
  return reply;
}

// Redis's start/end clamping for LRANGE and LTRIM; false if the range is empty.
bool clamp_range(int64_t& start, int64_t& end, int64_t size) {
  if (start < 0) start += size;
  if (end < 0) end += size;
  if (start < 0) start = 0;
  if (start > end || start >= size) return false;
  if (end >= size) end = size - 1;
  return true;
}

bool parse_end(std::string_view text, End& where) {
  if (equals_lower(text, "left"))
    where = End::Left;
  else if (equals_lower(text, "right"))
    where = End::Right;
  else
    return false;
  return true;
}

// LMOVE's core, shared by the blocking forms: nil when the source is empty.
Reply move_generic(ExecContext& ctx, const std::string& source, const std::string& destination, End from, End to) {
  Reply error;
  Entry* src = lookup_typed(ctx, source, ValueType::List, error);
  if (!src) return error.is_error() ? error : Reply::nil();
  Entry* dst = lookup_typed(ctx, destination, ValueType::List, error);
  if (error.is_error()) return error;
  auto old_src = ctx.db().old_rendering(src);
  auto old_dst = ctx.db().old_rendering(dst);
  std::string value = pop_one(src->list(), from);
  // The source may also be the destination: pushing first keeps it alive.
  bool created = false;
  if (!dst) {
    dst = &ctx.db().create(destination, ValueType::List);
    created = true;
  }
  if (to == End::Left)
    dst->list().push_front(value);
  else
    dst->list().push_back(value);
  if (source != destination) {
    ctx.db().changed_or_removed(source, *src, std::move(old_src), ctx.conn_id(), ctx.now_ms);
  }
  ctx.db().changed(destination, *dst, created ? std::nullopt : std::move(old_dst), ctx.conn_id(), ctx.now_ms);
  ctx.db().signal_ready(destination);
  return Reply::bulk(std::move(value));
}

}  // namespace

// Redis getTimeoutFromObjectOrReply (seconds as a float): an absolute deadline, -1 for none.
bool parse_block_timeout(ExecContext& ctx, std::string_view text, int64_t& deadline, Reply& error) {
  long double seconds = 0;
  if (!parse_long_double(text, seconds)) {
    error = error_reply("ERR timeout is not a float or out of range");
    return false;
  }
  const long double ms = std::ceil(seconds * 1000.0L);  // Redis ceill: 0.001 s is 1 ms, never 0 (forever)
  // Redis casts to long long: out of range (inf included) wraps to LLONG_MIN on x86-64.
  const int64_t timeout = (ms >= 9223372036854775807.0L || ms < -9223372036854775807.0L)
                              ? std::numeric_limits<int64_t>::min()
                              : static_cast<int64_t>(ms);
  if (timeout < 0) {
    error = error_reply("ERR timeout is negative");
    return false;
  }
  if (timeout > 0 && timeout > std::numeric_limits<int64_t>::max() - ctx.now_ms) {
    error = error_reply("ERR timeout is out of range");
    return false;
  }
  deadline = timeout > 0 ? ctx.now_ms + timeout : -1;
  return true;
}

// Parks the command; a blocked connection answers later (Server::execute).
Reply block_on(ExecContext& ctx, const Command& argv, std::vector<std::string> keys, int64_t deadline,
               ValueType waits_for) {
  BlockedCommand blocked;
  blocked.waits_for = waits_for;
  blocked.db = ctx.db_index;
  blocked.keys = std::move(keys);
  blocked.deadline_ms = deadline;
  blocked.command = argv;
  ctx.server.block(ctx.conn, std::move(blocked));
  return Reply::blocked();
}

Reply cmd_lpush(ExecContext& ctx, const Command& argv) { return push_generic(ctx, argv, End::Left, false); }
Reply cmd_rpush(ExecContext& ctx, const Command& argv) { return push_generic(ctx, argv, End::Right, false); }
Reply cmd_lpushx(ExecContext& ctx, const Command& argv) { return push_generic(ctx, argv, End::Left, true); }
Reply cmd_rpushx(ExecContext& ctx, const Command& argv) { return push_generic(ctx, argv, End::Right, true); }
Reply cmd_lpop(ExecContext& ctx, const Command& argv) { return pop_generic(ctx, argv, End::Left); }
Reply cmd_rpop(ExecContext& ctx, const Command& argv) { return pop_generic(ctx, argv, End::Right); }

Reply cmd_lrange(ExecContext& ctx, const Command& argv) {
  Reply error;
  int64_t start = 0, end = 0;
  if (!int_arg(argv[2], start, error) || !int_arg(argv[3], end, error)) return error;
  const Entry* entry = lookup_typed(ctx, argv[1], ValueType::List, error);
  if (error.is_error()) return error;
  std::vector<Reply> out;
  if (entry && clamp_range(start, end, static_cast<int64_t>(entry->list().size()))) {
    out.reserve(static_cast<size_t>(end - start + 1));
    for (int64_t i = start; i <= end; ++i) out.push_back(Reply::bulk(entry->list()[static_cast<size_t>(i)]));
  }
  return Reply::array(std::move(out));
}

Reply cmd_lindex(ExecContext& ctx, const Command& argv) {
  Reply error;
  int64_t index = 0;
  const Entry* entry = lookup_typed(ctx, argv[1], ValueType::List, error);  // before the index, as Redis
  if (!entry) return error.is_error() ? error : Reply::nil();
  if (!int_arg(argv[2], index, error)) return error;
  const int64_t size = static_cast<int64_t>(entry->list().size());
  if (index < 0) index += size;
  if (index < 0 || index >= size) return Reply::nil();
  return Reply::bulk(entry->list()[static_cast<size_t>(index)]);
}

Reply cmd_llen(ExecContext& ctx, const Command& argv) {
  Reply error;
  const Entry* entry = lookup_typed(ctx, argv[1], ValueType::List, error);
  if (error.is_error()) return error;
  return Reply::integer_(entry ? static_cast<int64_t>(entry->list().size()) : 0);
}

Reply cmd_lrem(ExecContext& ctx, const Command& argv) {
  Reply error;
  int64_t count = 0;
  if (!int_arg(argv[2], count, error)) return error;
  Entry* entry = lookup_typed(ctx, argv[1], ValueType::List, error);
  if (!entry) return error.is_error() ? error : Reply::integer_(0);
  auto old = ctx.db().old_rendering(entry);
  ListValue& list = entry->list();
  int64_t removed = 0;
  const uint64_t limit = count == 0 ? std::numeric_limits<uint64_t>::max()
                                    : (count < 0 ? 0 - static_cast<uint64_t>(count) : static_cast<uint64_t>(count));
  if (count >= 0) {
    for (auto it = list.begin(); it != list.end() && static_cast<uint64_t>(removed) < limit;) {
      if (*it == argv[3]) {
        it = list.erase(it);
        ++removed;
      } else {
        ++it;
      }
    }
  } else {
    for (size_t i = list.size(); i-- > 0 && static_cast<uint64_t>(removed) < limit;) {
      if (list[i] == argv[3]) {
        list.erase(list.begin() + static_cast<long>(i));
        ++removed;
      }
    }
  }
  if (removed) ctx.db().changed_or_removed(argv[1], *entry, std::move(old), ctx.conn_id(), ctx.now_ms);
  return Reply::integer_(removed);
}

Reply cmd_lset(ExecContext& ctx, const Command& argv) {
  Reply error;
  int64_t index = 0;
  Entry* entry = lookup_typed(ctx, argv[1], ValueType::List, error);  // before the index, as Redis
  if (!entry) return error.is_error() ? error : error_reply("ERR no such key");
  if (!int_arg(argv[2], index, error)) return error;
  const int64_t size = static_cast<int64_t>(entry->list().size());
  if (index < 0) index += size;
  if (index < 0 || index >= size) return error_reply("ERR index out of range");
  auto old = ctx.db().old_rendering(entry);
  entry->list()[static_cast<size_t>(index)] = argv[3];
  ctx.db().changed(argv[1], *entry, std::move(old), ctx.conn_id(), ctx.now_ms);
  return Reply::ok();
}

Reply cmd_ltrim(ExecContext& ctx, const Command& argv) {
  Reply error;
  int64_t start = 0, end = 0;
  if (!int_arg(argv[2], start, error) || !int_arg(argv[3], end, error)) return error;
  Entry* entry = lookup_typed(ctx, argv[1], ValueType::List, error);
  if (!entry) return error.is_error() ? error : Reply::ok();
  auto old = ctx.db().old_rendering(entry);
  ListValue& list = entry->list();
  if (!clamp_range(start, end, static_cast<int64_t>(list.size()))) {
    list.clear();
  } else {
    list.erase(list.begin() + end + 1, list.end());
    list.erase(list.begin(), list.begin() + start);
  }
  ctx.db().changed_or_removed(argv[1], *entry, std::move(old), ctx.conn_id(), ctx.now_ms);
  return Reply::ok();
}

Reply cmd_lpos(ExecContext& ctx, const Command& argv) {
  int64_t rank = 1, count = -1, maxlen = 0;
  for (size_t j = 3; j < argv.size(); ++j) {
    const bool has_next = j + 1 < argv.size();
    if (equals_lower(argv[j], "rank") && has_next) {
      if (!parse_int64(argv[++j], rank)) return error_reply(kNotInteger);
      if (rank == 0)
        return error_reply(
            "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or "
            "use negative to start from the end of the list");
    } else if (equals_lower(argv[j], "count") && has_next) {
      if (!parse_int64(argv[++j], count) || count < 0) return error_reply("ERR COUNT can't be negative");
    } else if (equals_lower(argv[j], "maxlen") && has_next) {
      if (!parse_int64(argv[++j], maxlen) || maxlen < 0) return error_reply("ERR MAXLEN can't be negative");
    } else {
      return error_reply(kSyntaxError);
    }
  }
  Reply error;
  const Entry* entry = lookup_typed(ctx, argv[1], ValueType::List, error);
  if (error.is_error()) return error;
  if (!entry) return count >= 0 ? Reply::array({}) : Reply::nil();
  const ListValue& list = entry->list();
  const int64_t size = static_cast<int64_t>(list.size());
  std::vector<Reply> found;
  const uint64_t wanted = count == 0 ? std::numeric_limits<uint64_t>::max() : (count < 0 ? 1 : count);
  uint64_t skip = rank > 0 ? static_cast<uint64_t>(rank - 1) : 0 - static_cast<uint64_t>(rank + 1);
  int64_t scanned = 0;
  for (int64_t n = 0; n < size && found.size() < wanted && (maxlen == 0 || scanned < maxlen); ++n, ++scanned) {
    const int64_t i = rank > 0 ? n : size - 1 - n;
    if (list[static_cast<size_t>(i)] != argv[2]) continue;
    if (skip > 0) {
      --skip;
      continue;
    }
    found.push_back(Reply::integer_(i));
  }
  if (count >= 0) return Reply::array(std::move(found));
  return found.empty() ? Reply::nil() : found.front();
}

Reply cmd_linsert(ExecContext& ctx, const Command& argv) {
  bool after = false;
  if (equals_lower(argv[2], "after"))
    after = true;
  else if (!equals_lower(argv[2], "before"))
    return error_reply(kSyntaxError);
  Reply error;
  Entry* entry = lookup_typed(ctx, argv[1], ValueType::List, error);
  if (!entry) return error.is_error() ? error : Reply::integer_(0);
  ListValue& list = entry->list();
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i] != argv[3]) continue;
    auto old = ctx.db().old_rendering(entry);
    list.insert(list.begin() + static_cast<long>(after ? i + 1 : i), argv[4]);
    ctx.db().changed(argv[1], *entry, std::move(old), ctx.conn_id(), ctx.now_ms);
    return Reply::integer_(static_cast<int64_t>(list.size()));
  }
  return Reply::integer_(-1);
}

Reply cmd_lmove(ExecContext& ctx, const Command& argv) {
  End from = End::Left, to = End::Left;
  if (!parse_end(argv[3], from) || !parse_end(argv[4], to)) return error_reply(kSyntaxError);
  return move_generic(ctx, argv[1], argv[2], from, to);
}

Reply cmd_rpoplpush(ExecContext& ctx, const Command& argv) {
  return move_generic(ctx, argv[1], argv[2], End::Right, End::Left);
}

namespace {
Reply blocking_pop(ExecContext& ctx, const Command& argv, End where) {
  int64_t deadline = -1;
  Reply error;
  if (!parse_block_timeout(ctx, argv.back(), deadline, error)) return error;
  for (size_t i = 1; i + 1 < argv.size(); ++i) {
    Entry* entry = lookup_typed(ctx, argv[i], ValueType::List, error);
    if (error.is_error()) return error;
    if (!entry) continue;
    auto old = ctx.db().old_rendering(entry);
    std::string value = pop_one(entry->list(), where);
    ctx.db().changed_or_removed(argv[i], *entry, std::move(old), ctx.conn_id(), ctx.now_ms);
    return Reply::array({Reply::bulk(argv[i]), Reply::bulk(std::move(value))});
  }
  if (!ctx.may_block) return Reply::nil_array();
  return block_on(ctx, argv, std::vector<std::string>(argv.begin() + 1, argv.end() - 1), deadline, ValueType::List);
}

Reply blocking_move(ExecContext& ctx, const Command& argv, End from, End to) {
  int64_t deadline = -1;
  Reply error;
  if (!parse_block_timeout(ctx, argv.back(), deadline, error)) return error;
  Reply moved = move_generic(ctx, argv[1], argv[2], from, to);
  if (!moved.is_nil() || !ctx.may_block) return moved.is_nil() ? Reply::nil_array() : moved;
  return block_on(ctx, argv, {argv[1]}, deadline, ValueType::List);
}
}  // namespace

Reply cmd_blpop(ExecContext& ctx, const Command& argv) { return blocking_pop(ctx, argv, End::Left); }
Reply cmd_brpop(ExecContext& ctx, const Command& argv) { return blocking_pop(ctx, argv, End::Right); }

Reply cmd_blmove(ExecContext& ctx, const Command& argv) {
  End from = End::Left, to = End::Left;
  if (!parse_end(argv[3], from) || !parse_end(argv[4], to)) return error_reply(kSyntaxError);
  return blocking_move(ctx, argv, from, to);
}

Reply cmd_brpoplpush(ExecContext& ctx, const Command& argv) { return blocking_move(ctx, argv, End::Right, End::Left); }

}  // namespace locksim::redis
