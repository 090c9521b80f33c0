#pragma once
// The interface every lock variant implements. To try a variant of your own,
// derive from Lock (or from SpinLock, which supplies the retry loop), write
// acquire/release as coroutines against Env, and register it; every check,
// the explorer and the timelines then work on it unchanged. A worked example
// is examples/my_lock.cpp:
//
//   class MyLock : public SpinLock {
//    public:
//     using SpinLock::SpinLock;
//     Task<bool> try_acquire(Env& env) override {
//       std::string token = new_token(env);  // kept only if this attempt wins
//       auto r = co_await env.redis(cmd("SET", key(), token, "NX", "PX", ms(params().lease)), Purpose::Acquire);
//       if (replied_ok(r)) token_ = token;
//       co_return replied_ok(r);
//     }
//     Task<bool> release(Env& env) override { ... }
//   };
//
// With GCC 12, bind every co_await result to a local before testing it, and
// build commands with cmd(...): a braced list or a co_await inside an
// if-condition miscompiles (double destruction) there.
//
// One Lock object serves one client process (one incarnation): it may keep
// the client's token, its expiry timestamp, its renewal task.
#include <string>

#include "locksim/lock/env.hpp"
#include "locksim/lock/params.hpp"

namespace locksim::lock {

class Lock {
 public:
  explicit Lock(LockParams params) : params_(std::move(params)) {}
  virtual ~Lock() = default;
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;

  // Acquires the lock, waiting at most params().wait_limit; true once held.
  virtual Task<bool> acquire(Env& env) = 0;
  // Releases it; true if the client believes it released its own lock.
  virtual Task<bool> release(Env& env) = 0;
  // "Do I still hold it?" as far as the client can tell (a watchdog whose
  // renewal failed knows its lease may be gone). Default: yes.
  virtual bool still_held() const { return true; }
  // The fencing token of the current hold, or -1 if the variant has none.
  virtual int64_t fence() const { return -1; }

  const LockParams& params() const { return params_; }
  // A unique token for a hold, CLIENT:16 hex digits drawn from the client's
  // generator (deterministic); a Lua variant's token() gives the same.
  static std::string new_token(Env& env);

 protected:
  const std::string& key() const { return params_.key; }
  static std::string ms(Duration d) { return std::to_string(d.ns / 1'000'000); }

 private:
  LockParams params_;
};

// A lock taken by retrying one attempt every retry interval (plus jitter)
// until it succeeds or the wait limit has passed on the client's monotonic clock.
//
// Ambiguous replies. A call that times out or loses its connection may or may
// not have run. Every built-in algorithm does what the posts' code does:
// it counts the attempt as failed and retries later, never asking whether the
// key now holds its own value. So a SET NX that did run leaves the client's
// own key behind: the early versions (and set-nx-px) then wait for it to
// expire — or, without an expiry (setnx-del, setnx-expire after a lost
// EXPIRE), forever — and the token versions wait for their own, unrecognised
// token to expire. A lost reply to a release counts as "not released" (the
// key expires by itself where it has a TTL); a lost reply to a renewal stops
// the watchdog and marks the lease as possibly lost (still_held() = false).
class SpinLock : public Lock {
 public:
  using Lock::Lock;
  Task<bool> acquire(Env& env) override;

 protected:
  // One attempt: true if it took the lock.
  virtual Task<bool> try_acquire(Env& env) = 0;
};

}  // namespace locksim::lock
