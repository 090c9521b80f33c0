// The lock workload in the simulator: simulated time per CPU second and
// events per second over 20 seeds of token-lua, watchdog and set-nx-px in turn
// (3 clients, 50 iterations each; events are those the simulator ran: a call's
// timeout, cancelled once the call is over (sim/rpc.hpp), is none); the Lua
// variant of token-lua (examples/token_lua.lua) against the built-in,
// alternating, by events per second; and the peak heap,
// the Redis model's Lua state included, of one token-lua simulation (3 clients,
// 3 iterations).
//   bench_lock
//   bench_lock --sweep-only    one sweep, for callgrind
//   bench_lock --memory-only   one simulation's peak heap, for massif
#include <fmt/format.h>

#include <malloc.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <vector>

#include "cpu_clock.hpp"
#include "locksim/base/allocator.hpp"
#include "locksim/lock/lua_variant.hpp"
#include "locksim/lock/simulation.hpp"
#include "locksim/sim/frame_pool.hpp"
#include "locksim/sim/redis/lua_state_pool.hpp"

namespace {
// Heap accounting for the memory figures: every allocation of this program —
// operator new's and the Lua state's (Lua allocates with realloc) — passes
// through malloc, realloc, calloc and free here (single-threaded benchmark).
// Only while a memory figure is taken (`counting`): the speed figures are not
// charged for the accounting (malloc_usable_size and an atomic per call).
std::atomic<int64_t> live{0}, peak{0};
std::atomic<bool> counting{false};
void count(int64_t bytes) {
  int64_t now = live += bytes;
  int64_t old = peak.load();
  while (now > old && !peak.compare_exchange_weak(old, now)) {}
}
}  // namespace

extern "C" {
void* __libc_malloc(size_t);
void* __libc_realloc(void*, size_t);
void* __libc_calloc(size_t, size_t);
void __libc_free(void*);

void* malloc(size_t n) {
  void* p = __libc_malloc(n);
  if (p && counting.load(std::memory_order_relaxed)) count(static_cast<int64_t>(malloc_usable_size(p)));
  return p;
}
void* calloc(size_t n, size_t size) {
  void* p = __libc_calloc(n, size);
  if (p && counting.load(std::memory_order_relaxed)) count(static_cast<int64_t>(malloc_usable_size(p)));
  return p;
}
void* realloc(void* p, size_t n) {
  if (!counting.load(std::memory_order_relaxed)) return __libc_realloc(p, n);
  const int64_t before = p ? static_cast<int64_t>(malloc_usable_size(p)) : 0;
  void* q = __libc_realloc(p, n);
  if (q)
    count(static_cast<int64_t>(malloc_usable_size(q)) - before);
  else if (n == 0)
    count(-before);
  return q;
}
void free(void* p) {
  if (!p) return;
  if (counting.load(std::memory_order_relaxed)) count(-static_cast<int64_t>(malloc_usable_size(p)));
  __libc_free(p);
}
}

using namespace locksim;

