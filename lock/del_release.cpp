#include "locksim/lock/del_release.hpp"

namespace locksim::lock {

Task<bool> DelReleaseLock::release(Env& env) {
  auto r = co_await env.redis(cmd("DEL", key()), Purpose::Release);
  co_return r.ok();
}

}  // namespace locksim::lock
