#include "locksim/sim/redis/database.hpp"

#include <algorithm>
#include <functional>

namespace locksim::redis {

// ---- WatchTable -------------------------------------------------------------------

void WatchTable::watch(ConnectionState& conn, int db, std::string_view key, bool expired_now) {
  for (const auto& [wdb, wkey] : conn.watched)
    if (wdb == db && wkey == key) return;
  auto it = by_key_.find(std::pair<int, std::string_view>(db, key));
  if (it == by_key_.end()) it = by_key_.emplace(std::pair<int, std::string>(db, key), std::vector<Watcher>{}).first;
  it->second.push_back(Watcher{&conn, expired_now});
  conn.watched.emplace_back(db, key);
}

void WatchTable::unwatch_all(ConnectionState& conn) {
  for (const auto& [db, key] : conn.watched) {
    auto it = by_key_.find(std::pair<int, std::string_view>(db, key));
    if (it == by_key_.end()) continue;
    auto& list = it->second;
    list.erase(std::remove_if(list.begin(), list.end(), [&](const Watcher& w) { return w.conn == &conn; }), list.end());
    if (list.empty()) by_key_.erase(it);
  }
  conn.watched.clear();
}

void WatchTable::touch(int db, std::string_view key, bool present) {
  auto it = by_key_.find(std::pair<int, std::string_view>(db, key));
  if (it == by_key_.end()) return;
  // Redis multi.c touchWatchedKey, including its early `break` when a watcher
  // that saw the key expired finds it present again (later watchers are skipped).
  std::vector<ConnectionState*> invalidated;
  for (Watcher& w : it->second) {
    if (w.expired_at_watch) {
      if (!present) {
        w.expired_at_watch = false;
        continue;
      }
      break;
    }
    invalidated.push_back(w.conn);
  }
  for (ConnectionState* conn : invalidated) {
    conn->dirty_cas = true;
    unwatch_all(*conn);  // as Redis: a dirty connection needs no more tracking
  }
}

void WatchTable::touch_all(int db, const std::function<bool(std::string_view)>& exists) {
  for (auto& [id, list] : by_key_) {
    if (id.first != db || !exists(id.second)) continue;
    for (Watcher& w : list) {
      if (w.expired_at_watch) {
        w.expired_at_watch = false;
        continue;
      }
      w.conn->dirty_cas = true;
    }
  }
}

bool WatchTable::any_expired(const ConnectionState& conn,
                             const std::function<bool(int, std::string_view)>& expired) const {
  for (const auto& [db, key] : conn.watched) {
    auto it = by_key_.find(std::pair<int, std::string_view>(db, key));
    if (it == by_key_.end()) continue;
    for (const Watcher& w : it->second) {
      if (w.conn != &conn) continue;
      if (!w.expired_at_watch && expired(db, key)) return true;
    }
  }
  return false;
}

// ---- Database ---------------------------------------------------------------------

namespace {
// Copies `value` into `str`'s kept capacity: clear then append costs less than assign's
// replace, but would read bytes it has just cleared if `value` lay in `str` itself.
void copy_into(std::string& str, std::string_view value) {
  const std::less_equal<const char*> at_most;
  if (at_most(str.data(), value.data()) && at_most(value.data(), str.data() + str.size())) {
    str.assign(value);
    return;
  }
  str.clear();
  str.append(value);
}
}  // namespace

Entry* Database::expire_on_access(KeyMap::iterator it, int64_t now_ms) {
  // Lazy expiry: Redis deletes the key, then signals it as modified.
  std::string name = it->first;
  if (observing()) emit(KeyEffect::Kind::Expired, 0, name, it->second.render(), std::nullopt, -1, now_ms);
  keys.erase(it);
  if (notify->flags) notify->expired(id, name);
  signal_modified(name, true, true);
  return nullptr;
}

bool Database::is_expired(std::string_view key, int64_t now_ms) const {
  auto it = keys.find(key);
  return it != keys.end() && it->second.expired_at(now_ms);
}

const Entry* Database::peek(std::string_view key, int64_t now_ms) const {
  auto it = keys.find(key);
  if (it == keys.end() || it->second.expired_at(now_ms)) return nullptr;
  return &it->second;
}

void Database::set_string(std::string_view key, std::string_view value, int64_t expire_at_ms, ConnectionId conn,
                          int64_t now_ms) {
  auto it = keys.find(key);
  std::optional<std::string> old_value;
  if (it == keys.end()) {
    it = keys.emplace(std::string(key), Entry{}).first;
    if (notify->flags) notify->added(id, key);
  } else {
    if (observing()) old_value = it->second.render();
    if (it->second.type != ValueType::String) it->second.reset(ValueType::String);
    it->second.raw = it->second.no_int = false;
  }
  if (expire_at_ms != kKeepTtl) it->second.expire_at_ms = expire_at_ms;
  copy_into(it->second.str, value);
  signal_modified(key);
  if (observing()) report_set(key, it->second, std::move(old_value), conn, now_ms);
}

Entry& Database::create(std::string_view key, ValueType type) {
  Entry& entry = keys.emplace(std::string(key), Entry{}).first->second;
  entry.type = type;
  if (notify->flags) notify->added(id, key);
  return entry;
}

void Database::put(std::string_view key, Entry entry, ConnectionId conn, int64_t now_ms) {
  auto it = keys.find(key);
  std::optional<std::string> old_value;
  if (it == keys.end()) {
    it = keys.emplace(std::string(key), std::move(entry)).first;
    if (notify->flags) notify->added(id, key);
  } else {
    if (observing()) old_value = it->second.render();
    it->second = std::move(entry);
  }
  signal_modified(key);
  if (it->second.type == ValueType::List || it->second.type == ValueType::ZSet) signal_ready(key);
  if (observing()) report_set(key, it->second, std::move(old_value), conn, now_ms);
}

bool Database::remove(std::string_view key, ConnectionId conn, int64_t now_ms) {
  auto it = keys.find(key);
  if (it == keys.end()) return false;
  remove_at(it, conn, now_ms);
  return true;
}

void Database::remove_at(KeyMap::iterator it, ConnectionId conn, int64_t now_ms) {
  if (observing()) emit(KeyEffect::Kind::Deleted, conn, it->first, it->second.render(), std::nullopt, -1, now_ms);
  const auto removed = keys.extract(it);  // holds the key's name until the signals are sent
  const std::string& name = removed.key();
  if (notify->flags) notify->removed(id, name);
  signal_modified(name);
}

void Database::changed_or_removed(std::string_view key, Entry& entry, std::optional<std::string> old_value,
                                  ConnectionId conn, int64_t now_ms) {
  if (entry.empty_aggregate()) {
    remove(key, conn, now_ms);
  } else {
    changed(key, entry, std::move(old_value), conn, now_ms);
  }
}

void Database::set_expire(Entry& entry, std::string_view key, int64_t at_ms, ConnectionId conn, int64_t now_ms) {
  entry.expire_at_ms = at_ms;
  signal_modified(key, false);
  if (observing()) {
    std::string value = entry.render();
    std::optional<std::string> before = value;  // the value stays: old and new alike, one copy
    emit(KeyEffect::Kind::ExpireChanged, conn, key, std::move(before), std::move(value), at_ms, now_ms);
  }
}

bool Database::remove_expire(Entry& entry, std::string_view key, ConnectionId conn, int64_t now_ms) {
  if (entry.expire_at_ms < 0) return false;
  set_expire(entry, key, -1, conn, now_ms);
  return true;
}

void Database::remove_all(ConnectionId conn, int64_t now_ms) {
  // Redis touchAllWatchedKeysInDb: WATCHers of keys that physically exist are
  // invalidated, except those that saw the key already expired.
  if (!watches->empty()) watches->touch_all(id, [&](std::string_view key) { return keys.find(key) != keys.end(); });
  note_all_for_replicas();
  if (observing()) {
    for (const auto& [key, entry] : keys)
      emit(KeyEffect::Kind::Deleted, conn, key, entry.render(), std::nullopt, -1, now_ms);
  }
  keys.clear();
}

size_t Database::expire_some(int64_t now_ms, size_t limit) {
  size_t removed = 0;
  for (auto it = keys.begin(); it != keys.end() && removed < limit;) {
    if (!it->second.expired_at(now_ms)) {
      ++it;
      continue;
    }
    std::string name = it->first;
    if (observing()) emit(KeyEffect::Kind::Expired, 0, name, it->second.render(), std::nullopt, -1, now_ms);
    it = keys.erase(it);
    if (notify->flags) notify->expired(id, name);
    signal_modified(name, true, true);
    ++removed;
  }
  return removed;
}

void Database::report_set(std::string_view key, const Entry& entry, std::optional<std::string> old_value,
                          ConnectionId conn, int64_t now_ms) {
  emit(KeyEffect::Kind::Set, conn, key, std::move(old_value), entry.render(), entry.expire_at_ms, now_ms);
}

void Database::emit(KeyEffect::Kind kind, ConnectionId conn, std::string_view key, std::optional<std::string> old_value,
                    std::optional<std::string> new_value, int64_t expire_at_ms, int64_t now_ms) {
  KeyEffect effect;
  effect.kind = kind;
  effect.conn = conn;
  effect.db = id;
  effect.key.assign(key);
  effect.old_value = std::move(old_value);
  effect.new_value = std::move(new_value);
  effect.expire_at_ms = expire_at_ms;
  effect.now_ms = now_ms;
  observer->take_effect(std::move(effect));
}

}  // namespace locksim::redis
