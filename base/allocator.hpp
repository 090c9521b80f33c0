#pragma once
// Keeps memory a program frees for its own reuse. By default glibc gives the top of
// the heap back to the kernel once 128 KiB of it is free, and serves blocks past a
// threshold by mmap: a program that runs thousands of simulations, each building
// and freeing a history of some megabytes, then faults the same pages in again on
// every run. That was 70 % of a lock simulation's time (bench_lock: 7,163x real
// time before, 23,386x after). The locksim program calls this first thing; a
// program of your own that runs many simulations should too.
#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace locksim::base {

inline void keep_freed_memory_for_reuse() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 32 << 20);   // blocks up to 32 MiB (glibc's maximum) come from the heap,
  mallopt(M_TRIM_THRESHOLD, 256 << 20);  // which keeps up to 256 MiB free at its top
#endif
}

}  // namespace locksim::base
