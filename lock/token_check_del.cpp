// token-check-del (the problem of step 4 in "Redis: ways to build a
// distributed lock", and the layered walk-through; F09): SET key <token> NX PX lease; to
// unlock, GET the key, compare with one's token in the client, then DEL — two
// commands. Shows F09: between the GET and the DEL the lease can end (a pause,
// a slow DEL) and B acquire; A's DEL then removes B's lock. Fixed by token-lua.
#include "locksim/lock/algorithms.hpp"

namespace locksim::lock {
namespace {

class TokenCheckDel final : public SpinLock {
 public:
  using SpinLock::SpinLock;
  Task<bool> release(Env& env) override {
    auto current = co_await env.redis(cmd("GET", key()), Purpose::Release);
    if (!current.ok() || current.value.type != Reply::Type::Bulk || current.value.str != token_) co_return false;
    auto r = co_await env.redis(cmd("DEL", key()), Purpose::Release);
    co_return replied_int(r, 1);
  }

 protected:
  Task<bool> try_acquire(Env& env) override {
    std::string token = new_token(env);  // kept only if the SET took (see token_lua.cpp)
    auto r = co_await env.redis(cmd("SET", key(), token, "NX", "PX", ms(params().lease)), Purpose::Acquire);
    const bool took = replied_ok(r);
    if (took) token_ = std::move(token);
    co_return took;
  }

 private:
  std::string token_;
};

}  // namespace
std::unique_ptr<Lock> make_token_check_del(const LockParams& p) { return std::make_unique<TokenCheckDel>(p); }
}  // namespace locksim::lock
