#pragma once
// The memory of one Lua state (internal): small blocks come from size-class free
// lists carved out of a few large chunks, larger ones from malloc. A state makes
// and frees thousands of small objects (building the sandbox, every EVAL, closing),
// and glibc's malloc costs several times a free-list push or pop per block, plus a
// 16-byte header each. Chunks are returned only when the arena goes, with the state.
// Freed small blocks wait for a block of their own size class (the chunks are kept
// until the state closes); the Lua memory cap still bounds what is live at once.
// Nothing here reads or exposes an address beyond handing blocks to Lua.
#include <cstddef>
#include <vector>

namespace locksim::redis {

class LuaArena {
 public:
  LuaArena() = default;
  ~LuaArena();
  LuaArena(const LuaArena&) = delete;
  LuaArena& operator=(const LuaArena&) = delete;

  // lua_Alloc's contract: nsize 0 frees (returns nullptr), else (re)allocates
  // keeping min(osize, nsize) bytes; nullptr when out of memory (old block kept).
  void* reallocate(void* ptr, size_t osize, size_t nsize);
  // Drops every chunk (the state that used them is closed).
  void release();

 private:
  static constexpr size_t kGranule = 16;                    // blocks are multiples of this
  static constexpr size_t kSmallMax = 256;                  // larger blocks go to malloc
  static constexpr size_t kClasses = kSmallMax / kGranule;  // 16, 32, ..., 256
  static constexpr size_t kChunk = 4096 - 16;               // with malloc's header, a page

  static size_t class_of(size_t size) { return (size - 1) / kGranule; }
  void* allocate_small(size_t cls);
  void free_small(void* ptr, size_t cls);
  bool grow();

  struct FreeBlock {
    FreeBlock* next;
  };
  FreeBlock* free_[kClasses] = {};
  char* bump_ = nullptr;  // the unused tail of the newest chunk
  char* bump_end_ = nullptr;
  std::vector<void*> chunks_;
};

}  // namespace locksim::redis
