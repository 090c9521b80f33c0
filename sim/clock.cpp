#include "locksim/sim/clock.hpp"
#include "locksim/sim/int128.hpp"

#include <algorithm>

namespace locksim::sim {

namespace {
// floor(a / b) for b > 0, as integer division truncates toward zero.
int128 floor_div(int128 a, int128 b) {
  int128 q = a / b;
  if ((a % b != 0) && (a < 0)) --q;
  return q;
}
}  // namespace

Instant LocalClock::monotonic(Instant t) const {
  // Most clocks do not drift: no 128-bit division for them (it was 3 % of a run).
  const int64_t drift =
      drift_ppm_ == 0 ? 0 : static_cast<int64_t>(floor_div(static_cast<int128>(t.ns) * drift_ppm_, 1'000'000));
  return Instant{t.ns + drift};
}

Instant LocalClock::local_slow(Instant t) const {
  int64_t result = monotonic(t).ns + offset_.ns;
  for (const Jump& j : jumps_) {
    if (j.at > t) break;
    result += j.by.ns;
  }
  return Instant{result};
}

Duration LocalClock::true_span(Duration local_span) const {
  if (drift_ppm_ == 0 || local_span.ns <= 0) return local_span;
  int128 num = static_cast<int128>(local_span.ns) * 1'000'000;
  int128 den = 1'000'000 + drift_ppm_;
  return Duration{static_cast<int64_t>((num + den - 1) / den)};
}

void LocalClock::add_jump(Instant at, Duration by) {
  auto pos = std::upper_bound(jumps_.begin(), jumps_.end(), at, [](Instant a, const Jump& j) { return a < j.at; });
  jumps_.insert(pos, Jump{at, by});
}

}  // namespace locksim::sim
