// One schedule for every lock: a client's start, work and think times come
// from its own streams, so the same scenario runs the same world under any
// algorithm, whatever the other clients do (issue 27).
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "locksim/lock/schedule.hpp"

using namespace locktest;

namespace {

// What one client did with its time: when it first asked, how long each
// section worked, how long it thought before asking again.
struct Timings {
  std::vector<int64_t> starts, works, thinks;
  bool operator==(const Timings&) const = default;
};

Timings timings_of(const History& h, uint32_t client) {
  Timings t;
  std::optional<int64_t> entered, finished;
  for (const HistoryEvent& e : h.events()) {
    if (e.client != client || e.depth != 0) continue;
    if (e.step == Step::AcquireStart) {
      if (finished) t.thinks.push_back(e.at.ns - *finished);
      if (t.starts.empty()) t.starts.push_back(e.at.ns);
    }
    if (e.step == Step::Enter) entered = e.at.ns;
    if (e.step == Step::Leave && entered) t.works.push_back(e.at.ns - *entered);
    if (e.step == Step::Released || e.step == Step::AcquireFailed) finished = e.at.ns;
  }
  return t;
}

SimulationConfig world(const std::string& algorithm, uint32_t clients) {
  SimulationConfig c;
  c.algorithm = algorithm;
  c.seed = 5;
  c.workload.clients = clients;
  c.workload.iterations = 3;
  c.workload.write_resource = false;  // Enter to Leave is then the work alone
  return c;
}

}  // namespace

TEST_CASE("schedule: the same scenario gives every lock the same starts, work and thinks", "[lock]") {
  const std::vector<std::string> locks = {"set-nx-px", "token-lua", "watchdog", "reentrant", "fenced", "redlock",
                                          "fair", "getset", "db-for-update"};
  for (uint32_t client = 0; client < 3; ++client) {
    const auto reference = world("set-nx-px", 3);
    const ClientSchedule schedule(5, client, client, reference.workload);
    Timings expected;
    expected.starts.push_back(schedule.start().ns);
    for (uint32_t i = 0; i < 3; ++i) expected.works.push_back(schedule.work(i).ns);
    for (uint32_t i = 0; i < 2; ++i) expected.thinks.push_back(schedule.think(i).ns);
    for (const std::string& algorithm : locks) {
      INFO(algorithm << ", client " << client_name(client));
      auto s = run(world(algorithm, 3));
      CHECK(timings_of(s->history(), client) == expected);
    }
  }
}

TEST_CASE("schedule: a client's timings do not depend on the other clients", "[lock]") {
  auto two = run(world("token-lua", 2));
  auto three = run(world("token-lua", 3));
  CHECK(timings_of(two->history(), 0) == timings_of(three->history(), 0));
  CHECK(timings_of(two->history(), 1) == timings_of(three->history(), 1));
  // A client shrunk away: the one left in its place keeps its own identity's schedule.
  SimulationConfig alone = world("token-lua", 1);
  alone.workload.identities = {1};
  CHECK(timings_of(run(alone)->history(), 0) == timings_of(three->history(), 1));
}

TEST_CASE("schedule: a slow section replaces only that section's work, draws stay in their ranges", "[lock]") {
  WorkloadParams w;
  w.slow_work.push_back({1, 2, 1500_ms});
  const ClientSchedule a(9, 0, 0, w), b(9, 1, 1, w);
  CHECK(b.work(2) == 1500_ms);
  CHECK(a.work(2) != 1500_ms);
  const WorkloadParams defaults;
  CHECK(b.work(1) == ClientSchedule(9, 1, 1, defaults).work(1));
  for (uint32_t i = 0; i < 200; ++i) {
    CHECK(a.work(i) >= w.work_min);
    CHECK(a.work(i) <= w.work_max);
    CHECK(a.think(i) >= w.think_min);
    CHECK(a.think(i) <= w.think_max);
  }
  CHECK(a.start() <= w.start_spread);
  // Different seeds, different worlds.
  CHECK(ClientSchedule(10, 0, 0, w).work(0) != a.work(0));
}
