// SORT and SORT_RO (Redis 7.0 sort.c): sort a list, set or sorted set numerically or
// with ALPHA, by its elements or by other keys (BY pattern, `*` replaced by the
// element, `->field` reading a hash field), with LIMIT, ASC/DESC, GET patterns (GET #
// is the element) and STORE into a list.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/typed_lookup.hpp"

namespace locksim::redis {

namespace {

struct SortRequest {
  bool desc = false, alpha = false, dontsort = false;
  int64_t limit_start = 0, limit_count = -1;
  std::optional<std::string> by, store;
  std::vector<std::string> gets;
};

bool parse_sort(const Command& argv, bool readonly, SortRequest& req, Reply& error) {
  for (size_t j = 2; j < argv.size(); ++j) {
    const size_t left = argv.size() - j - 1;
    const std::string& o = argv[j];
    if (equals_lower(o, "asc")) {
      req.desc = false;
    } else if (equals_lower(o, "desc")) {
      req.desc = true;
    } else if (equals_lower(o, "alpha")) {
      req.alpha = true;
    } else if (equals_lower(o, "limit") && left >= 2) {
      if (!int_arg(argv[j + 1], req.limit_start, error) || !int_arg(argv[j + 2], req.limit_count, error)) return false;
      j += 2;
    } else if (!readonly && equals_lower(o, "store") && left >= 1) {
      req.store = argv[++j];
    } else if (equals_lower(o, "by") && left >= 1) {
      req.by = argv[++j];
      // As in Redis, a pattern without '*' sets "don't sort" for good: a later BY w_* keeps it.
      if (req.by->find('*') == std::string::npos) req.dontsort = true;
    } else if (equals_lower(o, "get") && left >= 1) {
      req.gets.push_back(argv[++j]);
    } else {
      error = error_reply(kSyntaxError);
      return false;
    }
  }
  return true;
}

// Redis lookupKeyByPattern: "#" is the element; else the first '*' takes the element,
// and "->field" after it reads a hash field. Null when there is nothing to read.
std::optional<std::string> lookup_by_pattern(ExecContext& ctx, const std::string& pattern, const std::string& elem) {
  if (pattern == "#") return elem;
  const size_t star = pattern.find('*');
  if (star == std::string::npos) return std::nullopt;
  size_t arrow = pattern.find("->", star + 1);
  if (arrow != std::string::npos && arrow + 2 >= pattern.size()) arrow = std::string::npos;
  const std::string key = pattern.substr(0, star) + elem +
                          pattern.substr(star + 1, arrow == std::string::npos ? std::string::npos : arrow - star - 1);
  const Entry* e = ctx.db().lookup(key, ctx.now_ms);
  if (!e) return std::nullopt;
  if (arrow != std::string::npos) {
    if (e->type != ValueType::Hash) return std::nullopt;
    const std::string* v = e->hash().get(std::string_view(pattern).substr(arrow + 2));
    return v ? std::optional<std::string>(*v) : std::nullopt;
  }
  if (e->type != ValueType::String) return std::nullopt;
  return e->str;
}

struct SortItem {
  std::string elem;
  double score = 0;
  std::optional<std::string> cmp;  // ALPHA BY: the weight read by the pattern
};

// The elements in the value's own order; for DONTSORT lists and sorted sets only the
// LIMIT range (in DESC order when asked), as Redis.
std::vector<SortItem> load_items(const Entry* value, const SortRequest& req, int64_t& start, int64_t& end) {
  std::vector<std::string> elems;
  if (value && value->type == ValueType::List) {
    for (const auto& v : value->list()) elems.push_back(v);
  } else if (value && value->type == ValueType::Set) {
    for (const std::string* m : value->set().ordered()) elems.push_back(*m);
  } else if (value) {
    for (const auto& item : value->zset().items()) elems.push_back(item.second);
  }
  const auto n = static_cast<int64_t>(elems.size());
  start = std::min(std::max<int64_t>(req.limit_start, 0), n);
  const int64_t count = std::min(std::max<int64_t>(req.limit_count, -1), n);
  end = count < 0 ? n - 1 : start + count - 1;
  if (start >= n) {
    start = n - 1;
    end = n - 2;
  }
  if (end >= n) end = n - 1;
  std::vector<SortItem> items;
  const bool ordered_value = value && value->type != ValueType::Set;
  if (ordered_value && req.dontsort) {
    if (req.desc) std::reverse(elems.begin(), elems.end());
    for (int64_t i = start; i <= end; ++i) items.push_back(SortItem{elems[static_cast<size_t>(i)], 0, {}});
    end -= start;
    start = 0;
    return items;
  }
  for (auto& e : elems) items.push_back(SortItem{std::move(e), 0, {}});
  return items;
}

int compare_bytes(const std::string& a, const std::string& b) { return a.compare(b) < 0 ? -1 : a == b ? 0 : 1; }

// Weights, then a stable sort (glibc's qsort is a merge sort) with Redis's comparison.
bool sort_items(ExecContext& ctx, const SortRequest& req, std::vector<SortItem>& items) {
  bool conversion_error = false;
  for (SortItem& it : items) {
    std::optional<std::string> by = req.by ? lookup_by_pattern(ctx, *req.by, it.elem) : it.elem;
    if (!by) continue;
    if (req.alpha) {
      if (req.by) it.cmp = *by;
    } else {
      char* end = nullptr;
      errno = 0;
      it.score = std::strtod(by->c_str(), &end);
      if (*end != '\0' || errno == ERANGE || std::isnan(it.score)) conversion_error = true;
    }
  }
  auto cmp = [&](const SortItem& a, const SortItem& b) {
    int c = 0;
    if (!req.alpha) {
      c = a.score > b.score ? 1 : a.score < b.score ? -1 : compare_bytes(a.elem, b.elem);
    } else if (req.by) {
      c = !a.cmp || !b.cmp ? (a.cmp.has_value() == b.cmp.has_value() ? 0
                              : !a.cmp                               ? -1
                                                                     : 1)
                           : compare_bytes(*a.cmp, *b.cmp);
    } else {
      c = compare_bytes(a.elem, b.elem);
    }
    return (req.desc ? -c : c) < 0;
  };
  std::stable_sort(items.begin(), items.end(), cmp);
  return !conversion_error;
}

Reply sort_generic(ExecContext& ctx, const Command& argv, bool readonly) {
  SortRequest req;
  Reply error;
  if (!parse_sort(argv, readonly, req, error)) return error;
  const Entry* value = ctx.db().lookup(argv[1], ctx.now_ms);
  if (value && value->type != ValueType::List && value->type != ValueType::Set && value->type != ValueType::ZSet)
    return error_reply(kWrongType);
  // A set has no order of its own: sorted anyway when the result is stored or scripted.
  if (req.dontsort && value && value->type == ValueType::Set && (req.store || ctx.in_script)) {
    req.dontsort = false;
    req.alpha = true;
    req.by.reset();
  }
  int64_t start = 0, end = -1;
  std::vector<SortItem> items = load_items(value, req, start, end);
  if (!req.dontsort && !sort_items(ctx, req, items))
    return error_reply("ERR One or more scores can't be converted into double");
  std::vector<std::optional<std::string>> out;
  for (int64_t j = start; j <= end; ++j) {
    const std::string& elem = items[static_cast<size_t>(j)].elem;
    if (req.gets.empty()) out.emplace_back(elem);
    for (const std::string& pattern : req.gets) out.push_back(lookup_by_pattern(ctx, pattern, elem));
  }
  if (!req.store) {
    std::vector<Reply> replies;
    for (auto& v : out) replies.push_back(v ? Reply::bulk(std::move(*v)) : Reply::nil());
    return Reply::array(std::move(replies));
  }
  const auto stored = static_cast<int64_t>(out.size());
  ctx.db().lookup(*req.store, ctx.now_ms);
  if (stored == 0) {
    ctx.db().remove(*req.store, ctx.conn_id(), ctx.now_ms);
  } else {
    Entry list;
    list.type = ValueType::List;
    for (auto& v : out) list.list().push_back(v ? std::move(*v) : std::string());
    ctx.db().put(*req.store, std::move(list), ctx.conn_id(), ctx.now_ms);
  }
  return Reply::integer_(stored);
}

}  // namespace

Reply cmd_sort(ExecContext& ctx, const Command& argv) { return sort_generic(ctx, argv, false); }
Reply cmd_sort_ro(ExecContext& ctx, const Command& argv) { return sort_generic(ctx, argv, true); }

}  // namespace locksim::redis
