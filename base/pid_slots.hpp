#pragma once
// Process ids a signal handler can read: a fixed array of atomics, filled and
// emptied without allocation, so a SIGINT handler may walk it and kill what is
// there (real/ for redis-server children, trial/ for client process groups).
// A full set drops the id: its owner still reaps it, only Ctrl-C would miss it.
#include <sys/types.h>

#include <atomic>
#include <cstddef>

namespace locksim::base {

template <size_t N>
class PidSlots {
 public:
  void add(pid_t pid) {
    for (auto& slot : slots_) {
      pid_t empty = 0;
      if (slot.compare_exchange_strong(empty, pid)) return;
    }
  }
  void remove(pid_t pid) {
    for (auto& slot : slots_) {
      pid_t expected = pid;
      if (slot.compare_exchange_strong(expected, 0)) return;
    }
  }
  // Async-signal-safe: atomic loads only.
  template <class F>
  void each(F&& f) const {
    for (const auto& slot : slots_)
      if (const pid_t pid = slot.load(); pid > 0) f(pid);
  }
  int count() const {
    int n = 0;
    each([&n](pid_t) { ++n; });
    return n;
  }

 private:
  std::atomic<pid_t> slots_[N]{};
};

}  // namespace locksim::base
