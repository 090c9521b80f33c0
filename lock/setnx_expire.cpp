// setnx-expire (every post; version 0.1 of "The evolution of Redis
// distributed locks"; F02): SETNX key 1, then EXPIRE
// key ttl as a second command; DEL to unlock. Shows F02: a crash (or a lost
// connection) between the two commands leaves a key without a TTL. Fixed by
// set-nx-px, where the value and its expiry are set by one atomic command.
#include "locksim/lock/algorithms.hpp"
#include "locksim/lock/del_release.hpp"

namespace locksim::lock {
namespace {

class SetnxExpire final : public DelReleaseLock {
 public:
  using DelReleaseLock::DelReleaseLock;

 protected:
  Task<bool> try_acquire(Env& env) override {
    auto r = co_await env.redis(cmd("SETNX", key(), "1"), Purpose::Acquire);
    if (!replied_int(r, 1)) co_return false;
    // The posts use EXPIRE (seconds); PEXPIRE keeps a sub-second lease exact.
    const Duration lease = params().lease;
    Command expire = lease.ns % 1'000'000'000 == 0 ? cmd("EXPIRE", key(), std::to_string(lease.ns / 1'000'000'000))
                                                   : cmd("PEXPIRE", key(), ms(lease));
    co_await env.redis(std::move(expire), Purpose::Acquire);  // its reply is not checked, as in the posts
    co_return true;
  }
};

}  // namespace
std::unique_ptr<Lock> make_setnx_expire(const LockParams& p) { return std::make_unique<SetnxExpire>(p); }
}  // namespace locksim::lock
