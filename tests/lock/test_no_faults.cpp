// Every algorithm, no faults, five contending clients: everyone gets the lock,
// and with the default short work (well under the lease) nobody overlaps.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "locksim/lock/registry.hpp"

using namespace locktest;

TEST_CASE("no faults: every client acquires and no critical sections overlap", "[lock]") {
  for (const Algorithm& algo : algorithms()) {
    for (uint64_t seed : {1u, 2u, 3u}) {
      CAPTURE(algo.id, seed);
      SimulationConfig c;
      c.algorithm = std::string(algo.id);
      c.seed = seed;
      c.workload.clients = 5;
      c.workload.iterations = 3;
      auto s = run(c);
      const History& h = s->history();
      for (uint32_t client = 0; client < 5; ++client) {
        CAPTURE(client);
        CHECK(steps(h, Step::Acquired, client).size() == 3);
        CHECK(steps(h, Step::AcquireFailed, client).empty());
        CHECK(steps(h, Step::Leave, client).size() == 3);
        // Everyone released its own lock.
        for (const HistoryEvent& e : steps(h, Step::Released, client)) CHECK(e.own_lock);
      }
      // No faults and short work: every algorithm, safe or not, is exclusive here.
      CHECK(overlaps(h).empty());
      CHECK(steps(h, Step::WriteRejected).empty());
    }
  }
}

TEST_CASE("no faults, work longer than the lease: the safe algorithms still never overlap", "[lock]") {
  for (const Algorithm& algo : algorithms()) {
    if (!algo.safe_without_faults) continue;
    for (uint64_t seed : {1u, 2u}) {
      CAPTURE(algo.id, seed);
      SimulationConfig c;
      c.algorithm = std::string(algo.id);
      c.seed = seed;
      c.lock.wait_limit = 30_s;
      c.workload.clients = 5;
      c.workload.iterations = 2;
      c.workload.work_min = 800_ms;  // up to three leases of work
      c.workload.work_max = 3_s;
      auto s = run(c);
      const History& h = s->history();
      for (uint32_t client = 0; client < 5; ++client) CHECK(steps(h, Step::Acquired, client).size() == 2);
      CHECK(overlaps(h).empty());
    }
  }
}

TEST_CASE("no faults, work longer than the lease: the lease-only algorithms overlap", "[lock]") {
  // The contrast to the test above: the short-work guarantee was doing the work.
  for (const char* id : {"set-nx-px", "token-check-del", "token-lua", "watch-multi"}) {
    CAPTURE(id);
    SimulationConfig c;
    c.algorithm = id;
    c.lock.wait_limit = 30_s;
    c.workload.clients = 3;
    c.workload.iterations = 2;
    c.workload.work_min = 1500_ms;
    c.workload.work_max = 2_s;
    auto s = run(c);
    CHECK_FALSE(overlaps(s->history()).empty());
  }
}
