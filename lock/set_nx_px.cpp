// set-nx-px (the MySQL-and-Redis post, step 4 of "Redis: ways to build ...",
// layer three of the layered walk-through, version 0.2 of "The evolution ..."): SET key 1 NX PX lease,
// one atomic command; DEL to unlock. Fixes F02. Shows F07 (work longer than
// the lease: the key expires and B acquires while A works) and F08 (A's DEL
// then removes B's lock). Fixed by a unique token (token-lua) and renewal.
#include "locksim/lock/algorithms.hpp"
#include "locksim/lock/del_release.hpp"

namespace locksim::lock {
namespace {

class SetNxPx final : public DelReleaseLock {
 public:
  using DelReleaseLock::DelReleaseLock;

 protected:
  Task<bool> try_acquire(Env& env) override {
    auto r = co_await env.redis(cmd("SET", key(), "1", "NX", "PX", ms(params().lease)), Purpose::Acquire);
    co_return replied_ok(r);
  }
};

}  // namespace
std::unique_ptr<Lock> make_set_nx_px(const LockParams& p) { return std::make_unique<SetNxPx>(p); }
}  // namespace locksim::lock
