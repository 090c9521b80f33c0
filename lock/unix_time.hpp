#pragma once
// Local clocks read as Unix time in milliseconds from a fixed base, so that
// timestamps, TIME and the key deadlines a history records look like real
// ones. The history's readers (props, render) convert them back from here.
#include <cstdint>

#include "locksim/sim/time.hpp"

namespace locksim::lock {

inline constexpr int64_t kEpochMs = 1'700'000'000'000;

inline int64_t unix_ms(sim::Instant local) {
  int64_t ms = local.ns / 1'000'000;
  if (local.ns < 0 && local.ns % 1'000'000 != 0) --ms;  // floor
  return kEpochMs + ms;
}

// The local instant a Unix time in milliseconds stands for.
inline sim::Instant from_unix_ms(int64_t unix_time_ms) { return sim::Instant{(unix_time_ms - kEpochMs) * 1'000'000}; }

}  // namespace locksim::lock
