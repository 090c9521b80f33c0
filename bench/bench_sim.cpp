// Simulator benchmark: bare events through World's scheduler, timer events
// aimed at nodes (as timeouts are), task sleeps, and request/response round
// trips over a simulated link. Prints one figure per
// line, "name: value unit", each the median of 5 repetitions.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "locksim/base/allocator.hpp"
#include "locksim/sim/rpc.hpp"
#include "locksim/sim/world.hpp"

using namespace locksim::sim;
using namespace locksim::sim::literals;

namespace {

// CPU time of this thread, not wall time: on a shared machine the figures then
// do not count the time other processes held the core.
struct Clock {
  using time_point = double;
  static double now() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  }
};

// Work is divided by this (bench_sim 20: a short run for a profiler).
uint64_t g_scale = 1;

template <class F>
double median_rate(F run_once) {
  std::vector<double> rates;
  for (int i = 0; i < 5; ++i) rates.push_back(run_once());
  std::sort(rates.begin(), rates.end());
  return rates[2];
}

double seconds_since(Clock::time_point t0) { return Clock::now() - t0; }

// Raw events: 1024 self-rescheduling no-op events keep the queue at a steady size.
struct RawState {
  uint64_t remaining;
  uint64_t lcg = 12345;
};
void raw_event(World& w, const Event& e) {
  auto* s = static_cast<RawState*>(e.obj);
  if (s->remaining == 0) return;
  --s->remaining;
  s->lcg = s->lcg * 6364136223846793005ULL + 1442695040888963407ULL;
  w.schedule(w.now() + Duration{static_cast<int64_t>(1 + (s->lcg >> 54))}, &raw_event, s);
}

double raw_events() {
  const uint64_t kEvents = 10'000'000 / g_scale;
  World w(1, Trace::Mode::HashOnly);
  RawState state{kEvents};
  for (int i = 0; i < 1024; ++i) w.schedule(Instant{i}, &raw_event, &state);
  auto t0 = Clock::now();
  w.run();
  double dt = seconds_since(t0);
  return static_cast<double>(w.events_processed()) / dt / 1e6;
}

// Timer events: 1024 self-rescheduling events aimed at 16 nodes' current
// incarnations, as timeouts and message deliveries are — each dispatch checks
// its node, and a paused node's timers wait for it (every node is paused for
// 1 ms in every 100 ms). Counted: timer events run, pauses aside.
struct TimerState {
  uint64_t remaining;
  uint64_t lcg = 54321;
  std::vector<NodeId> nodes;
  uint64_t fired = 0;
};
void timer_event(World& w, const Event& e) {
  auto* s = static_cast<TimerState*>(e.obj);
  if (!w.live(e)) return;
  ++s->fired;
  if (s->remaining == 0) return;
  --s->remaining;
  s->lcg = s->lcg * 6364136223846793005ULL + 1442695040888963407ULL;
  const NodeId node = s->nodes[(s->lcg >> 40) % s->nodes.size()];
  w.schedule(w.now() + Duration{static_cast<int64_t>(1 + (s->lcg >> 44))}, &timer_event, s, 0, 0, node);
}
void pause_event(World& w, const Event& e) {
  auto* s = static_cast<TimerState*>(e.obj);
  if (s->remaining == 0) return;
  w.pause(s->nodes[e.id % s->nodes.size()], 1_ms);
  w.schedule(w.now() + 100_ms / static_cast<int64_t>(s->nodes.size()), &pause_event, s, e.id + 1);
}

double timer_events() {
  World w(1, Trace::Mode::HashOnly);
  TimerState state;
  state.remaining = 5'000'000 / g_scale;
  for (int n = 0; n < 16; ++n) state.nodes.push_back(w.add_node("n" + std::to_string(n)));
  for (int i = 0; i < 1024; ++i) w.schedule(Instant{i}, &timer_event, &state, 0, 0, state.nodes[i % 16]);
  w.schedule(Instant{}, &pause_event, &state);
  auto t0 = Clock::now();
  w.run();
  double dt = seconds_since(t0);
  return static_cast<double>(state.fired) / dt / 1e6;
}

// Task sleeps: 1000 tasks on 10 nodes, each looping co_await sleep.
Task<void> sleeper(Proc p, int64_t period_ns, int loops) {
  for (int i = 0; i < loops; ++i) co_await p.sleep(Duration{period_ns});
}

double task_sleeps() {
  const int kTasks = 1000, kLoops = static_cast<int>(5000 / g_scale);
  World w(1, Trace::Mode::HashOnly);
  std::vector<NodeId> nodes;
  for (int n = 0; n < 10; ++n) nodes.push_back(w.add_node("n" + std::to_string(n)));
  for (int t = 0; t < kTasks; ++t)
    w.spawn(nodes[t % nodes.size()], sleeper(Proc(w, nodes[t % nodes.size()]), 1000 + t, kLoops));
  auto t0 = Clock::now();
  w.run();
  double dt = seconds_since(t0);
  return static_cast<double>(uint64_t{kTasks} * kLoops) / dt / 1e6;
}

// Round trips: 4 clients, each a coroutine calling an echo service in a loop.
using Echo = Service<int64_t, int64_t>;
Task<void> caller(Channel<int64_t, int64_t>& ch, int calls, uint64_t& ok) {
  for (int i = 0; i < calls; ++i) {
    auto r = co_await ch.call(i, 1_s);
    ok += r.ok() ? 1 : 0;
  }
}

double round_trips() {
  const int kClients = 4, kCalls = static_cast<int>(500'000 / g_scale);
  World w(1, Trace::Mode::HashOnly);
  w.network().set_default_latency(LatencyDist{.base = 100_us,
                                              .jitter = 50_us,
                                              .spike_probability = 0.01,
                                              .spike_scale = 200_us,
                                              .spike_alpha = 1.5,
                                              .spike_cap = 5_ms});
  NodeId server = w.add_node("echo");
  auto& echo = w.make<Echo>(w, server, [](SessionId, int64_t& req, Instant) { return req; });
  uint64_t ok = 0;
  for (int c = 0; c < kClients; ++c) {
    NodeId id = w.add_node("c" + std::to_string(c));
    w.spawn(id, caller(echo.connect(id), kCalls, ok));
  }
  auto t0 = Clock::now();
  w.run();
  double dt = seconds_since(t0);
  if (ok != uint64_t{kClients} * kCalls)
    std::fprintf(stderr, "bench_sim: only %llu of the calls succeeded\n", (unsigned long long)ok);
  return static_cast<double>(ok) / dt / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  locksim::base::keep_freed_memory_for_reuse();  // as the locksim program does
  if (argc > 1) g_scale = std::max<uint64_t>(1, std::strtoull(argv[1], nullptr, 10));
  std::printf("# locksim simulator benchmark: median of 5 runs, per second of this thread's CPU time\n");
  const double raw = median_rate(raw_events), sleeps = median_rate(task_sleeps);
  std::printf("scheduler.raw_events: %.2f M/s\n", raw);
  std::printf("scheduler.task_sleeps: %.2f M/s\n", sleeps);
  std::printf("scheduler.timer_events: %.2f M/s\n", median_rate(timer_events));
  std::printf("sim.round_trips: %.2f M/s\n", median_rate(round_trips));
  return 0;
}
