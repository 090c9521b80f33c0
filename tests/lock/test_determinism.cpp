// The same SimulationConfig gives the same trace hash and the same History,
// event for event; another seed gives another run.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "locksim/lock/registry.hpp"
#include "locksim/sim/fault.hpp"

using namespace locktest;

namespace {

void check_same(const History& x, const History& y) {
  REQUIRE(x.events().size() == y.events().size());
  CHECK(x.clients() == y.clients());
  for (size_t i = 0; i < x.events().size(); ++i) {
    const HistoryEvent& a = x.events()[i];
    const HistoryEvent& b = y.events()[i];
    CAPTURE(i, History::describe(a, x.client_name(a.client)));
    REQUIRE(a.at == b.at);
    REQUIRE(a.local == b.local);
    REQUIRE(a.client == b.client);
    REQUIRE(a.step == b.step);
    REQUIRE(a.purpose == b.purpose);
    REQUIRE(a.depth == b.depth);
    REQUIRE(a.token == b.token);
    REQUIRE(a.highest_seen == b.highest_seen);
    REQUIRE(a.own_lock == b.own_lock);
    REQUIRE(a.keys_survive == b.keys_survive);
    REQUIRE(a.status == b.status);
    REQUIRE(a.key == b.key);
    REQUIRE(a.old_value == b.old_value);
    REQUIRE(a.new_value == b.new_value);
    REQUIRE(a.expire_at_ms == b.expire_at_ms);
  }
}

SimulationConfig busy(std::string algorithm, uint64_t seed) {
  SimulationConfig c;
  c.algorithm = std::move(algorithm);
  c.seed = seed;
  c.workload.clients = 4;
  c.lock.retry_jitter = 30_ms;
  c.workload.clock_offsets = {0_ms, 300_ms};
  c.workload.drifts_ppm = {0, 200};
  c.workload.slow_work = {SlowWork{1, 1, 1500_ms}};
  c.workload.call_faults = {CallFault{2, 3, CallFault::Kind::Pause, 700_ms}};
  c.faults = *sim::parse_fault_plan("crash D @1s; restart D @1.5s; cut A redis @2s for 300ms");
  return c;
}

}  // namespace

TEST_CASE("determinism: the same config twice gives the same trace hash and History", "[lock]") {
  for (const Algorithm& algo : algorithms()) {
    if (std::string_view(algo.id).rfind("test-", 0) == 0) continue;
    CAPTURE(algo.id);
    const SimulationConfig c = busy(std::string(algo.id), 42);
    auto x = run(c);
    auto y = run(c);
    CHECK(x->trace_hash() == y->trace_hash());
    CHECK(x->world().trace().size() == y->world().trace().size());
    check_same(x->history(), y->history());

    // Hash-only tracing hashes the same events.
    SimulationConfig quiet = c;
    quiet.record_trace = false;
    auto z = run(quiet);
    check_same(x->history(), z->history());
  }
}

TEST_CASE("determinism: different seeds give different runs", "[lock]") {
  for (const char* id : {"token-lua", "watchdog", "fair"}) {
    CAPTURE(id);
    auto x = run(busy(id, 1));
    auto y = run(busy(id, 2));
    CHECK(x->trace_hash() != y->trace_hash());
    bool differ = x->history().events().size() != y->history().events().size();
    for (size_t i = 0; !differ && i < x->history().events().size(); ++i)
      differ = x->history().events()[i].at != y->history().events()[i].at;
    CHECK(differ);
  }
}
