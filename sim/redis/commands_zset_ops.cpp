// Sorted-set algebra (Redis 7.0 t_zset.c): ZUNION ZINTER ZDIFF and their STORE forms
// (WEIGHTS, AGGREGATE, WITHSCORES), ZINTERCARD.
// Inputs may be sets (every member scores 1), as in Redis.
#include <algorithm>
#include <cmath>
#include <map>

#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/typed_lookup.hpp"

namespace locksim::redis {

namespace {

enum class ZSetOp { Union, Inter, Diff };
enum class Aggregate { Sum, Min, Max };

// One input of an operation: a sorted set, a set, or nothing (an absent key).
struct Source {
  const Entry* entry = nullptr;
  double weight = 1.0;
  size_t size() const {
    if (!entry) return 0;
    return entry->type == ValueType::ZSet ? entry->zset().size() : entry->set().members.size();
  }
  bool find(const std::string& member, double& score) const {
    if (!entry) return false;
    if (entry->type == ValueType::Set) {
      score = 1.0;
      return entry->set().members.count(member) > 0;
    }
    const double* s = entry->zset().score(member);
    if (s) score = *s;
    return s != nullptr;
  }
  template <typename F>
  void each(F&& f) const {  // (member, score) in the input's order
    if (!entry) return;
    if (entry->type == ValueType::Set) {
      for (const std::string* m : entry->set().ordered()) f(*m, 1.0);
    } else {
      for (const auto& item : entry->zset().items()) f(item.second, item.first);
    }
  }
};

void aggregate_into(double& target, double value, Aggregate how) {
  if (how == Aggregate::Sum) {
    target += value;
    if (std::isnan(target)) target = 0.0;  // inf + -inf is 0 by Redis's convention
  } else if (how == Aggregate::Min) {
    target = value < target ? value : target;
  } else {
    target = value > target ? value : target;
  }
}

struct OpRequest {
  ZSetOp op = ZSetOp::Union;
  bool store = false, card_only = false, withscores = false;
  Aggregate aggregate = Aggregate::Sum;
  int64_t limit = 0;  // ZINTERCARD: 0 is unlimited
  std::vector<Source> sources;
};

// Parses numkeys, looks the keys up and reads the options, in Redis's order.
bool parse_op(ExecContext& ctx, const Command& argv, size_t numkeys_at, std::string_view name, OpRequest& req,
              Reply& error) {
  int64_t setnum = 0;
  if (!int_arg(argv[numkeys_at], setnum, error)) return false;
  if (setnum < 1) {
    error = Reply::error("ERR at least 1 input key is needed for '" + std::string(name) + "' command");
    return false;
  }
  if (setnum > static_cast<int64_t>(argv.size() - numkeys_at - 1)) {
    error = error_reply(kSyntaxError);
    return false;
  }
  size_t j = numkeys_at + 1;
  for (int64_t i = 0; i < setnum; ++i, ++j) {
    const Entry* e = ctx.db().lookup(argv[j], ctx.now_ms);
    if (e && e->type != ValueType::ZSet && e->type != ValueType::Set) {
      error = error_reply(kWrongType);
      return false;
    }
    req.sources.push_back(Source{e, 1.0});
  }
  const bool weighted = req.op != ZSetOp::Diff && !req.card_only;
  while (j < argv.size()) {
    const size_t remaining = argv.size() - j;
    if (weighted && remaining >= req.sources.size() + 1 && equals_lower(argv[j], "weights")) {
      ++j;
      for (Source& s : req.sources) {
        if (!parse_double(argv[j++], s.weight)) {
          error = error_reply("ERR weight value is not a float");
          return false;
        }
      }
    } else if (weighted && remaining >= 2 && equals_lower(argv[j], "aggregate")) {
      const std::string& how = argv[j + 1];
      if (equals_lower(how, "sum")) {
        req.aggregate = Aggregate::Sum;
      } else if (equals_lower(how, "min")) {
        req.aggregate = Aggregate::Min;
      } else if (equals_lower(how, "max")) {
        req.aggregate = Aggregate::Max;
      } else {
        error = error_reply(kSyntaxError);
        return false;
      }
      j += 2;
    } else if (!req.store && !req.card_only && equals_lower(argv[j], "withscores")) {
      req.withscores = true;
      ++j;
    } else if (req.card_only && remaining >= 2 && equals_lower(argv[j], "limit")) {
      if (!parse_int64(argv[j + 1], req.limit) || req.limit < 0) {
        error = error_reply("ERR LIMIT can't be negative");
        return false;
      }
      j += 2;
    } else {
      error = error_reply(kSyntaxError);
      return false;
    }
  }
  return true;
}

// Runs the operation; ZINTERCARD only counts (into `card`).
void compute(OpRequest& req, ZSet& out, int64_t& card) {
  auto& src = req.sources;
  if (req.op != ZSetOp::Diff)  // smallest first, as Redis (the order of float sums follows it)
    std::stable_sort(src.begin(), src.end(), [](const Source& a, const Source& b) { return a.size() < b.size(); });
  if (req.op == ZSetOp::Inter) {
    if (src[0].size() == 0) return;
    bool done = false;
    src[0].each([&](const std::string& member, double raw) {
      if (done) return;
      double score = src[0].weight * raw;
      if (std::isnan(score)) score = 0;
      for (size_t j = 1; j < src.size(); ++j) {
        double value = 0;
        if (!src[j].find(member, value)) return;
        aggregate_into(score, value * src[j].weight, req.aggregate);
      }
      if (!req.card_only) {
        out.set(member, score);
      } else if (++card, req.limit && card >= req.limit) {
        done = true;
      }
    });
  } else if (req.op == ZSetOp::Union) {
    std::map<std::string, double, std::less<>> acc;
    for (const Source& s : src) {
      s.each([&](const std::string& member, double raw) {
        double score = s.weight * raw;
        if (std::isnan(score)) score = 0;
        auto [it, fresh] = acc.emplace(member, score);
        if (!fresh) aggregate_into(it->second, score, req.aggregate);
      });
    }
    for (const auto& [member, score] : acc) out.set(member, score);
  } else {
    src[0].each([&](const std::string& member, double score) {
      double ignored = 0;
      for (size_t j = 1; j < src.size(); ++j)
        if (src[j].find(member, ignored)) return;
      out.set(member, score);
    });
  }
}

Reply set_op(ExecContext& ctx, const Command& argv, ZSetOp op, bool store, bool card_only) {
  OpRequest req;
  req.op = op;
  req.store = store;
  req.card_only = card_only;
  Reply error;
  std::string name = argv[0];
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!parse_op(ctx, argv, store ? 2 : 1, name, req, error)) return error;
  Entry result;
  result.type = ValueType::ZSet;
  int64_t card = 0;
  compute(req, result.zset(), card);
  if (card_only) return Reply::integer_(card);
  const ZSet& zset = result.zset();
  if (store) {
    const int64_t size = static_cast<int64_t>(zset.size());
    ctx.db().lookup(argv[1], ctx.now_ms);
    if (size == 0) {
      ctx.db().remove(argv[1], ctx.conn_id(), ctx.now_ms);
    } else {
      result.zset().update_encoding(ctx.limits());
      ctx.db().put(argv[1], std::move(result), ctx.conn_id(), ctx.now_ms);
    }
    return Reply::integer_(size);
  }
  std::vector<Reply> out;
  for (const auto& item : zset.items()) {
    out.push_back(Reply::bulk(item.second));
    if (req.withscores) out.push_back(Reply::bulk(format_double(item.first)));
  }
  return Reply::array(std::move(out));
}

}  // namespace

Reply cmd_zunion(ExecContext& ctx, const Command& argv) { return set_op(ctx, argv, ZSetOp::Union, false, false); }
Reply cmd_zinter(ExecContext& ctx, const Command& argv) { return set_op(ctx, argv, ZSetOp::Inter, false, false); }
Reply cmd_zdiff(ExecContext& ctx, const Command& argv) { return set_op(ctx, argv, ZSetOp::Diff, false, false); }
Reply cmd_zunionstore(ExecContext& ctx, const Command& argv) { return set_op(ctx, argv, ZSetOp::Union, true, false); }
Reply cmd_zinterstore(ExecContext& ctx, const Command& argv) { return set_op(ctx, argv, ZSetOp::Inter, true, false); }
Reply cmd_zdiffstore(ExecContext& ctx, const Command& argv) { return set_op(ctx, argv, ZSetOp::Diff, true, false); }
Reply cmd_zintercard(ExecContext& ctx, const Command& argv) { return set_op(ctx, argv, ZSetOp::Inter, false, true); }

}  // namespace locksim::redis
