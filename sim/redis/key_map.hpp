#pragma once
// A database's keys: ordered, so that anything iterating them (KEYS, SCAN,
// FLUSHALL) is deterministic. Point lookups go through a hash index beside the
// map once it holds enough keys for a tree search to cost more than a hash
// (key_index.hpp: the index is never iterated and its hash reads only the key's
// bytes, so it changes no order and no outcome). It also remembers the last key
// it found: a command or a script touches the same key several times in a row
// (GET then DEL, a lookup then a removal).
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "locksim/base/assert.hpp"
#include "locksim/sim/redis/key_index.hpp"
#include "locksim/sim/redis/keyspace.hpp"

namespace locksim::redis {

class KeyMap {
  using Map = std::map<std::string, Entry, std::less<>>;

 public:
  using iterator = Map::iterator;
  using const_iterator = Map::const_iterator;
  using value_type = Map::value_type;

  // The index is built when the map reaches kIndexFrom keys and dropped when it falls
  // to kIndexUntil: a lock's few keys are found in a tree of depth 2 or 3 faster than
  // by hashing, and insertions and removals then pay for no index.
  static constexpr size_t kIndexFrom = 16;
  static constexpr size_t kIndexUntil = 4;

  KeyMap() = default;
  KeyMap(const KeyMap&) = delete;  // entries move, never copy
  // Moving a std::map keeps its nodes, so the index's iterators stay valid.
  KeyMap(KeyMap&& o) noexcept : map_(std::move(o.map_)), index_(std::move(o.index_)) {
    o.index_.clear();
    o.forget();
  }
  KeyMap& operator=(const KeyMap&) = delete;
  KeyMap& operator=(KeyMap&& o) noexcept {
    map_ = std::move(o.map_);
    index_ = std::move(o.index_);
    o.index_.clear();
    forget();
    o.forget();
    return *this;
  }
  ~KeyMap() = default;
  friend void swap(KeyMap& a, KeyMap& b) noexcept {
    a.map_.swap(b.map_);
    std::swap(a.index_, b.index_);
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
    const iterator it = index_.active() ? index_.find(key, key_hash(key), map_.end()) : map_.find(key);
    if (it != map_.end()) last_ = it;
    return it;
  }
  // Starts loading where a lookup of `key` will look first (a script's declared keys, long
  // before it reads them: in a large keyspace that slot is a cache miss). Changes nothing.
  [[gnu::always_inline]] void prefetch(std::string_view key) const {  // (see KeyIndex::prefetch)
    if (index_.active()) index_.prefetch(key_hash(key));
  }
  // Finding changes nothing a reader sees: only which key is remembered.
  const_iterator find(std::string_view key) const { return const_cast<KeyMap*>(this)->find(key); }

  template <class... Args>
  std::pair<iterator, bool> emplace(Args&&... args) {
    const auto placed = map_.emplace(std::forward<Args>(args)...);
    if (placed.second) {
      if (index_.active())
        index_.insert(placed.first, key_hash(placed.first->first));
      else if (map_.size() >= kIndexFrom)
        build_index();
      check_index();
    }
    return placed;
  }

  iterator erase(const_iterator it) {
    unindex(it);
    const iterator next = map_.erase(it);
    check_index();
    return next;
  }
  iterator erase(iterator it) { return erase(const_iterator(it)); }
  // Takes the entry out without finding its successor (erase's iterator, a walk to a
  // node anywhere in memory); its key stays readable in the node until that goes.
  Map::node_type extract(const_iterator it) {
    unindex(it);
    Map::node_type node = map_.extract(it);
    check_index();
    return node;
  }
  void clear() {
    map_.clear();
    index_.clear();
    forget();
  }

  // Every key is in the index at its own node, and the index holds nothing else
  // (walks everything: for tests).
  bool index_agrees() const {
    if (!index_.active()) return map_.size() < kIndexFrom;
    if (index_.size() != map_.size()) return false;
    for (auto it = map_.begin(); it != map_.end(); ++it)
      if (index_.find(it->first, key_hash(it->first), const_cast<Map&>(map_).end()) != it) return false;
    return true;
  }
  bool indexed() const { return index_.active(); }

 private:
  void forget() { last_ = map_.end(); }
  // Before the entry at `it` leaves the map: it leaves the last-found slot and the hash index.
  void unindex(const_iterator it) {
    if (it == last_) forget();
    if (!index_.active()) return;
    if (map_.size() - 1 <= kIndexUntil)
      index_.clear();
    else
      index_.erase(map_.erase(it, it), key_hash(it->first));  // erase(it, it): it, mutable
  }
  void build_index() {
    for (iterator it = map_.begin(); it != map_.end(); ++it) index_.insert(it, key_hash(it->first));
  }
  // Cheap enough for every insertion and removal: the index holds exactly the map's keys.
  void check_index() const {
    LOCKSIM_ASSERT(!index_.active() || index_.size() == map_.size(), "a key map and its hash index disagree");
  }

  Map map_;
  KeyIndex<iterator> index_;
  mutable iterator last_ = map_.end();
};

}  // namespace locksim::redis
