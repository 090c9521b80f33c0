// Set commands (Redis 7.0 t_set.c): SADD SREM SISMEMBER SMISMEMBER SMEMBERS SCARD SPOP
// SRANDMEMBER SMOVE SINTER SINTERCARD SUNION SDIFF and the STORE forms. Random picks
// come from the server's seeded generator.
#include <algorithm>

#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/typed_lookup.hpp"

namespace locksim::redis {

namespace {

Reply members_reply(const Set& set) {
  std::vector<Reply> out;
  out.reserve(set.members.size());
  for (const std::string* m : set.ordered()) out.push_back(Reply::bulk(*m));
  return Reply::array(std::move(out));
}

const Set* read_set(ExecContext& ctx, std::string_view key, Reply& error) {
  const Entry* entry = lookup_typed(ctx, key, ValueType::Set, error);
  return entry ? &entry->set() : nullptr;
}

// The n-th member in the order Redis would pick from (the model's own order).
const std::string& nth_member(const Set& set, size_t n) {
  auto it = set.members.begin();
  std::advance(it, static_cast<long>(n));
  return *it;
}

enum class SetOp { Inter, Union, Diff };

// Redis sinterGenericCommand / sunionDiffGenericCommand: every key is checked for
// its type first; a missing key is an empty set.
bool combine(ExecContext& ctx, const Command& argv, size_t first, size_t last, SetOp op, Set& out, Reply& error) {
  std::vector<const Set*> sets;
  bool any_missing = false;
  for (size_t i = first; i < last; ++i) {
    const Set* s = read_set(ctx, argv[i], error);
    if (error.is_error()) return false;
    if (!s) any_missing = true;
    sets.push_back(s);
  }
  if (op == SetOp::Inter) {
    if (any_missing) return true;
    std::sort(sets.begin(), sets.end(),
              [](const Set* a, const Set* b) { return a->members.size() < b->members.size(); });
    for (const std::string& m : sets[0]->members) {
      bool everywhere = true;
      for (size_t i = 1; i < sets.size() && everywhere; ++i) everywhere = sets[i]->members.count(m) > 0;
      if (everywhere) out.members.insert(m);
    }
  } else if (op == SetOp::Union) {
    for (const Set* s : sets)
      if (s) out.members.insert(s->members.begin(), s->members.end());
  } else if (sets[0]) {
    for (const std::string& m : sets[0]->members) {
      bool elsewhere = false;
      for (size_t i = 1; i < sets.size() && !elsewhere; ++i) elsewhere = sets[i] && sets[i]->members.count(m) > 0;
      if (!elsewhere) out.members.insert(m);
    }
  }
  return true;
}

Reply combine_command(ExecContext& ctx, const Command& argv, SetOp op) {
  Set result;
  Reply error;
  if (!combine(ctx, argv, 1, argv.size(), op, result, error)) return error;
  result.update_encoding(ctx.limits());
  return members_reply(result);
}

Reply combine_store(ExecContext& ctx, const Command& argv, SetOp op) {
  Set result;
  Reply error;
  if (!combine(ctx, argv, 2, argv.size(), op, result, error)) return error;
  const int64_t size = static_cast<int64_t>(result.members.size());
  if (size == 0) {
    if (ctx.db().lookup(argv[1], ctx.now_ms)) ctx.db().remove(argv[1], ctx.conn_id(), ctx.now_ms);
    return Reply::integer_(0);
  }
  result.update_encoding(ctx.limits());
  Entry entry;
  entry.type = ValueType::Set;
  entry.set() = std::move(result);
  ctx.db().lookup(argv[1], ctx.now_ms);  // an expired destination is gone first
  ctx.db().put(argv[1], std::move(entry), ctx.conn_id(), ctx.now_ms);
  return Reply::integer_(size);
}

}  // namespace

Reply cmd_sadd(ExecContext& ctx, const Command& argv) {
  Reply error;
  bool created = false;
  Entry* entry = lookup_or_create(ctx, argv[1], ValueType::Set, error, created);
  if (!entry) return error;
  auto old = created ? std::nullopt : ctx.db().old_rendering(entry);
  Set& set = entry->set();
  int64_t added = 0;
  for (size_t i = 2; i < argv.size(); ++i) {
    if (!set.members.insert(argv[i]).second) continue;
    ++added;
    set.update_encoding(ctx.limits(), argv[i]);
  }
  if (added) ctx.db().changed(argv[1], *entry, std::move(old), ctx.conn_id(), ctx.now_ms);
  return Reply::integer_(added);
}

Reply cmd_srem(ExecContext& ctx, const Command& argv) {
  Reply error;
  Entry* entry = lookup_typed(ctx, argv[1], ValueType::Set, error);
  if (!entry) return error.is_error() ? error : Reply::integer_(0);
  auto old = ctx.db().old_rendering(entry);
  int64_t removed = 0;
  for (size_t i = 2; i < argv.size() && !entry->set().members.empty(); ++i)
    removed += static_cast<int64_t>(entry->set().members.erase(argv[i]));
  if (removed) ctx.db().changed_or_removed(argv[1], *entry, std::move(old), ctx.conn_id(), ctx.now_ms);
  return Reply::integer_(removed);
}

Reply cmd_sismember(ExecContext& ctx, const Command& argv) {
  Reply error;
  const Set* set = read_set(ctx, argv[1], error);
  if (error.is_error()) return error;
  return Reply::integer_(set && set->members.count(argv[2]) ? 1 : 0);
}

Reply cmd_smismember(ExecContext& ctx, const Command& argv) {
  Reply error;
  const Set* set = read_set(ctx, argv[1], error);
  if (error.is_error()) return error;
  std::vector<Reply> out;
  for (size_t i = 2; i < argv.size(); ++i) out.push_back(Reply::integer_(set && set->members.count(argv[i]) ? 1 : 0));
  return Reply::array(std::move(out));
}

Reply cmd_smembers(ExecContext& ctx, const Command& argv) {
  Reply error;
  const Set* set = read_set(ctx, argv[1], error);
  if (error.is_error()) return error;
  return set ? members_reply(*set) : Reply::array({});
}

Reply cmd_scard(ExecContext& ctx, const Command& argv) {
  Reply error;
  const Set* set = read_set(ctx, argv[1], error);
  if (error.is_error()) return error;
  return Reply::integer_(set ? static_cast<int64_t>(set->members.size()) : 0);
}

Reply cmd_spop(ExecContext& ctx, const Command& argv) {
  if (argv.size() > 3) return error_reply(kSyntaxError);
  int64_t count = -1;
  if (argv.size() == 3 && (!parse_int64(argv[2], count) || count < 0))
    return error_reply("ERR value is out of range, must be positive");
  Reply error;
  Entry* entry = lookup_typed(ctx, argv[1], ValueType::Set, error);
  if (error.is_error()) return error;
  if (!entry) return count < 0 ? Reply::nil() : Reply::array({});
  auto old = ctx.db().old_rendering(entry);
  Set& set = entry->set();
  std::vector<Reply> popped;
  const size_t n =
      count < 0 ? 1 : static_cast<size_t>(std::min<int64_t>(count, static_cast<int64_t>(set.members.size())));
  if (n == set.members.size()) {
    for (const std::string* m : set.ordered()) popped.push_back(Reply::bulk(*m));
    set.members.clear();
  } else {
    for (size_t i = 0; i < n; ++i) {
      auto it = set.members.begin();
      std::advance(it, static_cast<long>(ctx.server.random() % set.members.size()));
      popped.push_back(Reply::bulk(*it));
      set.members.erase(it);
    }
  }
  if (!popped.empty()) ctx.db().changed_or_removed(argv[1], *entry, std::move(old), ctx.conn_id(), ctx.now_ms);
  if (count < 0) return popped.front();
  return Reply::array(std::move(popped));
}

Reply cmd_srandmember(ExecContext& ctx, const Command& argv) {
  if (argv.size() > 3) return error_reply(kSyntaxError);
  int64_t count = 0;
  const bool with_count = argv.size() == 3;
  if (with_count && !parse_int64(argv[2], count)) return error_reply(kNotInteger);
  Reply error;
  const Set* set = read_set(ctx, argv[1], error);
  if (error.is_error()) return error;
  if (!set) return with_count ? Reply::array({}) : Reply::nil();
  const size_t size = set->members.size();
  if (!with_count) return Reply::bulk(nth_member(*set, ctx.server.random() % size));
  std::vector<Reply> out;
  if (count < 0) {  // repetitions allowed
    const uint64_t n = 0 - static_cast<uint64_t>(count);
    if (n > kMaxRepeatedRandomCount) return error_reply(kRandomCountTooBig);
    for (uint64_t i = 0; i < n; ++i) out.push_back(Reply::bulk(nth_member(*set, ctx.server.random() % size)));
  } else if (static_cast<uint64_t>(count) >= size) {
    for (const std::string* m : set->ordered()) out.push_back(Reply::bulk(*m));
  } else {
    std::vector<const std::string*> all = set->ordered();
    for (size_t i = 0; i < static_cast<size_t>(count); ++i) {
      size_t j = i + static_cast<size_t>(ctx.server.random() % (all.size() - i));
      std::swap(all[i], all[j]);
      out.push_back(Reply::bulk(*all[i]));
    }
  }
  return Reply::array(std::move(out));
}

Reply cmd_smove(ExecContext& ctx, const Command& argv) {
  // Redis smoveCommand: a missing source answers 0 before any type check.
  Entry* src = ctx.db().lookup(argv[1], ctx.now_ms);
  Entry* dst = ctx.db().lookup(argv[2], ctx.now_ms);
  if (!src) return Reply::integer_(0);
  if (src->type != ValueType::Set || (dst && dst->type != ValueType::Set)) return error_reply(kWrongType);
  Reply error;
  if (src == dst) return Reply::integer_(src->set().members.count(argv[3]) ? 1 : 0);
  auto old_src = ctx.db().old_rendering(src);
  if (!src->set().members.erase(argv[3])) return Reply::integer_(0);
  ctx.db().changed_or_removed(argv[1], *src, std::move(old_src), ctx.conn_id(), ctx.now_ms);
  bool created = false;
  dst = lookup_or_create(ctx, argv[2], ValueType::Set, error, created);
  auto old_dst = created ? std::nullopt : ctx.db().old_rendering(dst);
  if (dst->set().members.insert(argv[3]).second) {
    dst->set().update_encoding(ctx.limits(), argv[3]);
    ctx.db().changed(argv[2], *dst, std::move(old_dst), ctx.conn_id(), ctx.now_ms);
  }
  return Reply::integer_(1);
}

Reply cmd_sinter(ExecContext& ctx, const Command& argv) { return combine_command(ctx, argv, SetOp::Inter); }
Reply cmd_sunion(ExecContext& ctx, const Command& argv) { return combine_command(ctx, argv, SetOp::Union); }
Reply cmd_sdiff(ExecContext& ctx, const Command& argv) { return combine_command(ctx, argv, SetOp::Diff); }
Reply cmd_sinterstore(ExecContext& ctx, const Command& argv) { return combine_store(ctx, argv, SetOp::Inter); }
Reply cmd_sunionstore(ExecContext& ctx, const Command& argv) { return combine_store(ctx, argv, SetOp::Union); }
Reply cmd_sdiffstore(ExecContext& ctx, const Command& argv) { return combine_store(ctx, argv, SetOp::Diff); }

Reply cmd_sintercard(ExecContext& ctx, const Command& argv) {
  int64_t numkeys = 0;
  if (!parse_int64(argv[1], numkeys) || numkeys <= 0) return error_reply("ERR numkeys should be greater than 0");
  if (numkeys > static_cast<int64_t>(argv.size()) - 2)
    return error_reply("ERR Number of keys can't be greater than number of args");
  int64_t limit = 0;
  for (size_t j = 2 + static_cast<size_t>(numkeys); j < argv.size(); ++j) {
    if (equals_lower(argv[j], "limit") && j + 1 < argv.size()) {
      // Redis gives the one message for a non-integer and a negative limit.
      if (!parse_int64(argv[++j], limit) || limit < 0) return error_reply("ERR LIMIT can't be negative");
    } else {
      return error_reply(kSyntaxError);
    }
  }
  Set result;
  Reply error;
  if (!combine(ctx, argv, 2, 2 + static_cast<size_t>(numkeys), SetOp::Inter, result, error)) return error;
  int64_t size = static_cast<int64_t>(result.members.size());
  if (limit > 0 && size > limit) size = limit;
  return Reply::integer_(size);
}

}  // namespace locksim::redis
