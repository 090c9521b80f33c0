// set-nx-px (001, 002 step 4, 003 layer 3, 004 v0.2): SET key 1 NX PX lease,
// one atomic command; DEL to unlock. Fixes F02. Shows F07 (work longer than
// the lease: the key expires and B acquires while A works) and F08 (A's DEL
// then removes B's lock). Fixed by a unique token (token-lua) and renewal.
#include "lock/algorithms.hpp"
#include "lock/del_release.hpp"

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
