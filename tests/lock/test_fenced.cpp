// fenced (F19): mutual exclusion fails, yet the resource rejects the stale
// holder's late write because its token is lower than one already seen.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "locksim/sim/fault.hpp"

using namespace locktest;

namespace {

// Two clients; whoever takes the lock first works for 2s on its first hold.
SimulationConfig two_clients() {
  SimulationConfig c;
  c.algorithm = "fenced";
  c.lock.wait_limit = 10_s;
  c.workload.clients = 2;
  c.workload.iterations = 2;
  c.workload.start_spread = 0_ms;
  return c;
}

void check_stale_write_rejected(const History& h) {
  auto ov = overlaps(h);
  REQUIRE_FALSE(ov.empty());  // mutual exclusion did fail
  auto rejected = steps(h, Step::WriteRejected);
  REQUIRE(rejected.size() >= 1);
  CHECK(rejected[0].token < rejected[0].highest_seen);  // its token is below the highest seen
  // The rejected writer was inside a critical section that overlapped another's.
  bool in_overlap = false;
  for (const Overlap& o : ov)
    for (const Section& sec : {o.first, o.second})
      in_overlap |= sec.client == rejected[0].client && sec.contains(rejected[0].at.ns - 1);
  CHECK(in_overlap);
  // Accepted writes are in non-decreasing token order.
  int64_t last = -1;
  for (const HistoryEvent& e : steps(h, Step::WriteAccepted)) {
    CHECK(e.token >= last);
    last = e.token;
  }
  // Tokens are the INCR of the fence counter: 1, 2, ... in acquisition order.
  auto acquired = steps(h, Step::Acquired);
  REQUIRE(acquired.size() >= 2);
  CHECK(acquired[0].token == 1);
  CHECK(acquired[1].token == 2);
}

}  // namespace

TEST_CASE("fenced: with an explicit lease (no renewal) a long hold's late write is rejected", "[lock]") {
  SimulationConfig c = two_clients();
  c.lock.explicit_lease = 1_s;
  c.workload.slow_work = {SlowWork{0, 0, 2_s}, SlowWork{1, 0, 2_s}};
  auto s = run(c);
  check_stale_write_rejected(s->history());
}

TEST_CASE("fenced: a stop-the-world pause longer than the lease (F13) ends in a rejected write (F19)", "[lock]") {
  SimulationConfig c = two_clients();
  c.workload.work_min = c.workload.work_max = 300_ms;
  uint32_t holder;
  {
    Simulation dry(c);
    dry.world().run_until(at(100_ms));
    holder = steps(dry.history(), Step::Acquired).at(0).client;
  }
  std::string error;
  auto plan = sim::parse_fault_plan(holder == 0 ? "pause A @150ms for 2s" : "pause B @150ms for 2s", &error);
  REQUIRE(plan);
  c.faults = *plan;
  auto s = run(c);
  const History& h = s->history();
  check_stale_write_rejected(h);
  CHECK(steps(h, Step::WriteRejected).at(0).client == holder);
}

TEST_CASE("fenced: without faults every write is accepted in token order", "[lock]") {
  SimulationConfig c = two_clients();
  c.workload.clients = 4;
  auto s = run(c);
  const History& h = s->history();
  CHECK(steps(h, Step::WriteRejected).empty());
  CHECK(steps(h, Step::WriteAccepted).size() == 8);
  CHECK(overlaps(h).empty());
}
