#pragma once
// A real-time event loop (libevent): true time is the monotonic clock since
// the loop was made; timers call a function once. Everything of a real run
// (clients' tasks, hiredis connections, the proxies, the faults) runs on it,
// on one thread.
#include <cstdint>
#include <functional>
#include <map>

#include "locksim/sim/time.hpp"

struct event_base;

namespace locksim::real {

using sim::Duration;
using sim::Instant;

class EventLoop {
 public:
  using TimerId = uint64_t;
  EventLoop();
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  event_base* base() { return base_; }
  // True time since the loop was made (or since restart_clock).
  Instant now() const;
  // Time zero is now: a run starts its clock once its servers are up. Call it before scheduling anything.
  void restart_clock();
  // Calls fn once, `delay` from now (a negative delay: at once, on the next turn).
  TimerId after(Duration delay, std::function<void()> fn);
  TimerId at(Instant when, std::function<void()> fn) { return after(when - now(), std::move(fn)); }
  void cancel(TimerId id);
  // Runs until stop() (or nothing is left to wait for).
  void run();
  void stop();

 private:
  struct Timer;
  static void fire(int, short, void* arg);
  event_base* base_;
  int64_t origin_ns_;
  TimerId next_ = 1;
  std::map<TimerId, Timer*> timers_;
};

}  // namespace locksim::real
