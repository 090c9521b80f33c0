#pragma once
// The memory of one Lua state (internal): small blocks come from size-class free
// lists carved out of a few large chunks, larger ones from malloc. A state makes
// and frees thousands of small objects (building the sandbox, every EVAL, closing),
// and glibc's malloc costs several times a free-list push or pop per block, plus a
// 16-byte header each. Chunks are returned only when the arena goes, with the state.
// Freed small blocks wait for a block of their own size class (the chunks are kept
// until the state closes); the Lua memory cap still bounds what is live at once.
//
// A state can be built inside one region (begin_region) and sealed: the region's
// bytes are then kept as its pristine image, and restore() writes them back at the
// same addresses, which gives back the state exactly as built, byte for byte, for a
// memcpy instead of a rebuild (lua_state_pool.cpp).
// Nothing here reads or exposes an address beyond handing blocks to Lua (addresses
// are compared only to tell region blocks from malloc'd ones).
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
  // Drops every chunk, block, region and image (the state that used them is closed).
  void release();

  // For a state about to be built: every block, large ones too, is carved from one
  // region of `bytes` until seal().
  void begin_region(size_t bytes);
  // The state is built: keeps the region's used bytes and the free lists as the
  // pristine image. False (and no image) when the build did not fit in the region.
  bool seal();
  bool sealed() const { return !image_.empty(); }
  // Writes the image back and drops every block made since seal(): the memory is
  // again exactly what it was when sealed.
  void restore();
  // Whether `size` bytes at `ptr` (a block made before seal()) are as sealed.
  bool unchanged_since_seal(const void* ptr, size_t size) const;
  size_t region_used() const;

 private:
  static constexpr size_t kGranule = 16;                    // blocks are multiples of this
  static constexpr size_t kSmallMax = 256;                  // larger blocks go to malloc
  static constexpr size_t kClasses = kSmallMax / kGranule;  // 16, 32, ..., 256
  static constexpr size_t kChunk = 4096 - 16;               // with malloc's header, a page

  static size_t class_of(size_t size) { return (size - 1) / kGranule; }
  void* allocate_small(size_t cls);
  void free_small(void* ptr, size_t cls);
  void carve(char* at, size_t bytes);
  void* allocate_large(size_t size);
  void* reallocate_large(void* ptr, size_t nsize);
  void free_block(void* ptr, size_t size);
  bool in_region(const void* ptr) const;
  bool grow();
  void drop_chunks_and_large();

  struct FreeBlock {
    FreeBlock* next;
  };
  // A large block from malloc carries this header, linked so restore() can free them all.
  struct alignas(16) LargeHeader {
    LargeHeader* prev;
    LargeHeader* next;
  };
  FreeBlock* free_[kClasses] = {};
  char* bump_ = nullptr;  // the unused tail of the newest chunk (or of the region)
  char* bump_end_ = nullptr;
  std::vector<void*> chunks_;
  LargeHeader* large_ = nullptr;  // every live large block from malloc
  bool building_ = false;         // large blocks come from the region too
  bool spilled_ = false;          // the build outgrew the region
  char* region_ = nullptr;
  size_t region_size_ = 0;
  // The sealed image: the region's used bytes, the free lists and the bump pointer.
  std::vector<char> image_;
  FreeBlock* image_free_[kClasses] = {};
  char* image_bump_ = nullptr;
};

}  // namespace locksim::redis
