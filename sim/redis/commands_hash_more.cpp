// More hash commands (Redis 7.0 t_hash.c): HINCRBYFLOAT HSTRLEN HRANDFIELD HSCAN, and
// the other members of the SCAN family over values: SSCAN ZSCAN.
#include <cmath>

#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/scan_cursor.hpp"
#include "locksim/sim/redis/typed_lookup.hpp"

namespace locksim::redis {

Reply cmd_hincrbyfloat(ExecContext& ctx, const Command& argv) {
  long double increment = 0;
  if (!parse_long_double(argv[3], increment)) return error_reply("ERR value is not a valid float");
  if (std::isnan(increment) || std::isinf(increment)) return error_reply("ERR value is NaN or Infinity");
  Reply error;
  bool created = false;
  Entry* entry = lookup_or_create(ctx, argv[1], ValueType::Hash, error, created);
  if (!entry) return error;
  long double current = 0;
  if (const std::string* value = entry->hash().get(argv[2])) {
    if (!parse_long_double(*value, current)) return error_reply("ERR hash value is not a float");
  }
  const long double result = current + increment;
  if (std::isnan(result) || std::isinf(result)) {
    if (created) ctx.db().remove(argv[1], ctx.conn_id(), ctx.now_ms);
    return error_reply("ERR increment would produce NaN or Infinity");
  }
  auto old = created ? std::nullopt : ctx.db().old_rendering(entry);
  std::string text = format_long_double(result);
  entry->hash().set(argv[2], text, ctx.limits());
  ctx.db().changed(argv[1], *entry, std::move(old), ctx.conn_id(), ctx.now_ms);
  return Reply::bulk(std::move(text));
}

Reply cmd_hstrlen(ExecContext& ctx, const Command& argv) {
  Reply error;
  const Entry* entry = lookup_typed(ctx, argv[1], ValueType::Hash, error);
  if (error.is_error()) return error;
  const std::string* value = entry ? entry->hash().get(argv[2]) : nullptr;
  return Reply::integer_(value ? static_cast<int64_t>(value->size()) : 0);
}

Reply cmd_hrandfield(ExecContext& ctx, const Command& argv) {
  Reply error;
  int64_t count = 0;
  bool with_values = false;
  const bool with_count = argv.size() >= 3;
  // Redis reads the count before it looks at the rest: HRANDFIELD h x bogus is "not an integer".
  if (with_count && !int_arg(argv[2], count, error)) return error;
  if (with_count && count == INT64_MIN)
    return error_reply("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807");
  if (argv.size() > 4 || (argv.size() == 4 && !equals_lower(argv[3], "withvalues"))) return error_reply(kSyntaxError);
  with_values = argv.size() == 4;
  const Entry* entry = lookup_typed(ctx, argv[1], ValueType::Hash, error);
  if (error.is_error()) return error;
  if (!entry) return with_count ? Reply::array({}) : Reply::nil();
  const auto& fields = entry->hash().fields();
  auto add = [&](std::vector<Reply>& out, const Hash::Field& f) {
    out.push_back(Reply::bulk(f.first));
    if (with_values) out.push_back(Reply::bulk(f.second));
  };
  if (!with_count) return Reply::bulk(fields[ctx.server.random() % fields.size()].first);
  std::vector<Reply> out;
  if (count < 0) {
    const uint64_t n = 0 - static_cast<uint64_t>(count);
    if (n > kMaxRepeatedRandomCount) return error_reply(kRandomCountTooBig);
    for (uint64_t i = 0; i < n; ++i) add(out, fields[ctx.server.random() % fields.size()]);
  } else if (static_cast<uint64_t>(count) >= fields.size()) {
    for (const auto& f : fields) add(out, f);
  } else {
    std::vector<size_t> index(fields.size());
    for (size_t i = 0; i < index.size(); ++i) index[i] = i;
    for (size_t i = 0; i < static_cast<size_t>(count); ++i) {
      std::swap(index[i], index[i + ctx.server.random() % (index.size() - i)]);
      add(out, fields[index[i]]);
    }
  }
  return Reply::array(std::move(out));
}

namespace {
// Redis returns a small (listpack / intset) value whole, with cursor 0, whatever COUNT says.
template <typename Item, typename Render, typename Name>
Reply scan_value(const std::vector<Item>& items, bool compact, ScanOptions options, Render render, Name name) {
  if (!compact) return scan_reply(items, options, render, name);
  std::vector<Reply> elements;
  for (const Item& item : items) {
    if (options.match && !glob_match(*options.match, name(item))) continue;
    for (std::string& s : render(item)) elements.push_back(Reply::bulk(std::move(s)));
  }
  return Reply::array({Reply::bulk("0"), Reply::array(std::move(elements))});
}
}  // namespace

Reply cmd_hscan(ExecContext& ctx, const Command& argv) {
  ScanOptions options;
  Reply error;
  if (!parse_scan(argv, 2, false, options, error)) return error;
  const Entry* entry = lookup_typed(ctx, argv[1], ValueType::Hash, error);
  if (error.is_error()) return error;
  std::vector<const Hash::Field*> items;
  if (entry)
    for (const auto& f : entry->hash().fields()) items.push_back(&f);
  return scan_value(
      items, !entry || !entry->hash().is_hashtable(), options,
      [](const Hash::Field* f) {
        return std::vector<std::string>{f->first, f->second};
      },
      [](const Hash::Field* f) -> const std::string& { return f->first; });
}

Reply cmd_sscan(ExecContext& ctx, const Command& argv) {
  ScanOptions options;
  Reply error;
  if (!parse_scan(argv, 2, false, options, error)) return error;
  const Entry* entry = lookup_typed(ctx, argv[1], ValueType::Set, error);
  if (error.is_error()) return error;
  std::vector<const std::string*> items;
  if (entry) items = entry->set().ordered();
  return scan_value(
      items, !entry || !entry->set().hashtable, options,
      [](const std::string* m) { return std::vector<std::string>{*m}; },
      [](const std::string* m) -> const std::string& { return *m; });
}

Reply cmd_zscan(ExecContext& ctx, const Command& argv) {
  ScanOptions options;
  Reply error;
  if (!parse_scan(argv, 2, false, options, error)) return error;
  const Entry* entry = lookup_typed(ctx, argv[1], ValueType::ZSet, error);
  if (error.is_error()) return error;
  std::vector<const ZSet::Item*> items;
  if (entry)
    for (const auto& item : entry->zset().items()) items.push_back(&item);
  return scan_value(
      items, !entry || !entry->zset().skiplist, options,
      [](const ZSet::Item* i) {
        return std::vector<std::string>{i->second, format_double(i->first)};
      },
      [](const ZSet::Item* i) -> const std::string& { return i->second; });
}

}  // namespace locksim::redis
