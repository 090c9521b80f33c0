// Sorted-set commands (Redis 7.0 t_zset.c): ZADD (NX XX GT LT CH INCR) ZINCRBY ZREM
// ZSCORE ZMSCORE ZCARD ZCOUNT ZLEXCOUNT ZRANK ZREVRANK, ZRANGE (BYSCORE BYLEX REV
// LIMIT WITHSCORES) and its legacy forms, ZRANGESTORE, ZREMRANGEBY{SCORE,RANK,LEX},
// ZPOPMIN ZPOPMAX BZPOPMIN BZPOPMAX. Every operation is O(log n) plus its output.
#include <cmath>
#include <limits>
#include <optional>

#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/typed_lookup.hpp"

namespace locksim::redis {

bool parse_block_timeout(ExecContext& ctx, std::string_view text, int64_t& deadline, Reply& error);
Reply block_on(ExecContext& ctx, const Command& argv, std::vector<std::string> keys, int64_t deadline,
               ValueType waits_for);

namespace {

constexpr std::string_view kNotFloat = "ERR value is not a valid float";

struct ScoreRange {
  double min = 0, max = 0;
  bool minex = false, maxex = false;
  bool below_max(double s) const { return maxex ? s < max : s <= max; }
  bool above_min(double s) const { return minex ? s > min : s >= min; }
};

// Redis zslParseRange: "(" excludes; strtod must take the whole text and not give NaN.
bool parse_score_bound(std::string_view text, double& value, bool& exclusive) {
  exclusive = !text.empty() && text[0] == '(';
  if (exclusive) text.remove_prefix(1);
  return parse_double(text, value) || (text == "inf" || text == "+inf" ? (value = INFINITY, true) : false);
}

bool parse_score_range(std::string_view min, std::string_view max, ScoreRange& range) {
  return parse_score_bound(min, range.min, range.minex) && parse_score_bound(max, range.max, range.maxex);
}

// A lex bound: "-" and "+" are the extremes, "[x" inclusive, "(x" exclusive.
struct LexBound {
  enum Kind { Min, Max, Value } kind = Value;
  std::string value;
  bool exclusive = false;
};

bool parse_lex_bound(std::string_view text, LexBound& bound) {
  if (text == "-")
    bound.kind = LexBound::Min;
  else if (text == "+")
    bound.kind = LexBound::Max;
  else if (!text.empty() && (text[0] == '(' || text[0] == '[')) {
    bound.exclusive = text[0] == '(';
    bound.value.assign(text.substr(1));
  } else {
    return false;
  }
  return true;
}

bool lex_above_min(const LexBound& b, const std::string& m) {
  if (b.kind == LexBound::Min) return true;
  if (b.kind == LexBound::Max) return false;
  return b.exclusive ? m > b.value : m >= b.value;
}
bool lex_below_max(const LexBound& b, const std::string& m) {
  if (b.kind == LexBound::Max) return true;
  if (b.kind == LexBound::Min) return false;
  return b.exclusive ? m < b.value : m <= b.value;
}

const ZSet* read_zset(ExecContext& ctx, std::string_view key, Reply& error) {
  const Entry* entry = lookup_typed(ctx, key, ValueType::ZSet, error);
  return entry ? &entry->zset() : nullptr;
}

void add_item(std::vector<Reply>& out, const ZSet::Item& item, bool withscores) {
  out.push_back(Reply::bulk(item.second));
  if (withscores) out.push_back(Reply::bulk(format_double(item.first)));
}

enum class RangeBy { Rank, Score, Lex };

struct RangeRequest {
  RangeBy by = RangeBy::Rank;
  bool rev = false, withscores = false, limited = false;
  int64_t offset = 0, count = -1;
  std::string_view min, max;  // as given (for REV: max first on the command line)
};

// Ranks bounding a score range: the first item in it, and the first one past its max.
// (A score is above x exactly when it is at least nextafter(x, +inf).)
size_t first_at_or_above(const ZSet& zset, const ScoreRange& r) {
  const double from = r.minex ? std::nextafter(r.min, INFINITY) : r.min;
  if (r.minex && r.min == INFINITY) return zset.size();
  return zset.items().order_of_key(ZSet::Item{from, std::string()});
}
size_t first_above(const ZSet& zset, const ScoreRange& r) {
  if (!r.maxex && r.max == INFINITY) return zset.size();
  const double to = r.maxex ? r.max : std::nextafter(r.max, INFINITY);
  return zset.items().order_of_key(ZSet::Item{to, std::string()});
}

// Redis sdscmplex on bounds: "-" is below and "+" above every value.
int compare_lex_bounds(const LexBound& a, const LexBound& b) {
  if (a.kind != LexBound::Value || b.kind != LexBound::Value)
    return a.kind == b.kind ? 0 : a.kind == LexBound::Min || b.kind == LexBound::Max ? -1 : 1;
  return a.value < b.value ? -1 : a.value == b.value ? 0 : 1;
}

// A lex range as Redis walks a listpack (zzlFirstInLexRange / zzlLastInLexRange): it
// assumes every score is equal, so on mixed scores it checks the ends of the set, starts
// at the first member past the near bound and stops at the first one past the far
// bound; the offset is skipped without looking.
void select_lex(const ZSet& zset, const LexBound& lmin, const LexBound& lmax, const RangeRequest& req,
                std::vector<const ZSet::Item*>& out) {
  const auto& items = zset.items();
  const int cmp = compare_lex_bounds(lmin, lmax);
  if (items.empty() || cmp > 0 || (cmp == 0 && (lmin.exclusive || lmax.exclusive))) return;
  if (!lex_above_min(lmin, std::prev(items.end())->second) || !lex_below_max(lmax, items.begin()->second)) return;
  if (req.limited && req.offset < 0) return;
  int64_t skip = req.offset;
  uint64_t left = req.count < 0 ? std::numeric_limits<uint64_t>::max() : static_cast<uint64_t>(req.count);
  if (!req.rev) {
    auto it = items.begin();
    while (it != items.end() && !lex_above_min(lmin, it->second)) ++it;
    if (it == items.end() || !lex_below_max(lmax, it->second)) return;
    for (; it != items.end() && skip > 0; --skip) ++it;
    for (; it != items.end() && left > 0 && lex_below_max(lmax, it->second); ++it, --left) out.push_back(&*it);
    return;
  }
  auto it = items.end();  // one past the current item, walking down
  while (it != items.begin() && !lex_below_max(lmax, std::prev(it)->second)) --it;
  if (it == items.begin() || !lex_above_min(lmin, std::prev(it)->second)) return;
  for (; it != items.begin() && skip > 0; --skip) --it;
  for (; it != items.begin() && left > 0 && lex_above_min(lmin, std::prev(it)->second); --it, --left)
    out.push_back(&*std::prev(it));
}

// The items a range selects, in reply order.
bool select_range(const ZSet& zset, const RangeRequest& req, std::vector<const ZSet::Item*>& out, Reply& error) {
  const auto& items = zset.items();
  const int64_t size = static_cast<int64_t>(items.size());
  if (req.by == RangeBy::Rank) {
    int64_t start = 0, end = 0;
    if (!int_arg(req.min, start, error) || !int_arg(req.max, end, error)) return false;
    if (start < 0) start += size;
    if (end < 0) end += size;
    if (start < 0) start = 0;
    if (start > end || start >= size) return true;
    if (end >= size) end = size - 1;
    for (int64_t i = start; i <= end; ++i) {
      const int64_t at = req.rev ? size - 1 - i : i;
      out.push_back(&*items.find_by_order(static_cast<size_t>(at)));
    }
    return true;
  }
  ScoreRange score;
  LexBound lmin, lmax;
  if (req.by == RangeBy::Score && !parse_score_range(req.min, req.max, score)) {
    error = error_reply("ERR min or max is not a float");
    return false;
  }
  if (req.by == RangeBy::Lex && (!parse_lex_bound(req.min, lmin) || !parse_lex_bound(req.max, lmax))) {
    error = error_reply("ERR min or max not valid string range item");
    return false;
  }
  auto in_range = [&](const ZSet::Item& it) { return score.above_min(it.first) && score.below_max(it.first); };
  if (req.limited && req.offset < 0) return true;
  int64_t skip = req.offset;
  const uint64_t wanted = req.count < 0 ? std::numeric_limits<uint64_t>::max() : static_cast<uint64_t>(req.count);
  auto take = [&](const ZSet::Item& it) {
    if (!in_range(it)) return true;
    if (skip > 0) {
      --skip;
      return true;
    }
    if (out.size() >= wanted) return false;
    out.push_back(&it);
    return out.size() < wanted;
  };
  if (req.by == RangeBy::Score && !req.rev) {
    for (auto it = items.lower_bound(ZSet::Item{score.min, std::string()}); it != items.end(); ++it) {
      if (!score.below_max(it->first)) break;
      if (!take(*it)) break;
    }
  } else if (req.by == RangeBy::Score) {
    auto it = items.find_by_order(first_above(zset, score));
    while (it != items.begin()) {
      --it;
      if (!score.above_min(it->first)) break;
      if (!take(*it)) break;
    }
  } else {
    select_lex(zset, lmin, lmax, req, out);
  }
  return true;
}

// Parses ZRANGE-family options from argv[first]; `modern` allows BYSCORE/BYLEX/REV.
bool parse_range_options(const Command& argv, size_t first, bool modern, bool allow_withscores, RangeRequest& req,
                         Reply& error) {
  for (size_t j = first; j < argv.size(); ++j) {
    const size_t left = argv.size() - j - 1;
    if (allow_withscores && equals_lower(argv[j], "withscores")) {
      req.withscores = true;
    } else if (equals_lower(argv[j], "limit") && left >= 2) {
      if (!int_arg(argv[j + 1], req.offset, error) || !int_arg(argv[j + 2], req.count, error)) return false;
      req.limited = true;
      j += 2;
    } else if (modern && equals_lower(argv[j], "byscore")) {
      req.by = RangeBy::Score;
    } else if (modern && equals_lower(argv[j], "bylex")) {
      req.by = RangeBy::Lex;
    } else if (modern && equals_lower(argv[j], "rev")) {
      req.rev = true;
    } else {
      error = error_reply(kSyntaxError);
      return false;
    }
  }
  if (req.withscores && req.by == RangeBy::Lex) {
    error = error_reply("ERR syntax error, WITHSCORES not supported in combination with BYLEX");
    return false;
  }
  // Redis 7.0.15 objects only to a count: LIMIT <offset> -1 passes (and is ignored) for ranks.
  if (req.limited && req.count != -1 && req.by == RangeBy::Rank) {
    error = error_reply("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
    return false;
  }
  return true;
}

Reply range_reply(ExecContext& ctx, const std::string& key, RangeRequest req) {
  if (req.rev && req.by != RangeBy::Rank) std::swap(req.min, req.max);
  std::vector<const ZSet::Item*> items;
  Reply error;
  // Redis parses the range before it looks the key up.
  ZSet empty;
  if (!select_range(empty, req, items, error)) return error;
  const ZSet* zset = read_zset(ctx, key, error);
  if (error.is_error()) return error;
  if (zset) select_range(*zset, req, items, error);
  std::vector<Reply> out;
  for (const ZSet::Item* it : items) add_item(out, *it, req.withscores);
  return Reply::array(std::move(out));
}

Reply legacy_range(ExecContext& ctx, const Command& argv, RangeBy by, bool rev) {
  RangeRequest req;
  req.by = by;
  req.rev = rev;
  Reply error;
  if (!parse_range_options(argv, 4, false, true, req, error)) return error;
  req.min = argv[2];
  req.max = argv[3];
  return range_reply(ctx, argv[1], req);
}

// ZADD's flags, and where its score-member pairs begin.
struct ZaddFlags {
  bool nx = false, xx = false, gt = false, lt = false, ch = false, incr = false;
  size_t first_pair = 2;
};

ZaddFlags parse_zadd_flags(const Command& argv) {
  ZaddFlags f;
  size_t& j = f.first_pair;
  for (; j < argv.size(); ++j) {
    const std::string& o = argv[j];
    if (equals_lower(o, "nx"))
      f.nx = true;
    else if (equals_lower(o, "xx"))
      f.xx = true;
    else if (equals_lower(o, "gt"))
      f.gt = true;
    else if (equals_lower(o, "lt"))
      f.lt = true;
    else if (equals_lower(o, "ch"))
      f.ch = true;
    else if (equals_lower(o, "incr"))
      f.incr = true;
    else
      break;
  }
  return f;
}

// Redis's errors for flags that contradict each other or the number of pairs.
std::optional<Reply> zadd_flags_error(const ZaddFlags& f, size_t elements) {
  if (elements == 0 || elements % 2) return error_reply(kSyntaxError);
  if (f.nx && f.xx) return error_reply("ERR XX and NX options at the same time are not compatible");
  if ((f.gt && f.nx) || (f.lt && f.nx) || (f.gt && f.lt))
    return error_reply("ERR GT, LT, and/or NX options at the same time are not compatible");
  if (f.incr && elements > 2) return error_reply("ERR INCR option supports a single increment-element pair");
  return std::nullopt;
}

}  // namespace

Reply cmd_zadd(ExecContext& ctx, const Command& argv) {
  const ZaddFlags flags = parse_zadd_flags(argv);
  const auto [nx, xx, gt, lt, ch, incr, j] = flags;
  if (auto error = zadd_flags_error(flags, argv.size() - j)) return *error;
  std::vector<double> scores;
  for (size_t i = j; i < argv.size(); i += 2) {
    double s = 0;
    if (!parse_double(argv[i], s)) return error_reply(kNotFloat);
    scores.push_back(s);
  }
  Reply error;
  Entry* entry = lookup_typed(ctx, argv[1], ValueType::ZSet, error);
  if (error.is_error()) return error;
  bool created = false;
  if (!entry) {
    if (xx) return incr ? Reply::nil() : Reply::integer_(0);  // nothing to update
    entry = &ctx.db().create(argv[1], ValueType::ZSet);
    created = true;
  }
  auto old = created ? std::nullopt : ctx.db().old_rendering(entry);
  ZSet& zset = entry->zset();
  int64_t added = 0, updated = 0;
  Reply incr_reply = Reply::nil();
  for (size_t i = 0; i < scores.size(); ++i) {
    const std::string& member = argv[j + 2 * i + 1];
    double score = scores[i];
    const double* current = zset.score(member);
    if (current) {
      if (nx) continue;
      if (incr) {
        score += *current;
        if (std::isnan(score)) {
          if (zset.empty()) ctx.db().remove(argv[1], ctx.conn_id(), ctx.now_ms);
          return error_reply("ERR resulting score is not a number (NaN)");
        }
      }
      if ((gt && score <= *current) || (lt && score >= *current)) continue;
      if (score != *current) {
        // A listpack keeps scores as text and reads "-0" back as 0; a skiplist's update keeps -0.
        zset.set(member, zset.skiplist ? score : score + 0.0);
        ++updated;
      }
      if (incr) incr_reply = Reply::bulk(format_double(score));
    } else {
      if (xx) continue;
      zset.set(member, score + 0.0);  // a new member's -0 is stored as 0 (Redis 7.0, either encoding)
      zset.update_encoding(ctx.limits(), member);
      ++added;
      if (incr) incr_reply = Reply::bulk(format_double(score));
    }
  }
  if (zset.empty()) {
    ctx.db().remove(argv[1], ctx.conn_id(), ctx.now_ms);  // only ever created, nothing added
  } else if (added || updated) {
    ctx.db().changed(argv[1], *entry, std::move(old), ctx.conn_id(), ctx.now_ms);
    ctx.db().signal_ready(argv[1]);
  }
  if (incr) return incr_reply;
  return Reply::integer_(ch ? added + updated : added);
}

Reply cmd_zincrby(ExecContext& ctx, const Command& argv) {
  return cmd_zadd(ctx, Command{"zadd", argv[1], "incr", argv[2], argv[3]});
}

Reply cmd_zrem(ExecContext& ctx, const Command& argv) {
  Reply error;
  Entry* entry = lookup_typed(ctx, argv[1], ValueType::ZSet, error);
  if (!entry) return error.is_error() ? error : Reply::integer_(0);
  auto old = ctx.db().old_rendering(entry);
  int64_t removed = 0;
  for (size_t i = 2; i < argv.size() && !entry->zset().empty(); ++i) removed += entry->zset().erase(argv[i]) ? 1 : 0;
  if (removed) ctx.db().changed_or_removed(argv[1], *entry, std::move(old), ctx.conn_id(), ctx.now_ms);
  return Reply::integer_(removed);
}

Reply cmd_zscore(ExecContext& ctx, const Command& argv) {
  Reply error;
  const ZSet* zset = read_zset(ctx, argv[1], error);
  if (error.is_error()) return error;
  const double* score = zset ? zset->score(argv[2]) : nullptr;
  return score ? Reply::bulk(format_double(*score)) : Reply::nil();
}

namespace {

// ZRANDMEMBER with a count (Redis t_zset.c zrandmemberWithCountCommand): a negative count may repeat
// members, a positive one returns distinct members, at most the whole set.
Reply random_members(ExecContext& ctx, const ZSet& zset, int64_t count, bool withscores) {
  const auto& items = zset.items();
  const size_t size = items.size();
  std::vector<Reply> out;
  if (count < 0) {
    const uint64_t n = 0 - static_cast<uint64_t>(count);
    if (n > kMaxRepeatedRandomCount) return error_reply(kRandomCountTooBig);
    for (uint64_t i = 0; i < n; ++i) add_item(out, *items.find_by_order(ctx.server.random() % size), withscores);
  } else if (static_cast<uint64_t>(count) >= size) {
    // Redis 7.0 answers the whole set highest rank first, in both encodings.
    for (size_t i = size; i-- > 0;) add_item(out, *items.find_by_order(i), withscores);
  } else {
    std::vector<size_t> order(size);
    for (size_t i = 0; i < size; ++i) order[i] = i;
    for (size_t i = 0; i < static_cast<size_t>(count); ++i) {
      std::swap(order[i], order[i + static_cast<size_t>(ctx.server.random() % (size - i))]);
      add_item(out, *items.find_by_order(order[i]), withscores);
    }
  }
  return Reply::array(std::move(out));
}

}  // namespace

Reply cmd_zrandmember(ExecContext& ctx, const Command& argv) {
  int64_t count = 0;
  const bool with_count = argv.size() >= 3;
  if (with_count) {
    if (!parse_int64(argv[2], count)) return error_reply(kNotInteger);
    if (count == INT64_MIN)
      return error_reply("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807");
    if (argv.size() > 4 || (argv.size() == 4 && !equals_lower(argv[3], "withscores"))) return error_reply(kSyntaxError);
    if (argv.size() == 4 && (count < -(INT64_MAX / 2) || count > INT64_MAX / 2))
      return error_reply("ERR value is out of range");
  }
  Reply error;
  const ZSet* zset = read_zset(ctx, argv[1], error);
  if (error.is_error()) return error;
  if (!zset || zset->empty()) return with_count ? Reply::array({}) : Reply::nil();
  if (!with_count) return Reply::bulk(zset->items().find_by_order(ctx.server.random() % zset->size())->second);
  if (count == 0) return Reply::array({});
  return random_members(ctx, *zset, count, argv.size() == 4);
}

Reply cmd_zmscore(ExecContext& ctx, const Command& argv) {
  Reply error;
  const ZSet* zset = read_zset(ctx, argv[1], error);
  if (error.is_error()) return error;
  std::vector<Reply> out;
  for (size_t i = 2; i < argv.size(); ++i) {
    const double* score = zset ? zset->score(argv[i]) : nullptr;
    out.push_back(score ? Reply::bulk(format_double(*score)) : Reply::nil());
  }
  return Reply::array(std::move(out));
}

Reply cmd_zcard(ExecContext& ctx, const Command& argv) {
  Reply error;
  const ZSet* zset = read_zset(ctx, argv[1], error);
  if (error.is_error()) return error;
  return Reply::integer_(zset ? static_cast<int64_t>(zset->size()) : 0);
}

namespace {
// The min/max range of ZCOUNT, ZLEXCOUNT and ZREMRANGEBY*, checked (against an empty set) before the key is read.
bool checked_range(const Command& argv, RangeBy by, RangeRequest& req, Reply& error) {
  req.by = by;
  req.min = argv[2];
  req.max = argv[3];
  std::vector<const ZSet::Item*> none;
  ZSet empty;
  return select_range(empty, req, none, error);
}

Reply count_generic(ExecContext& ctx, const Command& argv, RangeBy by) {
  RangeRequest req;
  Reply error;
  if (!checked_range(argv, by, req, error)) return error;
  std::vector<const ZSet::Item*> items;
  const ZSet* zset = read_zset(ctx, argv[1], error);
  if (error.is_error()) return error;
  if (!zset) return Reply::integer_(0);
  if (by == RangeBy::Score) {  // O(log n): two ranks
    ScoreRange r;
    parse_score_range(req.min, req.max, r);
    const size_t lo = first_at_or_above(*zset, r);
    const size_t hi = first_above(*zset, r);
    return Reply::integer_(hi > lo ? static_cast<int64_t>(hi - lo) : 0);
  }
  select_range(*zset, req, items, error);
  return Reply::integer_(static_cast<int64_t>(items.size()));
}

Reply rank_generic(ExecContext& ctx, const Command& argv, bool rev) {
  Reply error;
  const ZSet* zset = read_zset(ctx, argv[1], error);
  if (error.is_error()) return error;
  if (!zset || !zset->score(argv[2])) return Reply::nil();
  const size_t rank = zset->rank(argv[2]);
  return Reply::integer_(static_cast<int64_t>(rev ? zset->size() - 1 - rank : rank));
}

Reply remove_range(ExecContext& ctx, const Command& argv, RangeBy by) {
  RangeRequest req;
  Reply error;
  if (!checked_range(argv, by, req, error)) return error;
  std::vector<const ZSet::Item*> items;
  Entry* entry = lookup_typed(ctx, argv[1], ValueType::ZSet, error);
  if (!entry) return error.is_error() ? error : Reply::integer_(0);
  select_range(entry->zset(), req, items, error);
  if (items.empty()) return Reply::integer_(0);
  auto old = ctx.db().old_rendering(entry);
  std::vector<std::string> members;
  for (const ZSet::Item* it : items) members.push_back(it->second);
  for (const std::string& m : members) entry->zset().erase(m);
  ctx.db().changed_or_removed(argv[1], *entry, std::move(old), ctx.conn_id(), ctx.now_ms);
  return Reply::integer_(static_cast<int64_t>(members.size()));
}

// Pops up to `count` from one end; appends [member, score] pairs (with the key first if asked).
void pop_items(ExecContext& ctx, Entry& entry, const std::string& key, bool max, int64_t count,
               std::vector<Reply>& out) {
  auto old = ctx.db().old_rendering(&entry);
  ZSet& zset = entry.zset();
  for (; count > 0 && !zset.empty(); --count) {
    const ZSet::Item item = max ? *std::prev(zset.items().end()) : *zset.items().begin();
    zset.erase(item.second);
    add_item(out, item, true);
  }
  ctx.db().changed_or_removed(key, entry, std::move(old), ctx.conn_id(), ctx.now_ms);
}

Reply zpop_generic(ExecContext& ctx, const Command& argv, bool max) {
  if (argv.size() > 3) return error_reply(kSyntaxError);
  int64_t count = 1;
  if (argv.size() == 3 && (!parse_int64(argv[2], count) || count < 0))
    return error_reply("ERR value is out of range, must be positive");
  Reply error;
  Entry* entry = lookup_typed(ctx, argv[1], ValueType::ZSet, error);
  if (error.is_error()) return error;
  std::vector<Reply> out;
  if (entry && count > 0) pop_items(ctx, *entry, argv[1], max, count, out);
  return Reply::array(std::move(out));
}

Reply blocking_zpop(ExecContext& ctx, const Command& argv, bool max) {
  int64_t deadline = -1;
  Reply error;
  if (!parse_block_timeout(ctx, argv.back(), deadline, error)) return error;
  for (size_t i = 1; i + 1 < argv.size(); ++i) {
    Entry* entry = lookup_typed(ctx, argv[i], ValueType::ZSet, error);
    if (error.is_error()) return error;
    if (!entry) continue;
    std::vector<Reply> out{Reply::bulk(argv[i])};
    pop_items(ctx, *entry, argv[i], max, 1, out);
    return Reply::array(std::move(out));
  }
  if (!ctx.may_block) return Reply::nil_array();
  return block_on(ctx, argv, std::vector<std::string>(argv.begin() + 1, argv.end() - 1), deadline, ValueType::ZSet);
}
}  // namespace

Reply cmd_zcount(ExecContext& ctx, const Command& argv) { return count_generic(ctx, argv, RangeBy::Score); }
Reply cmd_zlexcount(ExecContext& ctx, const Command& argv) { return count_generic(ctx, argv, RangeBy::Lex); }
Reply cmd_zrank(ExecContext& ctx, const Command& argv) { return rank_generic(ctx, argv, false); }
Reply cmd_zrevrank(ExecContext& ctx, const Command& argv) { return rank_generic(ctx, argv, true); }

Reply cmd_zrange(ExecContext& ctx, const Command& argv) {
  RangeRequest req;
  Reply error;
  if (!parse_range_options(argv, 4, true, true, req, error)) return error;
  req.min = argv[2];
  req.max = argv[3];
  return range_reply(ctx, argv[1], req);
}

Reply cmd_zrangestore(ExecContext& ctx, const Command& argv) {
  RangeRequest req;
  Reply error;
  if (!parse_range_options(argv, 5, true, false, req, error)) return error;
  req.min = argv[3];
  req.max = argv[4];
  if (req.rev && req.by != RangeBy::Rank) std::swap(req.min, req.max);
  std::vector<const ZSet::Item*> items;
  ZSet empty;
  if (!select_range(empty, req, items, error)) return error;
  const ZSet* src = read_zset(ctx, argv[2], error);
  if (error.is_error()) return error;
  Entry result;
  result.type = ValueType::ZSet;
  if (src) select_range(*src, req, items, error);
  for (const ZSet::Item* it : items) result.zset().set(it->second, it->first);
  result.zset().update_encoding(ctx.limits());
  const int64_t size = static_cast<int64_t>(items.size());
  ctx.db().lookup(argv[1], ctx.now_ms);
  if (size == 0) {
    ctx.db().remove(argv[1], ctx.conn_id(), ctx.now_ms);
  } else {
    ctx.db().put(argv[1], std::move(result), ctx.conn_id(), ctx.now_ms);
  }
  return Reply::integer_(size);
}

Reply cmd_zrevrange(ExecContext& ctx, const Command& argv) { return legacy_range(ctx, argv, RangeBy::Rank, true); }
Reply cmd_zrangebyscore(ExecContext& ctx, const Command& argv) {
  return legacy_range(ctx, argv, RangeBy::Score, false);
}
Reply cmd_zrevrangebyscore(ExecContext& ctx, const Command& argv) {
  return legacy_range(ctx, argv, RangeBy::Score, true);
}
Reply cmd_zrangebylex(ExecContext& ctx, const Command& argv) { return legacy_range(ctx, argv, RangeBy::Lex, false); }
Reply cmd_zrevrangebylex(ExecContext& ctx, const Command& argv) { return legacy_range(ctx, argv, RangeBy::Lex, true); }
Reply cmd_zremrangebyscore(ExecContext& ctx, const Command& argv) { return remove_range(ctx, argv, RangeBy::Score); }
Reply cmd_zremrangebyrank(ExecContext& ctx, const Command& argv) { return remove_range(ctx, argv, RangeBy::Rank); }
Reply cmd_zremrangebylex(ExecContext& ctx, const Command& argv) { return remove_range(ctx, argv, RangeBy::Lex); }
Reply cmd_zpopmin(ExecContext& ctx, const Command& argv) { return zpop_generic(ctx, argv, false); }
Reply cmd_zpopmax(ExecContext& ctx, const Command& argv) { return zpop_generic(ctx, argv, true); }
Reply cmd_bzpopmin(ExecContext& ctx, const Command& argv) { return blocking_zpop(ctx, argv, false); }
Reply cmd_bzpopmax(ExecContext& ctx, const Command& argv) { return blocking_zpop(ctx, argv, true); }

}  // namespace locksim::redis