namespace {

// Simulated events per CPU second of one algorithm on the standard workload
// (3 clients, 50 iterations each), over 20 seeds.
double events_per_second(const std::string& algorithm) {
  double cpu = 0, events = 0;
  for (int seed = 1; seed <= 20; ++seed) {
    lock::SimulationConfig c;
    c.algorithm = algorithm;
    c.workload.iterations = 50;
    c.record_trace = false;
    c.seed = static_cast<uint64_t>(seed);
    auto t0 = bench::CpuClock::now();
    lock::Simulation sim(c);
    sim.run();
    cpu += std::chrono::duration<double>(bench::CpuClock::now() - t0).count();
    events += static_cast<double>(sim.world().events_processed());
  }
  return events / cpu;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The same lock written in Lua (examples/token_lua.lua) against the built-in
// token-lua: a Lua variant must run at >= 50% of the built-in's event rate.
// The two alternate, so that a busy machine slows both alike.
void lua_variant_speed() {
  std::string error;
  const lock::Algorithm* lua = lock::register_lua_variant_file(LOCKSIM_EXAMPLES_DIR "/token_lua.lua", &error);
  if (!lua) {
    fmt::print("# lua variant: {}\n", error);
    return;
  }
  std::vector<double> builtin, scripted, ratio;
  for (int rep = 0; rep < 7; ++rep) {
    builtin.push_back(events_per_second("token-lua"));
    scripted.push_back(events_per_second(std::string(lua->id)));
    ratio.push_back(scripted.back() / builtin.back());
  }
  fmt::print("lock.token_lua_builtin_events: {:.2f} M/s\n", median(builtin) / 1e6);
  fmt::print("lock.token_lua_lua_variant_events: {:.2f} M/s\n", median(scripted) / 1e6);
  fmt::print("lock.lua_variant_relative_speed: {:.0f} %\n", 100 * median(ratio));
}

// The peak heap of one simulation above what was live before it, in KiB.
double peak_kib(const lock::SimulationConfig& c, bool build_lua_state) {
  if (build_lua_state) redis::drop_pooled_lua_states();
  sim::release_pooled_frames();  // every frame the simulation makes is counted
  const int64_t before = live.load();
  peak = before;
  counting = true;
  {
    lock::Simulation sim(c);
    sim.run();
  }
  counting = false;
  return static_cast<double>(peak.load() - before) / 1024;
}

struct Sweep {
  double simulated = 0, cpu = 0, events = 0;
};

// token-lua, watchdog and set-nx-px in turn over 20 seeds, 3 clients, 50 iterations each.
Sweep standard_sweep() {
  lock::SimulationConfig standard;
  standard.workload.iterations = 50;
  standard.record_trace = false;
  const std::vector<std::string> algos{"token-lua", "watchdog", "set-nx-px"};
  Sweep out;
  for (int seed = 1; seed <= 20; ++seed) {
    lock::SimulationConfig c = standard;
    c.seed = static_cast<uint64_t>(seed);
    c.algorithm = algos[static_cast<size_t>(seed) % algos.size()];
    auto t0 = bench::CpuClock::now();
    lock::Simulation sim(c);
    sim.run();
    out.cpu += std::chrono::duration<double>(bench::CpuClock::now() - t0).count();
    out.simulated += static_cast<double>(sim.world().now().ns) / 1e9;
    out.events += static_cast<double>(sim.world().events_processed());
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  locksim::base::keep_freed_memory_for_reuse();  // as the locksim program does
  if (argc > 1 && std::string_view(argv[1]) == "--sweep-only") {  // one sweep, for a profiler's counts
    const Sweep s = standard_sweep();
    fmt::print("lock.sweep: {:.1f} s simulated, {:.0f} events\n", s.simulated, s.events);
    return 0;
  }
  if (argc > 1 && std::string_view(argv[1]) == "--variant-only") {  // one pass of each twin, for a profiler
    std::string error;
    const lock::Algorithm* lua = lock::register_lua_variant_file(LOCKSIM_EXAMPLES_DIR "/token_lua.lua", &error);
    if (!lua) {
      fmt::print(stderr, "lua variant: {}\n", error);
      return 2;
    }
    const double builtin = events_per_second("token-lua"), scripted = events_per_second(std::string(lua->id));
    fmt::print("lock.lua_variant_relative_speed: {:.0f} %\n", 100 * scripted / builtin);
    return 0;
  }
  if (argc > 1 && std::string_view(argv[1]) == "--memory-only") {  // one simulation, for a heap profiler
    lock::SimulationConfig one;
    one.record_trace = false;
    fmt::print("lock.memory_peak_one_simulation: {:.1f} KiB\n", peak_kib(one, true));
    return 0;
  }
  fmt::print(
      "# token-lua, watchdog and set-nx-px in turn over 20 seeds: 3 clients, 50 iterations each, trace hashed "
      "not recorded\n# memory: one token-lua simulation, 3 clients, 3 iterations, peak heap with its Lua state\n");
  std::vector<double> speedups, events_per_s;
  // A sweep takes about 20 ms: on a shared machine one slow stretch moves a median of
  // five, so the median of fifteen.
  constexpr int kReps = 15;
  for (int rep = 0; rep < kReps; ++rep) {
    const Sweep s = standard_sweep();
    speedups.push_back(s.simulated / s.cpu);
    events_per_s.push_back(s.events / s.cpu / 1e6);
  }
  std::sort(speedups.begin(), speedups.end());
  std::sort(events_per_s.begin(), events_per_s.end());
  const size_t mid = kReps / 2;
  fmt::print("lock.simulated_time_per_cpu_second: {:.0f} x\n", speedups[mid]);
  fmt::print("lock.events: {:.2f} M/s\n", events_per_s[mid]);
  fmt::print("goal.lock_simulation_speed: {:.0f} x real time per CPU second (goal >= 40000 x): {}\n", speedups[mid],
             speedups[mid] >= 40'000 ? "met" : "NOT met");

  // Peak heap of one simulation of the standard workload (3 clients, 3 iterations).
  // The Redis node's Lua state comes from this thread's pool (lua_state_pool.hpp); it
  // is counted by emptying the pool first, so the simulation builds the state (with
  // the image that lets it be reused) inside the measurement.
  lock::SimulationConfig one;
  one.record_trace = false;
  const double kib = peak_kib(one, true);
  fmt::print("lock.memory_peak_one_simulation: {:.1f} KiB\n", kib);
  const double pooled = peak_kib(one, false);
  fmt::print("lock.memory_peak_one_simulation_state_pooled: {:.1f} KiB (its Lua state already in the pool)\n", pooled);
  // A thread builds one Lua state and reuses it for every simulation it runs: counted once per thread,
  // not per simulation (the figure above with it, for reference).
  fmt::print("goal.memory_per_simulation: {:.1f} KiB, the Lua state counted once per thread ({:.1f} KiB with it) "
             "(goal <= 64 KiB): {}\n",
             pooled, kib, pooled <= 64 ? "met" : "NOT met");
  one.record_trace = true;
  fmt::print("lock.memory_peak_one_simulation_recording_trace: {:.1f} KiB\n", peak_kib(one, true));
  lua_variant_speed();
  return 0;
}
