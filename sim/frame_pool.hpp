#pragma once
// Coroutine frames come and go by the thousand in a simulation (a frame per
// request, per sleep, per lock step), in a handful of sizes. Each thread keeps
// the frames it freed, by size, for the next frame of that size: a pop instead
// of malloc's path, which overflows its small per-size cache on every burst.
// No address reaches a simulation's results, so reuse changes only the time.
// The sanitizer build allocates each frame afresh, so ASan still catches a frame
// used after it was destroyed.
#include <cstddef>
#include <new>
#include <utility>

namespace locksim::sim {

namespace detail {

#if defined(__has_feature)
#if __has_feature(address_sanitizer)  // clang's spelling
#define LOCKSIM_FRAMES_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(LOCKSIM_FRAMES_SANITIZED)
inline constexpr bool kPoolFrames = false;
#else
inline constexpr bool kPoolFrames = true;
#endif

// Trivially destructible, so it outlives every other thread_local: a frame freed
// by a late destructor still finds it (closed, and then goes straight to delete).
struct FrameLists {
  static constexpr size_t kGranule = 32;
  static constexpr size_t kClasses = 64;  // frames up to 2 KiB; larger ones are rare
  struct Free {
    Free* next;
  };
  Free* heads[kClasses];
  bool closed;
};
inline thread_local FrameLists frame_lists{};

inline void release_frame_lists(FrameLists& lists) {
  for (auto*& head : lists.heads)
    while (head) ::operator delete(std::exchange(head, head->next));
}

// Gives the kept frames back when the thread ends.
struct FrameListsCloser {
  ~FrameListsCloser() {
    release_frame_lists(frame_lists);
    frame_lists.closed = true;
  }
};
inline thread_local FrameListsCloser frame_lists_closer;

inline size_t frame_class(size_t bytes) { return (bytes + FrameLists::kGranule - 1) / FrameLists::kGranule; }

inline void* allocate_frame(size_t bytes) {
  const size_t c = frame_class(bytes);
  if (!kPoolFrames || c > FrameLists::kClasses) return ::operator new(bytes);
  (void)&frame_lists_closer;  // odr-use: constructs the closer on this thread
  FrameLists::Free*& head = frame_lists.heads[c - 1];
  if (head) return std::exchange(head, head->next);
  return ::operator new(c * FrameLists::kGranule);
}

inline void free_frame(void* frame, size_t bytes) noexcept {
  const size_t c = frame_class(bytes);
  if (!kPoolFrames || c > FrameLists::kClasses || frame_lists.closed) {
    ::operator delete(frame);
    return;
  }
  auto* freed = static_cast<FrameLists::Free*>(frame);
  freed->next = frame_lists.heads[c - 1];
  frame_lists.heads[c - 1] = freed;
}

}  // namespace detail

// Hands this thread's kept frames back to the allocator: for a memory
// measurement that must count every frame a simulation makes.
inline void release_pooled_frames() { detail::release_frame_lists(detail::frame_lists); }

}  // namespace locksim::sim
