#include "locksim/server/clock.hpp"

#include <chrono>

#include "locksim/base/assert.hpp"

namespace locksim::server {

int64_t Clock::host_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

Clock::Clock(TimeMode mode) : mode_(mode), frozen_ms_(host_ms()) {}

int64_t Clock::now_ms() const { return mode_ == TimeMode::Manual ? frozen_ms_ : host_ms() + offset_ms_; }

bool Clock::can_shift(int64_t delta_ms) const {
  const int64_t now = now_ms();
  return delta_ms >= 0 ? delta_ms <= kMaxMs - now : delta_ms >= -now;
}

void Clock::shift(int64_t delta_ms) {
  LOCKSIM_ASSERT(can_shift(delta_ms), "the clock is shifted out of range");
  if (mode_ == TimeMode::Manual)
    frozen_ms_ += delta_ms;
  else
    offset_ms_ += delta_ms;
}

void Clock::freeze() {
  frozen_ms_ = now_ms();
  mode_ = TimeMode::Manual;
}

void Clock::resume() {
  offset_ms_ = now_ms() - host_ms();
  mode_ = TimeMode::Wall;
}

}  // namespace locksim::server
