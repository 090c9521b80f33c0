#include "locksim/sim/redis/lua_arena.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>

namespace locksim::redis {

LuaArena::~LuaArena() { release(); }

void LuaArena::drop_chunks_and_large() {
  for (void* chunk : chunks_) std::free(chunk);
  chunks_.clear();
  while (large_) {
    LargeHeader* next = large_->next;
    std::free(large_);
    large_ = next;
  }
}

void LuaArena::release() {
  drop_chunks_and_large();
  std::free(region_);
  region_ = nullptr;
  region_size_ = 0;
  image_.clear();
  image_.shrink_to_fit();
  building_ = spilled_ = false;
  std::fill(std::begin(free_), std::end(free_), nullptr);
  bump_ = bump_end_ = nullptr;
}

void LuaArena::begin_region(size_t bytes) {
  release();
  region_ = static_cast<char*>(std::malloc(bytes));
  if (!region_) return;  // the build then spills to chunks and is never sealed
  region_size_ = bytes;
  bump_ = region_;
  bump_end_ = region_ + bytes;
  building_ = true;
}

bool LuaArena::seal() {
  building_ = false;
  if (spilled_ || !region_) return false;
  image_.assign(region_, bump_);
  std::copy(std::begin(free_), std::end(free_), std::begin(image_free_));
  image_bump_ = bump_;
  return true;
}

void LuaArena::restore() {
  drop_chunks_and_large();
  std::memcpy(region_, image_.data(), image_.size());
  std::copy(std::begin(image_free_), std::end(image_free_), std::begin(free_));
  bump_ = image_bump_;
  bump_end_ = region_ + region_size_;
}

bool LuaArena::unchanged_since_seal(const void* ptr, size_t size) const {
  if (!sealed() || !in_region(ptr)) return false;
  const auto offset = static_cast<size_t>(static_cast<const char*>(ptr) - region_);
  return offset + size <= image_.size() && std::memcmp(ptr, image_.data() + offset, size) == 0;
}

size_t LuaArena::region_used() const { return in_region(bump_) ? static_cast<size_t>(bump_ - region_) : 0; }

bool LuaArena::in_region(const void* ptr) const {
  std::less<const void*> less;
  return region_ && !less(ptr, region_) && less(ptr, region_ + region_size_);
}

// A new chunk of kChunk bytes: at most one chunk's tail is unused, so a state costs
// little more than its live blocks (the figure bench_lock's memory goal counts).
// The old chunk's tail is handed to the free lists so nothing is lost.
bool LuaArena::grow() {
  if (building_) spilled_ = true;
  const size_t size = kChunk;
  void* chunk = std::malloc(size);
  if (!chunk) return false;
  carve(bump_, static_cast<size_t>(bump_end_ - bump_));
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

// Hands `bytes` at `at` to the free lists as small blocks, largest first.
void LuaArena::carve(char* at, size_t bytes) {
  while (bytes >= kGranule) {
    const size_t cls = std::min(kClasses, bytes / kGranule) - 1;
    free_small(at, cls);
    at += (cls + 1) * kGranule;
    bytes -= (cls + 1) * kGranule;
  }
}

void LuaArena::free_small(void* ptr, size_t cls) {
  auto* block = static_cast<FreeBlock*>(ptr);
  block->next = free_[cls];
  free_[cls] = block;
}

// While building, from the region (so that the image holds it); else from malloc, linked.
void* LuaArena::allocate_large(size_t size) {
  const size_t rounded = (size + kGranule - 1) / kGranule * kGranule;
  if (building_ && bump_end_ - bump_ >= static_cast<std::ptrdiff_t>(rounded) && in_region(bump_)) {
    void* block = bump_;
    bump_ += rounded;
    return block;
  }
  if (building_) spilled_ = true;
  auto* header = static_cast<LargeHeader*>(std::malloc(sizeof(LargeHeader) + size));
  if (!header) return nullptr;
  header->prev = nullptr;
  header->next = large_;
  if (large_) large_->prev = header;
  large_ = header;
  return header + 1;
}

void* LuaArena::reallocate_large(void* ptr, size_t nsize) {
  auto* moved =
      static_cast<LargeHeader*>(std::realloc(static_cast<LargeHeader*>(ptr) - 1, sizeof(LargeHeader) + nsize));
  if (!moved) return nullptr;
  (moved->prev ? moved->prev->next : large_) = moved;
  if (moved->next) moved->next->prev = moved;
  return moved + 1;
}

// A large block of the region becomes small ones (a state being built outgrows its
// tables several times; restore() puts the free lists back as they were).
void LuaArena::free_block(void* ptr, size_t size) {
  if (!ptr) return;
  if (size <= kSmallMax) return free_small(ptr, class_of(size));
  if (in_region(ptr)) return carve(static_cast<char*>(ptr), (size + kGranule - 1) / kGranule * kGranule);
  auto* header = static_cast<LargeHeader*>(ptr) - 1;
  (header->prev ? header->prev->next : large_) = header->next;
  if (header->next) header->next->prev = header->prev;
  std::free(header);
}

void* LuaArena::reallocate(void* ptr, size_t osize, size_t nsize) {
  if (nsize == 0) {
    free_block(ptr, osize);
    return nullptr;
  }
  void* block = nullptr;
  if (nsize > kSmallMax) {
    if (ptr && osize > kSmallMax && !in_region(ptr)) return reallocate_large(ptr, nsize);
    block = allocate_large(nsize);
  } else {
    const size_t cls = class_of(nsize);
    if (ptr && osize <= kSmallMax && class_of(osize) == cls) return ptr;
    block = allocate_small(cls);
  }
  if (!block) return nullptr;
  if (ptr) {
    std::memcpy(block, ptr, std::min(osize, nsize));
    free_block(ptr, osize);
  }
  return block;
}

}  // namespace locksim::redis
