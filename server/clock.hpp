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

  // Moves the clock by delta_ms (negative goes back, as after an NTP step).
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
