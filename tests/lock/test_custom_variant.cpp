// A user-written variant joins the registry and runs through Simulation like
// the built-in ones (the same path examples/my_lock.cpp takes).
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "locksim/lock/registry.hpp"
#include "locksim/lock/scripts.hpp"

using namespace locktest;

namespace {

// "SET NX PX with a token, Lua release", with the token kept per hold.
class TestLock final : public SpinLock {
 public:
  using SpinLock::SpinLock;
  Task<bool> release(Env& env) override {
    auto r = co_await env.redis(compare_and_delete(key(), token_), Purpose::Release);
    co_return replied_int(r, 1);
  }

 protected:
  Task<bool> try_acquire(Env& env) override {
    std::string token = new_token(env);
    auto r = co_await env.redis(cmd("SET", key(), token, "NX", "PX", ms(params().lease)), Purpose::Acquire);
    const bool took = replied_ok(r);
    if (took) token_ = std::move(token);
    co_return took;
  }

 private:
  std::string token_;
};

void register_once() {
  if (find_algorithm("test-custom")) return;
  register_algorithm(
      Algorithm{"test-custom",
                "a test-local token lock",
                "-",
                "-",
                {"key", "lease", "retry", "retry-jitter"},
                false,
                [](const LockParams& p) -> std::unique_ptr<Lock> { return std::make_unique<TestLock>(p); }});
}

}  // namespace

TEST_CASE("custom variant: registered, found, and run through Simulation", "[lock]") {
  register_once();
  const Algorithm* a = find_algorithm("test-custom");
  REQUIRE(a);
  CHECK(a->summary == "a test-local token lock");
  CHECK(&algorithms().back() == a);  // after the built-in ones

  SimulationConfig c;
  c.algorithm = "test-custom";
  c.lock.retry_jitter = 50_ms;
  c.workload.clients = 4;
  auto s = run(c);
  const History& h = s->history();
  for (uint32_t client = 0; client < 4; ++client) CHECK(steps(h, Step::Acquired, client).size() == 3);
  CHECK(overlaps(h).empty());
  CHECK(commands_sent(*s, "A").front() == "SET lock <token> NX PX 1000");

  // Its failure modes are found like anyone's: work past the lease overlaps.
  c.workload.slow_work = {SlowWork{0, 0, 2_s}, SlowWork{1, 0, 2_s}};
  c.lock.wait_limit = 20_s;
  auto slow = run(c);
  CHECK_FALSE(overlaps(slow->history()).empty());
}

TEST_CASE("Simulation refuses an unknown algorithm and a plan naming an unknown node", "[lock]") {
  SimulationConfig c;
  c.algorithm = "no-such-lock";
  CHECK_THROWS_AS(Simulation(c), std::invalid_argument);
  c.algorithm = "token-lua";
  c.workload.clients = 2;
  c.faults.faults.push_back(sim::Fault{sim::FaultKind::Crash, "C", "", at(1_s), {}});
  CHECK_THROWS_AS(Simulation(c), std::invalid_argument);
}
