// Runaway runs: a task that loops without letting virtual time pass, or a run that
// makes more events than its budget, ends with sim::RunawayRun naming the seed, the
// time and the node, instead of hanging.
#include <catch2/catch.hpp>

#include <string>

#include "helpers.hpp"

using namespace simtest;

namespace {
Task<void> spin(Proc p, Duration step) {
  for (;;) co_await p.sleep(step);
}
}  // namespace

TEST_CASE("a loop that never lets time pass is stopped and named", "[runaway]") {
  World w(42);
  NodeId n = w.add_node("spinner");
  w.set_limits(RunLimits{.events = 1'000'000'000, .events_at_one_instant = 1000});
  w.set_start(n, [](Proc p) -> Task<void> { co_await spin(p, Duration::zero()); });
  try {
    w.run_until(Instant{} + seconds(1));
    FAIL("the run ended");
  } catch (const RunawayRun& e) {
    const std::string what = e.what();
    CHECK(what.find("without virtual time passing") != std::string::npos);
    CHECK(what.find("spinner") != std::string::npos);
    CHECK(what.find("seed 42") != std::string::npos);
  }
  CHECK(w.events_processed() == 1001);
}

TEST_CASE("a run over its event budget is stopped", "[runaway]") {
  World w(7);
  NodeId n = w.add_node("ticker");
  w.set_limits(RunLimits{.events = 5000, .events_at_one_instant = 1000});
  w.set_start(n, [](Proc p) -> Task<void> { co_await spin(p, nanoseconds(1)); });
  CHECK_THROWS_WITH(w.run_until(Instant{} + seconds(1)),
                    Catch::Contains("made more than 5000 events") && Catch::Contains("seed 7"));
}

TEST_CASE("time that moves keeps a long run inside the default limits", "[runaway]") {
  World w(3);
  NodeId n = w.add_node("ticker");
  w.set_start(n, [](Proc p) -> Task<void> { co_await spin(p, milliseconds(1)); });
  REQUIRE_NOTHROW(w.run_until(Instant{} + seconds(600)));
  CHECK(w.events_processed() >= 600'000);
}
