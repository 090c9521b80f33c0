#pragma once
// A hash index over the nodes of a database's ordered key map, for point lookups only
// (internal to KeyMap). The map keeps the order everything observable walks in (KEYS,
// SCAN, RANDOMKEY, FLUSHALL, eviction, INFO); the index is never iterated, so it
// cannot reorder anything. Its hash reads the key's bytes only, with fixed constants:
// no pointer, per-process seed or std::hash (whose algorithm the standard leaves open)
// feeds it, so where a key lands, and so the work a lookup does, is the same on every
// run of the same binary.
//
// Open addressing with linear probing, at most half full, in a power-of-two table; a
// removal shifts the following run back (no tombstones), so a lookup's probe length
// depends only on the keys present.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include "locksim/base/assert.hpp"

namespace locksim::redis {

// 8 bytes a step; each step multiplies once. Not for adversaries: a key that collides
// costs probes, never a wrong answer (every hit compares the whole key).
inline uint64_t key_hash(std::string_view key) {
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
  uint64_t h = 0xD6E8FEB86659FD93ull ^ (key.size() * kMul);
  const char* p = key.data();
  size_t n = key.size();
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    h = (h ^ word) * kMul;
    h ^= h >> 29;
  }
  if (n > 0) {
    uint64_t word = 0;
    for (size_t i = 0; i < n; ++i) word |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
    h = (h ^ word) * kMul;
  }
  h ^= h >> 32;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 29;
  return h | 1;  // 0 marks an empty slot
}

// `Iterator` is the map's iterator: stable while its node lives, its key at it->first.
template <class Iterator>
class KeyIndex {
 public:
  size_t size() const { return used_; }
  bool active() const { return !slots_.empty(); }

  // Where `key` is, or `none` when the map holds no such key.
  Iterator find(std::string_view key, uint64_t hash, Iterator none) const {
    for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const Slot& slot = slots_[i];
      if (slot.hash == 0) return none;
      if (slot.hash == hash && std::string_view(slot.node->first) == key) return slot.node;
    }
  }

  // Starts loading the slot a lookup of `hash` begins at: a hint, which changes nothing.
  // Always inlined: GCC finds a function whose only effect is a prefetch "pure" and
  // drops the calls to it.
  [[gnu::always_inline]] void prefetch(uint64_t hash) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[hash & mask_]);
  }

  // `node` is new in the map (its key is in no slot yet).
  void insert(Iterator node, uint64_t hash) {
    if (2 * (used_ + 1) > slots_.size()) grow();
    place(node, hash);
    ++used_;
  }

  // `node` is about to leave the map.
  void erase(Iterator node, uint64_t hash) {
    size_t i = hash & mask_;
    while (slots_[i].node != node) {
      LOCKSIM_ASSERT(slots_[i].hash != 0, "a key map's node is missing from its hash index");
      i = (i + 1) & mask_;
    }
    // Backward shift: move up every later entry of the run whose home is not between
    // the hole and it, so no probe ever stops early at the hole.
    for (size_t j = (i + 1) & mask_;; j = (j + 1) & mask_) {
      if (slots_[j].hash == 0) break;
      const size_t home = slots_[j].hash & mask_;
      const bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
      if (stays) continue;
      slots_[i] = slots_[j];
      i = j;
    }
    slots_[i] = Slot{};
    --used_;
  }

  void clear() {
    slots_.clear();
    slots_.shrink_to_fit();
    mask_ = 0;
    used_ = 0;
  }

 private:
  struct Slot {
    uint64_t hash = 0;
    Iterator node{};
  };

  void place(Iterator node, uint64_t hash) {
    size_t i = hash & mask_;
    while (slots_[i].hash != 0) i = (i + 1) & mask_;
    slots_[i] = Slot{hash, node};
  }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : 2 * old.size(), Slot{});
    mask_ = slots_.size() - 1;
    for (const Slot& slot : old)
      if (slot.hash != 0) place(slot.node, slot.hash);
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t used_ = 0;
};

}  // namespace locksim::redis
