// setnx-del ("Redis: ways to build a distributed lock", scheme 1; F01): SETNX key 1 to lock, DEL key to unlock.
// Shows F01: a client that crashes while holding leaves the key forever —
// no expiry exists. Fixed by an expiry (setnx-expire, then set-nx-px).
#include "locksim/lock/algorithms.hpp"
#include "locksim/lock/del_release.hpp"

namespace locksim::lock {
namespace {

class SetnxDel final : public DelReleaseLock {
 public:
  using DelReleaseLock::DelReleaseLock;

 protected:
  Task<bool> try_acquire(Env& env) override {
    auto r = co_await env.redis(cmd("SETNX", key(), "1"), Purpose::Acquire);
    co_return replied_int(r, 1);
  }
};

}  // namespace
std::unique_ptr<Lock> make_setnx_del(const LockParams& p) { return std::make_unique<SetnxDel>(p); }
}  // namespace locksim::lock
