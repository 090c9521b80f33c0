#include "locksim/sim/redis/lua_arena.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace locksim::redis {

LuaArena::~LuaArena() { release(); }

void LuaArena::release() {
  for (void* chunk : chunks_) std::free(chunk);
  chunks_.clear();
  std::fill(std::begin(free_), std::end(free_), nullptr);
  bump_ = bump_end_ = nullptr;
}

// A new chunk of kChunk bytes: at most one chunk's tail is unused, so a state costs
// little more than its live blocks (the figure bench_lock's memory goal counts).
// The old chunk's tail is handed to the free lists so nothing is lost.
bool LuaArena::grow() {
  const size_t size = kChunk;
  void* chunk = std::malloc(size);
  if (!chunk) return false;
  while (bump_end_ - bump_ >= static_cast<std::ptrdiff_t>(kGranule)) {
    const size_t left = static_cast<size_t>(bump_end_ - bump_);
    const size_t cls = std::min(kClasses, left / kGranule) - 1;
    free_small(bump_, cls);
    bump_ += (cls + 1) * kGranule;
  }
  chunks_.push_back(chunk);
  bump_ = static_cast<char*>(chunk);
  bump_end_ = bump_ + size;
  return true;
}

void* LuaArena::allocate_small(size_t cls) {
  if (FreeBlock* block = free_[cls]) {
    free_[cls] = block->next;
    return block;
  }
  const size_t size = (cls + 1) * kGranule;
  if (bump_end_ - bump_ < static_cast<std::ptrdiff_t>(size) && !grow()) return nullptr;
  void* block = bump_;
  bump_ += size;
  return block;
}

void LuaArena::free_small(void* ptr, size_t cls) {
  auto* block = static_cast<FreeBlock*>(ptr);
  block->next = free_[cls];
  free_[cls] = block;
}

void* LuaArena::reallocate(void* ptr, size_t osize, size_t nsize) {
  const bool old_small = ptr && osize <= kSmallMax;
  if (nsize == 0) {
    if (old_small)
      free_small(ptr, class_of(osize));
    else
      std::free(ptr);
    return nullptr;
  }
  if (nsize > kSmallMax) {
    if (!ptr || !old_small) return std::realloc(ptr, nsize);
    void* grown = std::malloc(nsize);
    if (!grown) return nullptr;
    std::memcpy(grown, ptr, osize);
    free_small(ptr, class_of(osize));
    return grown;
  }
  const size_t cls = class_of(nsize);
  if (old_small && class_of(osize) == cls) return ptr;
  void* block = allocate_small(cls);
  if (!block) return nullptr;
  if (ptr) {
    std::memcpy(block, ptr, std::min(osize, nsize));
    if (old_small)
      free_small(ptr, class_of(osize));
    else
      std::free(ptr);
  }
  return block;
}

}  // namespace locksim::redis
