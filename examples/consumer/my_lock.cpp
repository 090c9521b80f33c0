#include "my_lock.hpp"

#include <locksim/lock/lock.hpp>
#include <locksim/lock/registry.hpp>

namespace {

using namespace locksim::lock;

class MyLock final : public SpinLock {
 public:
  using SpinLock::SpinLock;

  Task<bool> try_acquire(Env& env) override {
    std::string token = new_token(env);
    auto reply = co_await env.redis(cmd("SET", key(), token, "NX", "PX", ms(params().lease)), Purpose::Acquire);
    const bool took = replied_ok(reply);
    if (took) token_ = std::move(token);
    co_return took;
  }

  Task<bool> release(Env& env) override {
    auto reply = co_await env.redis(compare_and_delete(key(), token_), Purpose::Release);
    co_return replied_int(reply, 1);
  }

 private:
  std::string token_;
};

}  // namespace

namespace my {

void register_my_lock() {
  if (find_algorithm("my-lock")) return;
  register_algorithm(
      Algorithm{"my-lock",
                "token + Lua release + random back-off",
                "-",
                "-",
                {"key", "lease", "retry", "retry-jitter", "wait-limit", "call-timeout"},
                /*safe_without_faults=*/false,
                [](const LockParams& p) -> std::unique_ptr<Lock> { return std::make_unique<MyLock>(p); }});
}

}  // namespace my
