#pragma once
// A node's local clock, derived from true time by exact integer math:
//   local(t) = t + offset + floor(t * drift_ppm / 1e6) + (sum of jumps planned at or before t)
//   monotonic(t) = t + floor(t * drift_ppm / 1e6)
// Clients' timestamps (the getset lock) and servers' expiry decisions read their own
// local clock; that is how skew, drift and jumps become observable.
#include <vector>

#include "locksim/sim/time.hpp"

namespace locksim::sim {

class LocalClock {
 public:
  LocalClock() = default;
  LocalClock(Duration offset, int64_t drift_ppm) : offset_(offset), drift_ppm_(drift_ppm) {}

  // Inline for a clock that neither drifts nor jumped (most: every event's record reads one).
  Instant local(Instant true_time) const {
    if (drift_ppm_ == 0 && jumps_.empty()) return Instant{true_time.ns + offset_.ns};
    return local_slow(true_time);
  }
  // The node's monotonic clock (CLOCK_MONOTONIC, std::chrono::steady_clock): it runs at
  // the same drifting rate, but no jump moves it and its origin is arbitrary (0 here), so
  // only its differences mean anything. Careful code times its waits and leases on it.
  Instant monotonic(Instant true_time) const;
  // True time a sleep of `local_span` (measured by this clock's rate, immune to jumps,
  // like CLOCK_MONOTONIC) takes; rounded up so the sleeper never wakes early.
  Duration true_span(Duration local_span) const;

  // A step of the wall clock at true instant `at` (NTP correction, operator error).
  void add_jump(Instant at, Duration by);

  Duration offset() const { return offset_; }
  int64_t drift_ppm() const { return drift_ppm_; }

 private:
  Instant local_slow(Instant true_time) const;
  struct Jump {
    Instant at;
    Duration by;
  };
  Duration offset_{};
  int64_t drift_ppm_ = 0;
  std::vector<Jump> jumps_;  // kept sorted by instant
};

}  // namespace locksim::sim
