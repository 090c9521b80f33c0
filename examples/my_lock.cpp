// A worked example: write your own lock variant, register it, and run it
// through the simulator with faults.
//
// The variant: "token + Lua release + retry with random back-off" —
//   acquire: SET key <unique token> NX PX lease, retried every retry interval
//            plus a random extra wait (SpinLock does the loop and the jitter);
//   release: a Lua script that deletes the key only if it still holds our token.
//
// Build: cmake --build build --target example_my_lock; run: ./build/examples/example_my_lock
// With arguments it is the whole locksim program, with my-lock registered:
//   ./build/examples/example_my_lock check my-lock --faults pause --runs 2000
//   ./build/examples/example_my_lock replay '<scenario printed by check>'
// (Without C++, a variant is a Lua file: see docs/variants.md.)
#include <fmt/format.h>

#include "locksim/cli/app.hpp"

#include "locksim/lock/lock.hpp"
#include "locksim/lock/registry.hpp"
#include "locksim/lock/scripts.hpp"
#include "locksim/lock/simulation.hpp"
#include "locksim/sim/fault.hpp"

using namespace locksim;
using namespace locksim::lock;
using namespace locksim::sim::literals;

class MyLock final : public SpinLock {
 public:
  using SpinLock::SpinLock;

  // One attempt; SpinLock::acquire retries it until the wait limit.
  Task<bool> try_acquire(Env& env) override {
    std::string token = new_token(env);  // deterministic: drawn from the simulation's generator
    // Each co_await is one network round trip. (GCC 12: always bind the result first.)
    auto r = co_await env.redis(cmd("SET", key(), token, "NX", "PX", ms(params().lease)), Purpose::Acquire);
    const bool took = replied_ok(r);  // a timeout is ambiguous: we may hold it and not know
    if (took) token_ = std::move(token);
    co_return took;
  }

  Task<bool> release(Env& env) override {
    auto r = co_await env.redis(compare_and_delete(key(), token_), Purpose::Release);
    co_return replied_int(r, 1);  // 1: we deleted our own lock
  }

 private:
  std::string token_;
};

int main(int argc, char** argv) {
  register_algorithm(
      Algorithm{"my-lock",
                "token + Lua release + random back-off",
                "-",
                "-",
                {"key", "lease", "retry", "retry-jitter", "wait-limit", "call-timeout"},
                /*safe_without_faults=*/false,
                [](const LockParams& p) -> std::unique_ptr<Lock> { return std::make_unique<MyLock>(p); }});
  if (argc > 1) return locksim::cli::main(argc, argv);  // check, replay, run, list ... with my-lock known

  SimulationConfig config;
  config.algorithm = "my-lock";
  config.lock.lease = 1_s;
  config.lock.retry_jitter = 50_ms;  // the random back-off
  config.workload.clients = 3;
  config.workload.iterations = 4;
  // A stop-the-world pause of client C, which holds the lock at 150ms (seed 1),
  // longer than the lease: its key expires meanwhile and another client gets in.
  config.faults = *sim::parse_fault_plan("pause C @150ms for 1500ms");

  Simulation simulation(config);
  simulation.run();
  const History& history = simulation.history();

  // Who was inside the critical section when, in true time.
  std::vector<int64_t> entered(history.clients().size(), -1);
  int overlaps = 0;
  for (const HistoryEvent& e : history.events()) {
    if (e.client >= entered.size()) continue;  // key effects by the server itself
    if (e.step == Step::Enter) {
      for (uint32_t other = 0; other < entered.size(); ++other)
        if (other != e.client && entered[other] >= 0) {
          ++overlaps;
          fmt::print("{} entered at {} while {} was inside\n", history.client_name(e.client), sim::format_instant(e.at),
                     history.client_name(other));
        }
      entered[e.client] = e.at.ns;
    }
    if (e.step == Step::Leave || e.step == Step::Crashed) entered[e.client] = -1;
  }
  fmt::print("faults: {}\n", sim::to_string(config.faults));
  fmt::print("{}: {} overlapping critical sections\n", config.algorithm, overlaps);
  return 0;
}
