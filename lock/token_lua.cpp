#include "locksim/lock/token_lua.hpp"

#include "locksim/lock/algorithms.hpp"
#include "locksim/lock/scripts.hpp"

namespace locksim::lock {

Task<bool> TokenLuaLock::try_acquire(Env& env) {
  // The token is the attempt's own; it becomes the hold's only if the SET took
  // (a failed nested attempt must not make the outer hold forget its token).
  std::string token = new_token(env);
  auto r = co_await env.redis(cmd("SET", key(), token, "NX", "PX", ms(initial_lease())), Purpose::Acquire);
  const bool took = replied_ok(r);
  if (took) token_ = std::move(token);
  co_return took;
}

Task<bool> TokenLuaLock::release(Env& env) {
  auto r = co_await env.redis(compare_and_delete(key(), token_), Purpose::Release);
  co_return replied_int(r, 1);
}

std::unique_ptr<Lock> make_token_lua(const LockParams& p) { return std::make_unique<TokenLuaLock>(p); }

}  // namespace locksim::lock
