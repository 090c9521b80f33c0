#pragma once
// watchdog (step 5 and scheme 3 of "Redis: ways to build a distributed lock",
// section 4 of "The evolution ..."; Redisson's lock watchdog):
// token-lua plus a renewal task in the same process that re-arms the lease
// (compare-and-PEXPIRE in Lua) every lease/3 while the lock is held. It stops
// on release, on a failed renewal (the client then knows its lease may be
// gone: still_held() turns false) and with its process. Fixes F10 and F11
// (F12: a crash frees the lock within one lease). Shows F13 (a stop-the-world
// pause freezes the renewal too) and F14 (a cut starves it). An explicit
// lease disables renewal, as in Redisson, and brings F10 back (F15).
#include "locksim/lock/renewal.hpp"
#include "locksim/lock/token_lua.hpp"

namespace locksim::lock {

class WatchdogLock : public TokenLuaLock {
 public:
  using TokenLuaLock::TokenLuaLock;
  Task<bool> acquire(Env& env) override;
  Task<bool> release(Env& env) override;
  bool still_held() const override { return !renewal_.lost; }

 protected:
  Duration initial_lease() const override;
  bool renews() const { return params().explicit_lease.ns == 0; }
  Duration renew_interval() const;

 private:
  RenewalState renewal_;
};

}  // namespace locksim::lock
