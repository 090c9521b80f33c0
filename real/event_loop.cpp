#include "locksim/real/event_loop.hpp"

#include <event2/event.h>

#include <chrono>
#include <stdexcept>

namespace locksim::real {

namespace {
int64_t monotonic_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

struct EventLoop::Timer {
  EventLoop* loop;
  TimerId id;
  event* ev;
  std::function<void()> fn;
};

EventLoop::EventLoop() : base_(event_base_new()), origin_ns_(monotonic_ns()) {
  if (!base_) throw std::runtime_error("libevent: cannot create an event base");
}

EventLoop::~EventLoop() {
  for (auto& [id, t] : timers_) {
    event_free(t->ev);
    delete t;
  }
  event_base_free(base_);
}

void EventLoop::restart_clock() { origin_ns_ = monotonic_ns(); }

Instant EventLoop::now() const { return Instant{monotonic_ns() - origin_ns_}; }

EventLoop::TimerId EventLoop::after(Duration delay, std::function<void()> fn) {
  auto* t = new Timer{this, next_++, nullptr, std::move(fn)};
  t->ev = evtimer_new(base_, &EventLoop::fire, t);
  const int64_t ns = delay.ns < 0 ? 0 : delay.ns;
  timeval tv{static_cast<time_t>(ns / 1'000'000'000), static_cast<suseconds_t>((ns % 1'000'000'000) / 1000)};
  evtimer_add(t->ev, &tv);
  timers_[t->id] = t;
  return t->id;
}

void EventLoop::cancel(TimerId id) {
  auto it = timers_.find(id);
  if (it == timers_.end()) return;
  event_free(it->second->ev);
  delete it->second;
  timers_.erase(it);
}

void EventLoop::fire(int, short, void* arg) {
  auto* t = static_cast<Timer*>(arg);
  EventLoop* loop = t->loop;
  std::function<void()> fn = std::move(t->fn);
  loop->timers_.erase(t->id);
  event_free(t->ev);
  delete t;
  fn();
}

void EventLoop::run() { event_base_dispatch(base_); }

void EventLoop::stop() { event_base_loopbreak(base_); }

}  // namespace locksim::real
