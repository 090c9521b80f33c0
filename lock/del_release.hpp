#pragma once
// The release of the early versions (setnx-del to set-nx-px): DEL the key,
// whoever holds it now. That is what F05 and F08 punish.
#include "locksim/lock/lock.hpp"

namespace locksim::lock {

class DelReleaseLock : public SpinLock {
 public:
  using SpinLock::SpinLock;
  Task<bool> release(Env& env) override;
};

}  // namespace locksim::lock
