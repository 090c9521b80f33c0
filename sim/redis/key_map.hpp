#pragma once
// A database's keys: ordered, so that anything iterating them (KEYS, SCAN,
// FLUSHALL) is deterministic. It remembers the last key it found: a command or
// a script touches the same key several times in a row (GET then DEL, a lookup
// then a removal), and every search of the tree compares the key at each level.
// Past kIndexFrom keys it also keeps an index by hash, so that a lookup among 100 k
// keys costs one hash and a probe instead of about 17 comparisons down the tree.
// The index is only looked up, never iterated: iteration stays the tree's, in key
// order. A small keyspace (a simulation's few lock keys) has none and pays nothing.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
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
  // (A std::map's nodes move with it, so the index's iterators stay good.)
  KeyMap(KeyMap&& o) noexcept : map_(std::move(o.map_)), index_(std::move(o.index_)) { o.forget(); }
  KeyMap& operator=(const KeyMap&) = delete;
  KeyMap& operator=(KeyMap&& o) noexcept {
    map_ = std::move(o.map_);
    index_ = std::move(o.index_);
    forget();
    o.forget();
    return *this;
  }
  ~KeyMap() = default;
  friend void swap(KeyMap& a, KeyMap& b) noexcept {
    a.map_.swap(b.map_);
    a.index_.swap(b.index_);
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
    iterator it = map_.end();
    if (indexed()) {
      if (const auto hit = index_->find(key); hit != index_->end()) it = hit->second;
    } else {
      it = map_.find(key);
    }
    if (it != map_.end()) last_ = it;
    return it;
  }
  // Finding changes nothing a reader sees: only which key is remembered.
  const_iterator find(std::string_view key) const { return const_cast<KeyMap*>(this)->find(key); }

  template <class... Args>
  std::pair<iterator, bool> emplace(Args&&... args) {
    const auto placed = map_.emplace(std::forward<Args>(args)...);
    if (placed.second) {
      if (indexed())
        index_->emplace(std::string_view(placed.first->first), placed.first);
      else if (map_.size() >= kIndexFrom)
        build_index();
    }
    return placed;
  }

  iterator erase(const_iterator it) {
    if (it == last_) forget();
    if (indexed()) index_->erase(std::string_view(it->first));
    return map_.erase(it);
  }
  iterator erase(iterator it) { return erase(const_iterator(it)); }
  void clear() {
    map_.clear();
    index_.reset();
    forget();
  }

 private:
  // From this many keys a lookup by hash beats the tree's ~log2(n) comparisons.
  static constexpr size_t kIndexFrom = 512;
  using Index = std::unordered_map<std::string_view, iterator, std::hash<std::string_view>>;

  bool indexed() const { return index_ != nullptr; }
  void build_index() {
    index_ = std::make_unique<Index>();
    index_->reserve(map_.size() * 2);
    for (iterator it = map_.begin(); it != map_.end(); ++it) index_->emplace(std::string_view(it->first), it);
  }
  void forget() { last_ = map_.end(); }

  Map map_;
  // key -> its node, once there are kIndexFrom keys (the keys view the nodes' own strings);
  // none below, so a small keyspace pays one pointer.
  std::unique_ptr<Index> index_;
  mutable iterator last_ = map_.end();
};

}  // namespace locksim::redis
