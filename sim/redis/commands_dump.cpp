// DUMP and RESTORE (Redis 7.0 cluster.c) over a serialization of the model's own:
// the model keeps no RDB, so a payload is this model's, not Redis's. It has Redis's
// frame (the value, then a 2-byte version and an 8-byte checksum, little-endian), so
// RESTORE answers Redis's errors for a short, foreign or altered payload, and RESTORE
// of the model's DUMP gives the value back with its encoding recomputed (as a load).
#include <cstring>

#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/typed_lookup.hpp"

namespace locksim::redis {

namespace {

constexpr uint16_t kDumpVersion = 10;     // RDB_VERSION of Redis 7.0
constexpr unsigned char kTypeTag = 0xA0;  // plus the ValueType: no RDB type uses these bytes

uint64_t checksum(std::string_view bytes) {  // FNV-1a, 64 bits
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  return h;
}

void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}
void put_str(std::string& out, std::string_view s) {
  put_u64(out, s.size());
  out.append(s);
}

std::string serialize(const Entry& e) {
  std::string out(1, static_cast<char>(kTypeTag + static_cast<unsigned char>(e.type)));
  switch (e.type) {
    case ValueType::String: put_str(out, e.str); break;
    case ValueType::List:
      put_u64(out, e.list().size());
      for (const auto& v : e.list()) put_str(out, v);
      break;
    case ValueType::Set:
      put_u64(out, e.set().members.size());
      for (const auto& m : e.set().members) put_str(out, m);
      break;
    case ValueType::ZSet:
      put_u64(out, e.zset().size());
      for (const auto& [score, member] : e.zset().items()) {
        uint64_t bits = 0;
        std::memcpy(&bits, &score, sizeof bits);
        put_str(out, member);
        put_u64(out, bits);
      }
      break;
    case ValueType::Hash:
      put_u64(out, e.hash().size());
      for (const auto& [field, value] : e.hash().fields()) {
        put_str(out, field);
        put_str(out, value);
      }
      break;
  }
  out += static_cast<char>(kDumpVersion & 0xff);
  out += static_cast<char>(kDumpVersion >> 8);
  put_u64(out, checksum(out));
  return out;
}

// Reads the body of a payload whose frame was checked; false on anything malformed.
class PayloadReader {
 public:
  explicit PayloadReader(std::string_view body) : in_(body) {}
  bool u64(uint64_t& v) {
    if (in_.size() < 8) return false;
    v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(in_[static_cast<size_t>(i)]);
    in_.remove_prefix(8);
    return true;
  }
  bool str(std::string& s) {
    uint64_t n = 0;
    if (!u64(n) || n > in_.size()) return false;
    s.assign(in_.substr(0, n));
    in_.remove_prefix(n);
    return true;
  }
  bool count(uint64_t& n) { return u64(n) && n <= in_.size(); }  // every element takes at least a byte
  bool at_end() const { return in_.empty(); }

