#pragma once
// A logical database (internal): the key map plus what Redis does around every
// access: lazy expiry, WATCH invalidation, effect reporting and waking the clients
// blocked on a key.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "locksim/sim/redis/connection.hpp"
#include "locksim/sim/redis/key_map.hpp"
#include "locksim/sim/redis/keyspace.hpp"
#include "locksim/sim/redis/notifications.hpp"
#include "locksim/sim/redis/propagation.hpp"
#include "locksim/sim/redis/server.hpp"

namespace locksim::redis {

// The WATCHed keys of every database of a server (Redis multi.c).
class WatchTable {
 public:
  void watch(ConnectionState& conn, int db, std::string_view key, bool expired_now);
  void unwatch_all(ConnectionState& conn);
  // A key was modified: invalidates its WATCHers (touchWatchedKey).
  void touch(int db, std::string_view key, bool present);
  // FLUSHDB / SWAPDB (touchAllWatchedKeysInDb): WATCHers of the keys `exists` says are there.
  void touch_all(int db, const std::function<bool(std::string_view)>& exists);
  bool any_expired(const ConnectionState& conn, const std::function<bool(int, std::string_view)>& expired) const;
  bool empty() const { return by_key_.empty(); }

 private:
  struct Watcher {
    ConnectionState* conn;
    bool expired_at_watch;  // the key was already logically gone when WATCHed
  };
  struct KeyLess {  // (database, key), comparable with a string_view key
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return a.first != b.first ? a.first < b.first : std::string_view(a.second) < std::string_view(b.second);
    }
  };
  std::map<std::pair<int, std::string>, std::vector<Watcher>, KeyLess> by_key_;  // in WATCH order per key
};

class Database {
 public:
  int id = 0;
  KeyMap keys;
  Observer* observer = nullptr;
  WatchTable* watches = nullptr;                // shared by the server's databases
  std::set<std::string, std::less<>> blocking;  // keys some client is blocked on
  std::vector<std::string> ready;               // blocking keys pushed to since they were last served
  bool* any_ready = nullptr;                    // the server's "some database has ready keys"
  Notifications* notify = nullptr;              // keyspace notifications (flags 0: off)
  Propagation* propagation = nullptr;           // the server's writes for its replicas
  // The server's host listener for modified keys (Server::set_modified_listener); may be empty.
  const std::function<void(int db, std::string_view key)>* on_modified = nullptr;

  bool observing() const { return observer != nullptr; }

  // Redis lookupKey*: a key past its deadline is deleted on access (reported
  // as Expired, WATCHers touched) and reads as absent.
  Entry* lookup(std::string_view key, int64_t now_ms) {  // inline: every read and write starts here
    const auto it = keys.find(key);
    if (it == keys.end()) return nullptr;
    if (!it->second.expired_at(now_ms)) return &it->second;
    return expire_on_access(it, now_ms);
  }
  // Pure check without deletion (Redis keyIsExpired).
  bool is_expired(std::string_view key, int64_t now_ms) const;
  const Entry* peek(std::string_view key, int64_t now_ms) const;

  static constexpr int64_t kKeepTtl = -2;
  // Creates or replaces a string value with the given deadline (-1 none, kKeepTtl keep).
  void set_string(std::string_view key, std::string_view value, int64_t expire_at_ms, ConnectionId conn,
                  int64_t now_ms);
  // Creates an empty value of the given type; the caller fills it and reports.
  Entry& create(std::string_view key, ValueType type);
  // Stores a whole value under a key (replacing any), reported as Set.
  void put(std::string_view key, Entry entry, ConnectionId conn, int64_t now_ms);
  bool remove(std::string_view key, ConnectionId conn, int64_t now_ms);
  // DEL's removal: lookup()'s lazy expiry then remove() of a live key, with one search.
  bool remove_live(std::string_view key, ConnectionId conn, int64_t now_ms) {
    const auto it = keys.find(key);
    if (it == keys.end()) return false;
    if (it->second.expired_at(now_ms)) {
      expire_on_access(it, now_ms);
      return false;
    }
    remove_at(it, conn, now_ms);
    return true;
  }
  void set_expire(Entry& entry, std::string_view key, int64_t at_ms, ConnectionId conn, int64_t now_ms);
  bool remove_expire(Entry& entry, std::string_view key, ConnectionId conn, int64_t now_ms);
  void remove_all(ConnectionId conn, int64_t now_ms);  // FLUSHALL / FLUSHDB
  // Deletes expired keys (the active expire cycle); at most `limit` of them.
  size_t expire_some(int64_t now_ms, size_t limit);

  // A value changed in place: touches WATCHers and reports it.
  void changed(std::string_view key, const Entry& entry, std::optional<std::string> old_value, ConnectionId conn,
               int64_t now_ms) {
    signal_modified(key);
    if (observing()) report_set(key, entry, std::move(old_value), conn, now_ms);
  }
  // An aggregate changed in place: deletes the key if it became empty, else as changed().
  void changed_or_removed(std::string_view key, Entry& entry, std::optional<std::string> old_value, ConnectionId conn,
                          int64_t now_ms);
  // Reports a changed value (old rendering captured by the caller when observing).
  void report_set(std::string_view key, const Entry& entry, std::optional<std::string> old_value, ConnectionId conn,
                  int64_t now_ms);
  std::optional<std::string> old_rendering(const Entry* entry) const {
    if (!observing() || !entry) return std::nullopt;
    return entry->render();
  }

  // Redis signalModifiedKey: invalidates WATCHers of the key (and notes the write for
  // the replicas: every change of a key passes here).
  void signal_modified(std::string_view key, bool value_changed = true, bool expired = false) {
    if (!watches->empty()) watches->touch(id, key, keys.find(key) != keys.end());
    if (notify->flags) notify->modified(id, key);
    if (propagation && propagation->on()) propagation->note(id, key, value_changed, expired);
    if (on_modified && *on_modified) (*on_modified)(id, key);
  }
  // Every key, for a write that replaces the whole database (FLUSHDB, SWAPDB).
  void note_all_for_replicas() {
    if (!propagation || !propagation->on()) return;
    for (const auto& [key, entry] : keys) propagation->note(id, key, true, false);
  }
  // Redis signalKeyAsReady: a list or sorted set got elements; blocked clients may go on.
  void signal_ready(std::string_view key) {
    if (blocking.empty() || !blocking.count(key)) return;
    for (const std::string& k : ready)
      if (k == key) return;
    ready.emplace_back(key);
    *any_ready = true;
  }

  void watch(ConnectionState& conn, std::string_view key, int64_t now_ms) {
    watches->watch(conn, id, key, is_expired(key, now_ms));
  }

 private:
  // lookup() of a key past its deadline: deletes it as Redis's lazy expiry does; nullptr.
  Entry* expire_on_access(KeyMap::iterator it, int64_t now_ms);
  void remove_at(KeyMap::iterator it, ConnectionId conn, int64_t now_ms);
  void emit(KeyEffect::Kind kind, ConnectionId conn, std::string_view key, std::optional<std::string> old_value,
            std::optional<std::string> new_value, int64_t expire_at_ms, int64_t now_ms);
};

}  // namespace locksim::redis
