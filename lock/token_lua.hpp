#pragma once
// token-lua (every post but the first; version 0.3 of "The evolution of Redis
// distributed locks"): SET key <unique token> NX PX lease to
// lock; an atomic Lua compare-and-delete to unlock. Fixes F08/F09 (a late
// release is now harmless) but shows F10: a lease that ends while A still
// works lets B in. Base of the watchdog and fenced variants.
#include "locksim/lock/lock.hpp"

namespace locksim::lock {

class TokenLuaLock : public SpinLock {
 public:
  using SpinLock::SpinLock;
  Task<bool> release(Env& env) override;

 protected:
  Task<bool> try_acquire(Env& env) override;
  // The TTL the key is set with.
  virtual Duration initial_lease() const { return params().lease; }
  const std::string& token() const { return token_; }

 private:
  std::string token_;
};

}  // namespace locksim::lock
