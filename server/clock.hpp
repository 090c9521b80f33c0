#pragma once
// The server's clock: the host's real time (as Redis reads it), or a manual clock that
// stands still until it is advanced. Both can be moved by an offset (ADVANCE, JUMP).
#include <cstdint>

namespace locksim::server {

enum class TimeMode { Wall, Manual };

class Clock {
 public:
  // A manual clock starts at the host's current time, so absolute expiries sent by
  // clients (EXPIREAT, PXAT) mean what they say.
  explicit Clock(TimeMode mode);

  int64_t now_ms() const;
  TimeMode mode() const { return mode_; }

  // The times the clock may show: from the epoch to the last millisecond whose
  // nanoseconds still fit an int64 (in 2262), so that no ms -> ns conversion, here or
  // in a client, overflows.
  static constexpr int64_t kMaxMs = INT64_MAX / 1'000'000;
  // Whether shift(delta_ms) keeps the clock within [0, kMaxMs] (no overflow either).
  bool can_shift(int64_t delta_ms) const;
  // Moves the clock by delta_ms (negative goes back, as after an NTP step); the caller
  // checked can_shift.
  void shift(int64_t delta_ms);
  // Stops the clock where it is (manual time).
  void freeze();
  // Lets the clock run again from where it stands (wall time, no jump).
  void resume();

  static int64_t host_ms();

 private:
  TimeMode mode_;
  int64_t offset_ms_ = 0;  // wall: added to the host's time
  int64_t frozen_ms_ = 0;  // manual: the time it shows
};

}  // namespace locksim::server
