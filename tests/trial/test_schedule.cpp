// Trial schedules: drawn from a seed the same every time, written as one line that
// reads back to the same schedule, and hostile text refused with a reason.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "locksim/trial/schedule.hpp"
#include "locksim/trial/shrink.hpp"

using namespace locksim;
using namespace locksim::trial;

TEST_CASE("a drawn schedule is the seed's, and its text reads back to it", "[trial]") {
  FaultModel model;
  model.kinds = parse_fault_kinds("all");
  const Schedule a = draw(7, 3, 3, 3, sim::seconds(20), model);
  CHECK(a == draw(7, 3, 3, 3, sim::seconds(20), model));
  CHECK_FALSE(a == draw(7, 4, 3, 3, sim::seconds(20), model));
  REQUIRE(a.faults.size() > 5);
  for (const Fault& f : a.faults) {
    CHECK(f.at <= a.duration);
    if (f.kind == FaultKind::Pause || f.kind == FaultKind::Cut || f.kind == FaultKind::Lose) {
      CHECK(f.length <= model.max_pause);
      CHECK(f.length > Duration{});
    }
    if (aims_at_client(f.kind)) CHECK(f.client < 3);
  }
  const std::string text = to_text(a);
  CHECK(parse_schedule(text) == a);
  CHECK(to_text(parse_schedule(text)) == text);
}

TEST_CASE("the default kinds leave out what breaks a single Redis's assumptions", "[trial]") {
  for (FaultKind k : parse_fault_kinds("pause,cut,delay,lose,skew")) CHECK_FALSE(beyond_default_assumptions(k));
  CHECK(beyond_default_assumptions(FaultKind::Restart));
  CHECK(beyond_default_assumptions(FaultKind::Jump));
  CHECK(parse_fault_kinds("none").empty());
  CHECK(draw(1, 0, 3, 1, sim::seconds(5), FaultModel{.kinds = {}}).faults.empty());
  CHECK_THROWS_WITH(parse_fault_kinds("pause,teleport"), Catch::Contains("unknown fault kind 'teleport'"));
}

TEST_CASE("a schedule written by hand reads as written", "[trial]") {
  const Schedule s = parse_schedule(
      "clients=2 servers=3 duration=4s faults=pause:c2@1.2s+800ms,cut:c1>r2@1s+500ms,delay:c1@2s+1s/+300ms,"
      "restart:r1@3s,jump:r0@1s/-10s,skew:c2@0s/+250ms,lose:c1@3.5s+100ms");
  REQUIRE(s.faults.size() == 7);
  CHECK(s.clients == 2);
  CHECK(s.servers == 3);
  CHECK(s.faults[0].kind == FaultKind::Skew);
  CHECK(s.faults[0].amount == sim::milliseconds(250));
  const Fault& cut = s.faults[1];
  CHECK(cut.kind == FaultKind::Cut);
  CHECK(cut.client == 0);
  CHECK(cut.server == 2);
  CHECK(describe(cut) == "cut of c1 on r2 at 1.000s for 500ms");
  CHECK(describe(s.faults[2]) == "clock jump of r0 by -10s at 1.000s");
  CHECK(describe(s.faults[3]) == "pause of c2 at 1.200s for 800ms");
}

TEST_CASE("a hostile schedule is refused with its reason", "[trial]") {
  auto refused = [](const char* text, const char* why) {
    INFO(text);
    CHECK_THROWS_WITH(parse_schedule(text), Catch::Contains(why));
  };
  refused("clients=3 duration=4s", "no faults=");
  refused("clients=0 faults=none", "clients must be 1..64");
  refused("clients=99999999 faults=none", "clients");
  refused("clients=2 faults=pause:c3@1s+1s", "beyond clients=2");
  refused("clients=2 faults=pause:c0@1s+1s", "count from c1");
  refused("clients=2 faults=pause:c1@1s", "needs a length");
  refused("clients=2 faults=restart:r1@1s", "beyond servers=1");
  refused("clients=2 duration=2s faults=restart:r0@3s", "after the run's end");
  refused("clients=2 faults=delay:c1@1s+1s/-5ms", "cannot be negative");
  refused("clients=2 faults=jump:r0@1s", "needs an amount");
  refused("clients=2 faults=warp:c1@1s", "unknown kind");
  refused("clients=2 faults=pause:c1@banana+1s", "time 'banana'");
  refused("clients=2 duration=1h9999999999h faults=none", "duration");
  refused("speed=3 faults=none", "unknown");
  refused("clients=2 faults=clock:c1>r0@1s/+1s", "the client's own");
  refused("clients=2 faults=clock:c1@1s", "needs an amount");
}

TEST_CASE("shrinking keeps the faults without which the violation stops reproducing", "[trial]") {
  const Schedule found = parse_schedule(
      "clients=3 duration=4s faults=pause:c1@1s+800ms,cut:c2@1.5s+100ms,delay:c3@2s+1s/+900ms,lose:c1@3s+100ms");
  // A stand-in for re-running: the violation needs the pause of c1 always, and the delay
  // of c3 half the time; the cut and the lost reply change nothing.
  auto has = [](const Schedule& s, FaultKind k) {
    for (const Fault& f : s.faults)
      if (f.kind == k) return true;
    return false;
  };
  auto rate = [&](const Schedule& s) {
    if (!has(s, FaultKind::Pause)) return 0.0;
    return has(s, FaultKind::Delay) ? 1.0 : 0.5;
  };
  std::vector<std::string> said;
  const Shrunk at_most_half = shrink(found, 0.5, rate, [&](const ShrinkStep& s) { said.push_back(describe(s.removed)); });
  CHECK(to_text(at_most_half.schedule) == "clients=3 servers=1 duration=4s faults=pause:c1@1s+800ms");
  CHECK(said.size() == 4);
  const Shrunk strict = shrink(found, 0.9, rate);
  CHECK(to_text(strict.schedule) == "clients=3 servers=1 duration=4s faults=pause:c1@1s+800ms,delay:c3@2s+1s/+900ms");
  REQUIRE(strict.steps.size() == 4);
  CHECK(strict.steps[1].kept);   // the delay: 0.5 without it
  CHECK(strict.steps[3].kept);   // the pause: 0 without it
  CHECK_FALSE(strict.steps[0].kept);
}
