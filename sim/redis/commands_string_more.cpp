// More string commands (Redis 7.0 t_string.c, bitops.c): MSET MSETNX GETRANGE SUBSTR
// SETRANGE SETBIT GETBIT BITCOUNT INCRBYFLOAT.
#include <cmath>

#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/typed_lookup.hpp"

namespace locksim::redis {

namespace {

// Edits a string in place (creating it empty), reporting the change; raw encoding after.
template <typename Edit>
void edit_string(ExecContext& ctx, const std::string& key, Entry* entry, Edit edit) {
  std::optional<std::string> old = ctx.db().old_rendering(entry);
  if (!entry) entry = &ctx.db().create(key, ValueType::String);
  edit(entry->str);
  entry->raw = true;
  ctx.db().changed(key, *entry, std::move(old), ctx.conn_id(), ctx.now_ms);
}

// Redis getBitOffsetFromArgument: 0 .. 2^32-1 bits (512 MB).
bool bit_offset(std::string_view text, uint64_t& offset) {
  int64_t v = 0;
  if (!parse_int64(text, v) || v < 0 || (v >> 3) >= kMaxStringLength) return false;
  offset = static_cast<uint64_t>(v);
  return true;
}
int64_t count_bits(const std::string& s, int64_t start, int64_t end, bool bits) {
  int64_t count = 0;
  for (int64_t i = start; i <= end; ++i) {
    if (bits) {
      count += (static_cast<unsigned char>(s[static_cast<size_t>(i >> 3)]) >> (7 - (i & 7))) & 1;
    } else {
      count += __builtin_popcount(static_cast<unsigned char>(s[static_cast<size_t>(i)]));
    }
  }
  return count;
}
}  // namespace

Reply cmd_mset(ExecContext& ctx, const Command& argv) {
  if (argv.size() % 2 == 0) return arity_error("mset");
  for (size_t i = 1; i + 1 < argv.size(); i += 2)
    ctx.db().set_string(argv[i], argv[i + 1], -1, ctx.conn_id(), ctx.now_ms);
  return Reply::ok();
}

Reply cmd_msetnx(ExecContext& ctx, const Command& argv) {
  if (argv.size() % 2 == 0) return arity_error("msetnx");
  for (size_t i = 1; i + 1 < argv.size(); i += 2)
    if (ctx.db().lookup(argv[i], ctx.now_ms)) return Reply::integer_(0);
  for (size_t i = 1; i + 1 < argv.size(); i += 2)
    ctx.db().set_string(argv[i], argv[i + 1], -1, ctx.conn_id(), ctx.now_ms);
  return Reply::integer_(1);
}

Reply cmd_getrange(ExecContext& ctx, const Command& argv) {
  Reply error;
  int64_t start = 0, end = 0;
  if (!int_arg(argv[2], start, error) || !int_arg(argv[3], end, error)) return error;
  const Entry* entry = lookup_typed(ctx, argv[1], ValueType::String, error);
  if (!entry) return error.is_error() ? error : Reply::bulk("");
  const int64_t size = static_cast<int64_t>(entry->str.size());
  // Redis 7.0: both negative and start > end gives "" before any clamping.
  if (start < 0 && end < 0 && start > end) return Reply::bulk("");
  if (start < 0) start += size;
  if (end < 0) end += size;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= size) end = size - 1;
  if (start > end || size == 0) return Reply::bulk("");
  return Reply::bulk(entry->str.substr(static_cast<size_t>(start), static_cast<size_t>(end - start + 1)));
}