 private:
  std::string_view in_;
};

bool deserialize(std::string_view body, const EncodingLimits& limits, Entry& e) {
  if (body.empty()) return false;
  const unsigned tag = static_cast<unsigned char>(body[0]) - kTypeTag;
  if (tag > static_cast<unsigned>(ValueType::Hash)) return false;
  e.reset(static_cast<ValueType>(tag));
  PayloadReader r(body.substr(1));
  uint64_t n = 0;
  std::string a, b;
  if (e.type == ValueType::String) return r.str(e.str) && r.at_end();
  if (!r.count(n) || n == 0) return false;  // Redis stores no empty aggregate
  for (uint64_t i = 0; i < n; ++i) {
    if (!r.str(a)) return false;
    if (e.type == ValueType::List) {
      e.list().push_back(a);
    } else if (e.type == ValueType::Set) {
      if (!e.set().members.insert(a).second) return false;
    } else if (e.type == ValueType::ZSet) {
      uint64_t bits = 0;
      double score = 0;
      if (!r.u64(bits)) return false;
      std::memcpy(&score, &bits, sizeof score);
      if (score != score || !e.zset().set(a, score)) return false;
    } else if (!r.str(b) || !e.hash().set(a, b)) {
      return false;
    }
  }
  if (e.type == ValueType::Set) e.set().update_encoding(limits);
  if (e.type == ValueType::ZSet) e.zset().update_encoding(limits);
  if (e.type == ValueType::Hash) e.hash().update_encoding(limits);
  return r.at_end();
}

// Redis verifyDumpPayload: a frame of at least 10 bytes, a known version, a matching checksum.
bool frame_ok(std::string_view payload) {
  if (payload.size() < 10) return false;
  const std::string_view footer = payload.substr(payload.size() - 10);
  const unsigned version = static_cast<unsigned char>(footer[0]) | static_cast<unsigned char>(footer[1]) << 8;
  if (version > kDumpVersion) return false;
  uint64_t stored = 0;
  for (int i = 9; i >= 2; --i) stored = (stored << 8) | static_cast<unsigned char>(footer[static_cast<size_t>(i)]);
  return stored == checksum(payload.substr(0, payload.size() - 8));
}

struct RestoreOptions {
  bool replace = false, absttl = false;
  int64_t idle = -1, freq = -1;
};

bool parse_restore(const Command& argv, RestoreOptions& o, Reply& error) {
  for (size_t j = 4; j < argv.size(); ++j) {
    const bool more = j + 1 < argv.size();
    if (equals_lower(argv[j], "replace")) {
      o.replace = true;
    } else if (equals_lower(argv[j], "absttl")) {
      o.absttl = true;
    } else if (equals_lower(argv[j], "idletime") && more && o.freq == -1) {
      if (!int_arg(argv[++j], o.idle, error)) return false;
      if (o.idle < 0) error = error_reply("ERR Invalid IDLETIME value, must be >= 0");
    } else if (equals_lower(argv[j], "freq") && more && o.idle == -1) {
      if (!int_arg(argv[++j], o.freq, error)) return false;
      if (o.freq < 0 || o.freq > 255) error = error_reply("ERR Invalid FREQ value, must be >= 0 and <= 255");
    } else {
      error = error_reply(kSyntaxError);
    }
    if (error.is_error()) return false;
  }
  return true;
}

}  // namespace

std::string dump_payload(const Entry& entry) { return serialize(entry); }

Reply cmd_dump(ExecContext& ctx, const Command& argv) {
  const Entry* e = ctx.db().lookup(argv[1], ctx.now_ms);
  return e ? Reply::bulk(serialize(*e)) : Reply::nil();
}

Reply cmd_restore(ExecContext& ctx, const Command& argv) {
  RestoreOptions o;
  Reply error;
  if (!parse_restore(argv, o, error)) return error;
  Database& db = ctx.db();
  if (!o.replace && db.lookup(argv[1], ctx.now_ms)) return error_reply("BUSYKEY Target key name already exists.");
  int64_t ttl = 0;
  if (!int_arg(argv[2], ttl, error)) return error;
  if (ttl < 0) return error_reply("ERR Invalid TTL value, must be >= 0");
  const std::string& payload = argv[3];
  if (!frame_ok(payload)) return error_reply("ERR DUMP payload version or checksum are wrong");
  Entry value;
  if (!deserialize(std::string_view(payload).substr(0, payload.size() - 10), ctx.limits(), value))
    return error_reply("ERR Bad data format");
  if (ttl && !o.absttl) ttl = ttl > INT64_MAX - ctx.now_ms ? INT64_MAX : ttl + ctx.now_ms;
  if (ttl && ttl <= ctx.now_ms) {  // already expired: REPLACE deleted the old value, nothing is stored
    if (o.replace) db.remove(argv[1], ctx.conn_id(), ctx.now_ms);
    return Reply::ok();
  }
  value.lru_ms = o.idle >= 0 ? ctx.now_ms - std::min<int64_t>(o.idle, ctx.now_ms / 1000) * 1000 : ctx.now_ms;
  value.expire_at_ms = ttl ? ttl : -1;
  // REPLACE swaps the value in one write (Redis: dbDelete then dbAdd inside the one
  // command, with no "del" event): the observer sees one change, not a delete and a set.
  db.put(argv[1], std::move(value), ctx.conn_id(), ctx.now_ms);
  return Reply::ok();
}

}  // namespace locksim::redis
