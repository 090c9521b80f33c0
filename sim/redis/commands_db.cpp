// Keyspace commands across databases and values (Redis 7.0 db.c, object.c): SELECT
// MOVE SWAPDB COPY RENAME RENAMENX RANDOMKEY SCAN TOUCH OBJECT, and the SCAN family's
// cursor (HSCAN SSCAN ZSCAN use it too).
#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/glob.hpp"
#include "locksim/sim/redis/scan_cursor.hpp"
#include "locksim/sim/redis/typed_lookup.hpp"

namespace locksim::redis {

namespace {

bool parse_db_index(std::string_view text, int64_t& index, Reply& error) {
  if (!int_arg(text, index, error)) return false;
  if (index < 0 || index >= kDatabases) {
    error = error_reply("ERR DB index is out of range");
    return false;
  }
  return true;
}

Reply rename_generic(ExecContext& ctx, const Command& argv, bool nx) {
  Entry* src = ctx.db().lookup(argv[1], ctx.now_ms);
  if (!src) return error_reply("ERR no such key");
  if (argv[1] == argv[2]) return nx ? Reply::integer_(0) : Reply::ok();
  Entry* dst = ctx.db().lookup(argv[2], ctx.now_ms);
  if (dst && nx) return Reply::integer_(0);
  Entry moved = std::move(*src);
  ctx.db().remove(argv[1], ctx.conn_id(), ctx.now_ms);
  ctx.db().put(argv[2], std::move(moved), ctx.conn_id(), ctx.now_ms);
  return nx ? Reply::integer_(1) : Reply::ok();
}

}  // namespace

Reply cmd_select(ExecContext& ctx, const Command& argv) {
  int64_t index = 0;
  Reply error;
  if (!parse_db_index(argv[1], index, error)) return error;
  ctx.db_index = static_cast<int>(index);
  if (!ctx.in_script) ctx.conn.db = ctx.db_index;  // a script's SELECT stays in the script
  return Reply::ok();
}

Reply cmd_move(ExecContext& ctx, const Command& argv) {
  int64_t index = 0;
  Reply error;
  if (!parse_db_index(argv[2], index, error)) return error;
  if (index == ctx.db_index) return error_reply("ERR source and destination objects are the same");
  Entry* src = ctx.db().lookup(argv[1], ctx.now_ms);
  if (!src) return Reply::integer_(0);
  Database& target = ctx.server.dbs[static_cast<size_t>(index)];
  if (target.lookup(argv[1], ctx.now_ms)) return Reply::integer_(0);
  Entry moved = std::move(*src);
  ctx.db().remove(argv[1], ctx.conn_id(), ctx.now_ms);
  target.put(argv[1], std::move(moved), ctx.conn_id(), ctx.now_ms);
  return Reply::integer_(1);
}

Reply cmd_swapdb(ExecContext& ctx, const Command& argv) {
  int64_t a = 0, b = 0;
  if (!parse_int64(argv[1], a)) return error_reply("ERR invalid first DB index");
  if (!parse_int64(argv[2], b)) return error_reply("ERR invalid second DB index");
  if (a < 0 || a >= kDatabases || b < 0 || b >= kDatabases) return error_reply("ERR DB index is out of range");
  if (a == b) return Reply::ok();
  Database& x = ctx.server.dbs[static_cast<size_t>(a)];
  Database& y = ctx.server.dbs[static_cast<size_t>(b)];
  // Redis touchAllWatchedKeysInDb for both sides: a key in either database changes.
  auto in_either = [&](std::string_view key) { return x.keys.count(key) || y.keys.count(key); };
  ctx.server.watches.touch_all(x.id, in_either);
  ctx.server.watches.touch_all(y.id, in_either);
  x.note_all_for_replicas();  // before and after: a key in either database changes in both
  y.note_all_for_replicas();
  swap(x.keys, y.keys);
  x.note_all_for_replicas();
  y.note_all_for_replicas();
  for (Database* db : {&x, &y})  // blocked clients may now find their list
    for (const std::string& key : db->blocking)
      if (auto it = db->keys.find(key);
          it != db->keys.end() && (it->second.type == ValueType::List || it->second.type == ValueType::ZSet))
        db->signal_ready(key);
  return Reply::ok();
}

Reply cmd_copy(ExecContext& ctx, const Command& argv) {
  int64_t target_index = ctx.db_index;
  bool replace = false;
  for (size_t j = 3; j < argv.size(); ++j) {
    if (equals_lower(argv[j], "replace")) {
      replace = true;
    } else if (equals_lower(argv[j], "db") && j + 1 < argv.size()) {
      Reply error;
      if (!parse_db_index(argv[++j], target_index, error)) return error;
    } else {
      return error_reply(kSyntaxError);
    }
  }
  if (argv[1] == argv[2] && target_index == ctx.db_index)
    return error_reply("ERR source and destination objects are the same");
  const Entry* src = ctx.db().lookup(argv[1], ctx.now_ms);
  if (!src) return Reply::integer_(0);
  Database& target = ctx.server.dbs[static_cast<size_t>(target_index)];
  Entry copy = src->clone();
  if (target.lookup(argv[2], ctx.now_ms)) {
    if (!replace) return Reply::integer_(0);
    target.remove(argv[2], ctx.conn_id(), ctx.now_ms);
  }
  target.put(argv[2], std::move(copy), ctx.conn_id(), ctx.now_ms);
  return Reply::integer_(1);
}

Reply cmd_rename(ExecContext& ctx, const Command& argv) { return rename_generic(ctx, argv, false); }
Reply cmd_renamenx(ExecContext& ctx, const Command& argv) { return rename_generic(ctx, argv, true); }

// A live key drawn with the server's seeded generator (Redis: dictGetFairRandomKey).
Reply cmd_randomkey(ExecContext& ctx, const Command&) {
  std::vector<const std::string*> live;
  for (const auto& [key, entry] : ctx.db().keys)
    if (!entry.expired_at(ctx.now_ms)) live.push_back(&key);
  if (live.empty()) return Reply::nil();
  return Reply::bulk(*live[ctx.server.random() % live.size()]);
}

Reply cmd_touch(ExecContext& ctx, const Command& argv) {
  int64_t count = 0;
  for (size_t i = 1; i < argv.size(); ++i)
    if (ctx.db().lookup(argv[i], ctx.now_ms)) ++count;
  return Reply::integer_(count);
}

Reply cmd_scan(ExecContext& ctx, const Command& argv) {
  ScanOptions options;
  Reply error;
  if (!parse_scan(argv, 1, true, options, error)) return error;
  std::vector<const std::string*> keys;
  for (const auto& [key, entry] : ctx.db().keys) {
    if (entry.expired_at(ctx.now_ms)) continue;
    if (options.type && type_name(entry.type) != *options.type) continue;
    keys.push_back(&key);
  }
  return scan_reply(
      keys, options, [](const std::string* k) { return std::vector<std::string>{*k}; },
      [](const std::string* k) -> const std::string& { return *k; });
}

Reply cmd_object(ExecContext& ctx, const Command& argv) {
  if (equals_lower(argv[1], "help")) {
    static constexpr const char* kHelp[] = {
        "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "ENCODING <key>",
        "    Return the kind of internal representation used in order to store the value",
        "    associated with a <key>.",
        "FREQ <key>",
        "    Return the access frequency index of the <key>. The returned integer is",
        "    proportional to the logarithm of the recent access frequency of the key.",
        "IDLETIME <key>",
        "    Return the idle time of the <key>, that is the approximated number of",
        "    seconds elapsed since the last access to the key.",
        "REFCOUNT <key>",
        "    Return the number of references of the value associated with the specified",
        "    <key>.",
        "HELP",
        "    Prints this help.",
    };
    std::vector<Reply> lines;
    for (const char* line : kHelp) lines.push_back(Reply::status(line));
    return Reply::array(std::move(lines));
  }
  // OBJECT does not touch the key's access time (LOOKUP_NOTOUCH).
  if (ctx.db().is_expired(argv[2], ctx.now_ms)) ctx.db().lookup(argv[2], ctx.now_ms);
  auto it = ctx.db().keys.find(argv[2]);
  if (it == ctx.db().keys.end()) return Reply::nil();
  const Entry& entry = it->second;
  if (equals_lower(argv[1], "encoding")) return Reply::bulk(std::string(entry.encoding()));
  if (equals_lower(argv[1], "refcount")) {
    int64_t value = 0;
    const bool shared = entry.type == ValueType::String && entry.encoding() == "int" &&
                        is_integer_text(entry.str, &value) && value >= 0 && value < 10000;
    return Reply::integer_(shared ? 2147483647 : 1);
  }
  if (equals_lower(argv[1], "idletime")) {
    return Reply::integer_(entry.lru_ms < 0 ? 0 : std::max<int64_t>(0, (ctx.now_ms - entry.lru_ms) / 1000));
  }
  return error_reply(
      "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching "
      "between policies at runtime LRU and LFU data will take some time to adjust.");
}

}  // namespace locksim::redis
