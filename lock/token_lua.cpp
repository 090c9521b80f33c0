#include "lock/token_lua.hpp"

#include "lock/algorithms.hpp"
#include "lock/scripts.hpp"

namespace locksim::lock {

Task<bool> TokenLuaLock::try_acquire(Env& env) {
  token_ = new_token(env);
  auto r = co_await env.redis(cmd("SET", key(), token_, "NX", "PX", ms(initial_lease())), Purpose::Acquire);
  co_return replied_ok(r);
}

Task<bool> TokenLuaLock::release(Env& env) {
  auto r = co_await env.redis(cmd("EVAL", std::string(scripts::kCompareAndDelete), "1", key(), token_), Purpose::Release);
  co_return replied_int(r, 1);
}

std::unique_ptr<Lock> make_token_lua(const LockParams& p) { return std::make_unique<TokenLuaLock>(p); }

}  // namespace locksim::lock
