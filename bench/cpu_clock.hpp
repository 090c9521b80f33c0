#pragma once
// CPU time of this process as a std::chrono clock: on a machine shared with other
// work the benchmark figures then count only the time this program held a core.
// The benchmarks that time the model alone use it; a figure that includes another
// process (redis-server over loopback) stays in wall time.
#include <chrono>
#include <ctime>

namespace locksim::bench {

struct CpuClock {
  using duration = std::chrono::nanoseconds;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<CpuClock>;
  static constexpr bool is_steady = true;
  static time_point now() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return time_point(duration(static_cast<rep>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec));
  }
};

}  // namespace locksim::bench
