// watch-multi (the MySQL-and-Redis post; docs/failures.md F21): optimistic locking. WATCH key, GET key; if it is
// absent, MULTI; SET key <token> PX lease; EXEC. EXEC fails (null) for the
// loser of a race, so there are never two winners (F21). Expiry and release
// behave like token-lua, whose Lua release it uses.
#include "locksim/lock/algorithms.hpp"
#include "locksim/lock/scripts.hpp"

namespace locksim::lock {
namespace {

class WatchMulti final : public SpinLock {
 public:
  using SpinLock::SpinLock;

  Task<bool> release(Env& env) override {
    auto r = co_await env.redis(compare_and_delete(key(), token_), Purpose::Release);
    co_return replied_int(r, 1);
  }

 protected:
  Task<bool> try_acquire(Env& env) override {
    const std::string token = new_token(env);  // kept only if EXEC ran (see token_lua.cpp)
    auto watched = co_await env.redis(cmd("WATCH", key()), Purpose::Acquire);
    if (!replied_ok(watched)) co_return false;
    auto current = co_await env.redis(cmd("GET", key()), Purpose::Acquire);
    if (!replied_nil(current)) {
      co_await env.redis(cmd("UNWATCH"), Purpose::Acquire);
      co_return false;
    }
    auto multi = co_await env.redis(cmd("MULTI"), Purpose::Acquire);
    if (!replied_ok(multi)) {
      co_await abandon(env);
      co_return false;
    }
    auto queued = co_await env.redis(cmd("SET", key(), token, "PX", ms(params().lease)), Purpose::Acquire);
    if (!queued.ok()) {
      co_await abandon(env);
      co_return false;
    }
    auto exec = co_await env.redis(cmd("EXEC"), Purpose::Acquire);
    // A null reply: a watched key changed since WATCH; someone else won.
    const bool took = exec.ok() && exec.value.type == Reply::Type::Array;
    if (took) token_ = token;
    co_return took;
  }

 private:
  // A reply went missing mid-transaction: drop whatever the connection still holds.
  Task<void> abandon(Env& env) { co_await env.redis(cmd("DISCARD"), Purpose::Acquire); }
  std::string token_;
};

}  // namespace
std::unique_ptr<Lock> make_watch_multi(const LockParams& p) { return std::make_unique<WatchMulti>(p); }
}  // namespace locksim::lock
