#pragma once
// The event queue: one heap ordered by (time, sequence number), so events at
// the same instant run in the order they were scheduled. An event is a plain
// function pointer with two integers and a pointer of context: no
// std::function, no allocation per event.
#include <cstdint>
#include <vector>

#include "sim/time.hpp"
#include "sim/trace.hpp"

namespace locksim::sim {

class World;
struct Event;
using EventFn = void (*)(World&, const Event&);

struct Event {
  Instant at;
  uint64_t seq = 0;
  EventFn fn = nullptr;
  void* obj = nullptr;
  uint64_t a = 0, b = 0;
  // The node this event is delivered to, and the incarnation it was meant for:
  // a paused node defers it, a crashed one makes it stale (fn decides what then).
  NodeId node = kNoNode;
  uint32_t incarnation = 0;
};

class EventQueue {
 public:
  void push(Event e) {
    e.seq = next_seq_++;
    heap_.push_back(e);
    sift_up(heap_.size() - 1);
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  const Event& top() const { return heap_.front(); }
  Event pop() {
    Event e = heap_.front();
    heap_.front() = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0);
    return e;
  }
  uint64_t scheduled() const { return next_seq_; }

 private:
  static bool before(const Event& x, const Event& y) { return x.at < y.at || (x.at == y.at && x.seq < y.seq); }
  void sift_up(size_t i) {
    Event e = heap_[i];
    while (i > 0) {
      size_t parent = (i - 1) / 2;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  void sift_down(size_t i) {
    Event e = heap_[i];
    const size_t n = heap_.size();
    for (;;) {
      size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
      if (!before(heap_[child], e)) break;
      heap_[i] = heap_[child];
      i = child;
    }
    heap_[i] = e;
  }

  std::vector<Event> heap_;
  uint64_t next_seq_ = 0;
};

}  // namespace locksim::sim
