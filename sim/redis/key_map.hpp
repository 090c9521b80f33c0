#pragma once
// A database's keys: ordered, so that anything iterating them (KEYS, SCAN,
// FLUSHALL) is deterministic. It remembers the last key it found: a command or
// a script touches the same key several times in a row (GET then DEL, a lookup
// then a removal), and every search of the tree compares the key at each level.
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "locksim/sim/redis/keyspace.hpp"

namespace locksim::redis {

class KeyMap {
  using Map = std::map<std::string, Entry, std::less<>>;

 public:
  using iterator = Map::iterator;
  using const_iterator = Map::const_iterator;
  using value_type = Map::value_type;

  KeyMap() = default;
  KeyMap(const KeyMap&) = delete;  // entries move, never copy
  KeyMap(KeyMap&& o) noexcept : map_(std::move(o.map_)) { o.forget(); }
  KeyMap& operator=(const KeyMap&) = delete;
  KeyMap& operator=(KeyMap&& o) noexcept {
    map_ = std::move(o.map_);
    forget();
    o.forget();
    return *this;
  }
  ~KeyMap() = default;
  friend void swap(KeyMap& a, KeyMap& b) noexcept {
    a.map_.swap(b.map_);
    a.forget();
    b.forget();
  }

  iterator begin() { return map_.begin(); }
  iterator end() { return map_.end(); }
  const_iterator begin() const { return map_.begin(); }
  const_iterator end() const { return map_.end(); }
  size_t size() const { return map_.size(); }
  bool empty() const { return map_.empty(); }
  size_t count(std::string_view key) const { return find(key) != end() ? 1 : 0; }
  const_iterator lower_bound(std::string_view key) const { return map_.lower_bound(key); }
  const_iterator upper_bound(std::string_view key) const { return map_.upper_bound(key); }

  iterator find(std::string_view key) {
    if (last_ != map_.end() && last_->first == key) return last_;
    const iterator it = map_.find(key);
    if (it != map_.end()) last_ = it;
    return it;
  }
  // Finding changes nothing a reader sees: only which key is remembered.
  const_iterator find(std::string_view key) const { return const_cast<KeyMap*>(this)->find(key); }

  template <class... Args>
  std::pair<iterator, bool> emplace(Args&&... args) {
    return map_.emplace(std::forward<Args>(args)...);
  }

  iterator erase(const_iterator it) {
    if (it == last_) forget();
    return map_.erase(it);
  }
  iterator erase(iterator it) { return erase(const_iterator(it)); }
  void clear() {
    map_.clear();
    forget();
  }

 private:
  void forget() { last_ = map_.end(); }

  Map map_;
  mutable iterator last_ = map_.end();
};

}  // namespace locksim::redis