Reply cmd_setrange(ExecContext& ctx, const Command& argv) {
  Reply error;
  int64_t offset = 0;
  if (!int_arg(argv[2], offset, error)) return error;
  if (offset < 0) return error_reply("ERR offset is out of range");
  Entry* entry = lookup_typed(ctx, argv[1], ValueType::String, error);
  if (error.is_error()) return error;
  const std::string& value = argv[3];
  const int64_t current = entry ? static_cast<int64_t>(entry->str.size()) : 0;
  if (value.empty()) return Reply::integer_(current);  // nothing to write, nothing created
  // Subtracted, not added: an offset near INT64_MAX must not overflow into a small sum.
  if (offset > kMaxStringLength - static_cast<int64_t>(value.size()))
    return error_reply("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
  edit_string(ctx, argv[1], entry, [&](std::string& s) {
    const size_t need = static_cast<size_t>(offset) + value.size();
    if (s.size() < need) s.resize(need, '\0');
    s.replace(static_cast<size_t>(offset), value.size(), value);
  });
  return Reply::integer_(static_cast<int64_t>(ctx.db().keys.find(argv[1])->second.str.size()));
}

Reply cmd_getbit(ExecContext& ctx, const Command& argv) {
  uint64_t offset = 0;
  if (!bit_offset(argv[2], offset)) return error_reply("ERR bit offset is not an integer or out of range");
  Reply error;
  const Entry* entry = lookup_typed(ctx, argv[1], ValueType::String, error);
  if (!entry) return error.is_error() ? error : Reply::integer_(0);
  const size_t byte = offset >> 3;
  if (byte >= entry->str.size()) return Reply::integer_(0);
  const unsigned bit = 7 - static_cast<unsigned>(offset & 7);
  return Reply::integer_((static_cast<unsigned char>(entry->str[byte]) >> bit) & 1);
}

Reply cmd_setbit(ExecContext& ctx, const Command& argv) {
  uint64_t offset = 0;
  if (!bit_offset(argv[2], offset)) return error_reply("ERR bit offset is not an integer or out of range");
  if (argv[3] != "0" && argv[3] != "1") return error_reply("ERR bit is not an integer or out of range");
  Reply error;
  Entry* entry = lookup_typed(ctx, argv[1], ValueType::String, error);
  if (error.is_error()) return error;
  const size_t byte = offset >> 3;
  const unsigned bit = 7 - static_cast<unsigned>(offset & 7);
  // Redis 7.0: a bit left as it was, in a string not created or grown, changes nothing
  // (no WATCH is touched, no event is sent).
  if (entry && entry->str.size() > byte) {
    const int current = (static_cast<unsigned char>(entry->str[byte]) >> bit) & 1;
    if (current == (argv[3] == "1" ? 1 : 0)) return Reply::integer_(current);
  }
  int previous = 0;
  edit_string(ctx, argv[1], entry, [&](std::string& s) {
    if (s.size() <= byte) s.resize(byte + 1, '\0');
    unsigned char c = static_cast<unsigned char>(s[byte]);
    previous = (c >> bit) & 1;
    c = static_cast<unsigned char>(argv[3] == "1" ? (c | (1u << bit)) : (c & ~(1u << bit)));
    s[byte] = static_cast<char>(c);
  });
  return Reply::integer_(previous);
}

Reply cmd_bitcount(ExecContext& ctx, const Command& argv) {
  // Redis 7.0 looks the key up before it reads the range.
  Reply error;
  const Entry* entry = lookup_typed(ctx, argv[1], ValueType::String, error);
  if (!entry) return error.is_error() ? error : Reply::integer_(0);
  int64_t start = 0, end = -1;
  bool bits = false;
  if (argv.size() == 3 || argv.size() > 5) return error_reply(kSyntaxError);
  if (argv.size() >= 4 && (!int_arg(argv[2], start, error) || !int_arg(argv[3], end, error))) return error;
  // An empty negative range answers 0 before the unit is read: BITCOUNT k -1 -2 bogus is 0.
  if (argv.size() >= 4 && start < 0 && end < 0 && start > end) return Reply::integer_(0);
  if (argv.size() == 5) {
    if (equals_lower(argv[4], "bit"))
      bits = true;
    else if (!equals_lower(argv[4], "byte"))
      return error_reply(kSyntaxError);
  }
  const std::string& s = entry->str;
  const int64_t total = static_cast<int64_t>(bits ? s.size() * 8 : s.size());
  if (argv.size() == 2) return Reply::integer_(count_bits(s, 0, total - 1, false));
  if (start < 0) start += total;
  if (end < 0) end += total;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= total) end = total - 1;
  if (start > end) return Reply::integer_(0);
  return Reply::integer_(count_bits(s, start, end, bits));
}

Reply cmd_incrbyfloat(ExecContext& ctx, const Command& argv) {
  Reply error;
  Entry* entry = lookup_typed(ctx, argv[1], ValueType::String, error);
  if (error.is_error()) return error;
  long double current = 0, increment = 0;
  if (entry && !parse_long_double(entry->str, current)) return error_reply("ERR value is not a valid float");
  if (!parse_long_double(argv[2], increment)) return error_reply("ERR value is not a valid float");
  const long double result = current + increment;
  if (std::isnan(result) || std::isinf(result)) return error_reply("ERR increment would produce NaN or Infinity");
  std::string text = format_long_double(result);
  if (entry) {
    std::optional<std::string> old = ctx.db().old_rendering(entry);
    entry->str = text;  // keeps the TTL
    entry->raw = false;
    entry->no_int = true;  // Redis makes a new object from the long double: embstr, never int
    ctx.db().changed(argv[1], *entry, std::move(old), ctx.conn_id(), ctx.now_ms);
  } else {
    ctx.db().set_string(argv[1], text, -1, ctx.conn_id(), ctx.now_ms);
    ctx.db().keys.find(argv[1])->second.no_int = true;
  }
  return Reply::bulk(std::move(text));
}

}  // namespace locksim::redis
