#pragma once
// The event queue: one heap ordered by (time, sequence number), so events at
// the same instant run in the order they were scheduled. An event is a plain
// function pointer with a pointer and two integers of context: no
// std::function, no allocation per event. An event that can no longer do
// anything (a call's timeout once its reply came) can be cancelled: it leaves
// the heap at once instead of waiting there to be popped.
#include <cstdint>
#include <optional>
#include <vector>

#include "locksim/sim/time.hpp"
#include "locksim/sim/trace.hpp"

namespace locksim::sim {

class World;
struct Event;
using EventFn = void (*)(World&, const Event&);

struct Event {
  Instant at;
  uint64_t seq = 0;
  EventFn fn = nullptr;
  void* obj = nullptr;      // the handler's object (a channel, a coroutine frame)
  uint64_t id = 0;          // what the handler looks up: a fiber, a call, a planned fault, a paused node
  uint64_t generation = 0;  // which version of it the event belongs to: a pause, a cut's epoch, an incarnation
  // The node this event is delivered to, and the incarnation it was meant for:
  // a paused node defers it, a crashed one makes it stale (fn decides what then).
  NodeId node = kNoNode;
  uint32_t incarnation = 0;
};

// Names one pushed event, to cancel it: its pool slot and its sequence number
// (the slot alone is reused once the event has run or was cancelled).
struct EventTicket {
  uint32_t slot = 0;
  uint64_t seq = ~uint64_t{0};
};

class EventQueue {
 public:
  EventTicket push(const Event& e) {
    return push(e.at, e.fn, e.obj, e.id, e.generation, e.node, e.incarnation);
  }
  // The event is written straight into its pool slot (no Event built and copied in).
  EventTicket push(Instant at, EventFn fn, void* obj, uint64_t id, uint64_t generation, NodeId node,
                   uint32_t incarnation) {
    const uint64_t seq = next_seq_++;
    uint32_t slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
    } else {
      slot = static_cast<uint32_t>(pool_.size());
      pool_.emplace_back();
      pos_.push_back(kNotQueued);
    }
    Event& e = pool_[slot];
    e.at = at;
    e.seq = seq;
    e.fn = fn;
    e.obj = obj;
    e.id = id;
    e.generation = generation;
    e.node = node;
    e.incarnation = incarnation;
    heap_.push_back(Key{at.ns, seq, slot});
    sift_up(heap_.size() - 1);
    return EventTicket{slot, seq};
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  const Event& top() const { return pool_[heap_.front().slot]; }
  Event pop() {
    const uint32_t slot = heap_.front().slot;
    Event e = pool_[slot];
    release(slot);
    Key last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0, last);
    return e;
  }
  // Takes the ticket's event out of the queue, unpopped; its time, or nullopt when it
  // is no longer queued (it ran, was cancelled, or was deferred by a pause). The
  // order of the other events is unchanged: it is decided by (time, seq) alone.
  std::optional<Instant> cancel(EventTicket t) {
    if (t.slot >= pos_.size() || pos_[t.slot] == kNotQueued || pool_[t.slot].seq != t.seq) return std::nullopt;
    const size_t i = pos_[t.slot];
    const Instant at = pool_[t.slot].at;
    release(t.slot);
    const Key last = heap_.back();
    heap_.pop_back();
    if (i < heap_.size()) {
      if (i > 0 && before(last, heap_[(i - 1) / kArity]))
        sift_up(i, last);
      else
        sift_down(i, last);
    }
    return at;
  }
  uint64_t scheduled() const { return next_seq_; }

 private:
  // The heap orders small keys; the events themselves stay put in a pool
  // (slots reused), so sifting moves 24 bytes, not a whole Event. Four
  // children per node halve the depth. (time, seq) is unique, so the order
  // of events is the same as with any other correct priority queue.
  struct Key {
    int64_t at;
    uint64_t seq;
    uint32_t slot;
  };
  static constexpr size_t kArity = 4;
  static constexpr uint32_t kNotQueued = ~uint32_t{0};
  static bool before(const Key& x, const Key& y) { return x.at < y.at || (x.at == y.at && x.seq < y.seq); }
  void release(uint32_t slot) {
    pos_[slot] = kNotQueued;
    free_.push_back(slot);
  }
  // Every key placed at index i says so in pos_, so that cancel() finds it.
  void place(size_t i, const Key& k) {
    heap_[i] = k;
    pos_[k.slot] = static_cast<uint32_t>(i);
  }
  void sift_up(size_t i) { sift_up(i, heap_[i]); }
  // Places `k` starting from the hole at i, moving up.
  void sift_up(size_t i, Key k) {
    while (i > 0) {
      size_t parent = (i - 1) / kArity;
      if (!before(k, heap_[parent])) break;
      place(i, heap_[parent]);
      i = parent;
    }
    place(i, k);
  }
  // Places `k` (the former last key) starting from the hole at i, moving down.
  void sift_down(size_t i, Key k) {
    const size_t n = heap_.size();
    for (;;) {
      size_t first = kArity * i + 1;
      if (first >= n) break;
      size_t best = first;
      const size_t last = first + kArity < n ? first + kArity : n;
      for (size_t c = first + 1; c < last; ++c)
        if (before(heap_[c], heap_[best])) best = c;
      if (!before(heap_[best], k)) break;
      place(i, heap_[best]);
      i = best;
    }
    place(i, k);
  }

  std::vector<Key> heap_;
  std::vector<Event> pool_;
  std::vector<uint32_t> pos_;  // by slot: its key's index in heap_, or kNotQueued
  std::vector<uint32_t> free_;
  uint64_t next_seq_ = 0;
};

}  // namespace locksim::sim
