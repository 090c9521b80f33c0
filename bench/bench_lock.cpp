// The lock workload in the simulator: simulated time per wall second for the
// standard 3-client workload, and the peak heap one simulation uses.
//   bench_lock
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <new>
#include <vector>

#include "lock/lua_variant.hpp"
#include "lock/simulation.hpp"

namespace {
// Heap accounting for the memory figure: every allocation in this program
// passes through here (single-threaded benchmark).
std::atomic<int64_t> live{0}, peak{0};
}  // namespace

void* operator new(std::size_t n) {
  void* p = std::malloc(n + 16);
  if (!p) throw std::bad_alloc();
  *static_cast<std::size_t*>(p) = n;
  int64_t now = live += static_cast<int64_t>(n);
  int64_t old = peak.load();
  while (now > old && !peak.compare_exchange_weak(old, now)) {}
  return static_cast<char*>(p) + 16;
}
void operator delete(void* p) noexcept {
  if (!p) return;
  char* base = static_cast<char*>(p) - 16;
  live -= static_cast<int64_t>(*reinterpret_cast<std::size_t*>(base));
  std::free(base);
}
void operator delete(void* p, std::size_t) noexcept { operator delete(p); }

using namespace locksim;

namespace {

// Simulated events per wall second of one algorithm on the standard workload
// (3 clients, 50 iterations each), over 20 seeds.
double events_per_second(const std::string& algorithm) {
  double wall = 0, events = 0;
  for (int seed = 1; seed <= 20; ++seed) {
    lock::SimulationConfig c;
    c.algorithm = algorithm;
    c.workload.iterations = 50;
    c.record_trace = false;
    c.seed = static_cast<uint64_t>(seed);
    auto t0 = std::chrono::steady_clock::now();
    lock::Simulation sim(c);
    sim.run();
    wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    events += static_cast<double>(sim.world().events_processed());
  }
  return events / wall;
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

}  // namespace

int main() {
  lock::SimulationConfig standard;  // token-lua, 3 clients, 3 iterations, default latencies
  standard.workload.iterations = 50;
  standard.record_trace = false;
  fmt::print("# 3-client token-lua workload, {} iterations each, trace hashed not recorded\n",
             standard.workload.iterations);
  std::vector<double> speedups, events_per_s;
  for (int rep = 0; rep < 5; ++rep) {
    std::vector<std::string> algos{"token-lua", "watchdog", "set-nx-px"};
    double simulated = 0, wall = 0, events = 0;
    for (int seed = 1; seed <= 20; ++seed) {
      lock::SimulationConfig c = standard;
      c.seed = static_cast<uint64_t>(seed);
      c.algorithm = algos[seed % algos.size()];
      auto t0 = std::chrono::steady_clock::now();
      lock::Simulation sim(c);
      sim.run();
      wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      simulated += static_cast<double>(sim.world().now().ns) / 1e9;
      events += static_cast<double>(sim.world().events_processed());
    }
    speedups.push_back(simulated / wall);
    events_per_s.push_back(events / wall / 1e6);
  }
  std::sort(speedups.begin(), speedups.end());
  std::sort(events_per_s.begin(), events_per_s.end());
  fmt::print("lock.simulated_time_per_wall_second: {:.0f} x\n", speedups[2]);
  fmt::print("lock.events: {:.2f} M/s\n", events_per_s[2]);

  // Peak heap of one simulation of the standard workload (3 clients, 3 iterations).
  lock::SimulationConfig one;
  one.record_trace = false;
  int64_t before = live.load();
  peak = before;
  {
    lock::Simulation sim(one);
    sim.run();
  }
  fmt::print("lock.memory_peak_one_simulation: {:.1f} KiB\n", static_cast<double>(peak.load() - before) / 1024);
  one.record_trace = true;
  before = live.load();
  peak = before;
  {
    lock::Simulation sim(one);
    sim.run();
  }
  fmt::print("lock.memory_peak_one_simulation_recording_trace: {:.1f} KiB\n",
             static_cast<double>(peak.load() - before) / 1024);
  lua_variant_speed();
  return 0;
}
