#pragma once
// Whether a nested acquire's wait read the client's wall clock: the fact that
// tells a wait a jump of that clock stretched (one timed on it, as Redisson's
// tryLock times its wait on currentTimeMillis) from one it could not (timed on the
// monotonic clock). Each Env notes its lock's wall-clock reads here and passes
// every step it records through stepped().
#include "locksim/lock/history.hpp"

namespace locksim::lock {

class NestedWaitWallReads {
 public:
  // The lock read its wall clock at true time `at`.
  void read(Instant at) {
    if (waiting_) last_ = at;
  }
  // A nested AcquireStart opens a wait; its Acquired or AcquireFailed closes it
  // and carries the last read (HistoryEvent::wall_read_in_wait).
  void stepped(HistoryEvent& e) {
    if (e.depth <= 0) return;
    if (e.step == Step::AcquireStart) {
      waiting_ = true;
      last_ = Instant::never();
    } else if (waiting_ && (e.step == Step::Acquired || e.step == Step::AcquireFailed)) {
      e.wall_read_in_wait = last_;
      waiting_ = false;
    }
  }

 private:
  bool waiting_ = false;
  Instant last_ = Instant::never();
};

}  // namespace locksim::lock
