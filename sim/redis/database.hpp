#pragma once
// The logical database (internal): the key map plus what Redis does around
// every access: lazy expiry, WATCH invalidation and effect reporting.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/redis/connection.hpp"
#include "sim/redis/keyspace.hpp"
#include "sim/redis/server.hpp"

namespace locksim::redis {

class Database {
 public:
  KeyMap keys;
  Observer* observer = nullptr;

  bool observing() const { return observer != nullptr; }

  // Redis lookupKey*: a key past its deadline is deleted on access (reported
  // as Expired, WATCHers touched) and reads as absent.
  Entry* lookup(std::string_view key, int64_t now_ms);
  // Pure check without deletion (Redis keyIsExpired).
  bool is_expired(std::string_view key, int64_t now_ms) const;
  const Entry* peek(std::string_view key, int64_t now_ms) const;

  static constexpr int64_t kKeepTtl = -2;
  // Creates or replaces a string value with the given deadline (-1 none, kKeepTtl keep).
  void set_string(std::string_view key, std::string_view value, int64_t expire_at_ms, ConnectionId conn,
                  int64_t now_ms);
  // Creates an empty value of the given type; the caller fills it and reports.
  Entry& create(std::string_view key, ValueType type);
  bool remove(std::string_view key, ConnectionId conn, int64_t now_ms);
  void set_expire(Entry& entry, std::string_view key, int64_t at_ms, ConnectionId conn, int64_t now_ms);
  bool remove_expire(Entry& entry, std::string_view key, ConnectionId conn, int64_t now_ms);
  void remove_all(ConnectionId conn, int64_t now_ms);  // FLUSHALL / FLUSHDB

  // A value changed in place: touches WATCHers and reports it.
  void changed(std::string_view key, const Entry& entry, std::optional<std::string> old_value, ConnectionId conn,
               int64_t now_ms) {
    signal_modified(key);
    if (observing()) report_set(key, entry, std::move(old_value), conn, now_ms);
  }
  // Reports a changed value (old rendering captured by the caller when observing).
  void report_set(std::string_view key, const Entry& entry, std::optional<std::string> old_value,
                  ConnectionId conn, int64_t now_ms);

  // Redis signalModifiedKey: invalidates WATCHers of the key.
  void signal_modified(std::string_view key) {
    if (!watchers_.empty()) touch_watched(key);
  }

  // WATCH bookkeeping.
  void watch(ConnectionState& conn, std::string_view key, int64_t now_ms);
  void unwatch_all(ConnectionState& conn);
  bool any_watched_key_expired(const ConnectionState& conn, int64_t now_ms) const;

 private:
  struct Watcher {
    ConnectionState* conn;
    bool expired_at_watch;  // the key was already logically gone when WATCHed
  };
  void touch_watched(std::string_view key);
  void emit(KeyEffect::Kind kind, ConnectionId conn, std::string_view key, std::optional<std::string> old_value,
            std::optional<std::string> new_value, int64_t expire_at_ms, int64_t now_ms);

  std::map<std::string, std::vector<Watcher>, std::less<>> watchers_;  // in WATCH order per key
};

}  // namespace locksim::redis
