// The trial from a team's own C++ test (trial/trial.hpp): the short-lease redis-py Lock
// fails with a summary naming the property, and a correct one passes.
#include <catch2/catch.hpp>

#include <algorithm>

#include "locksim/trial/trial.hpp"

using namespace locksim;
using sim::Instant;

TEST_CASE("put_on_trial from a test: a report that fails with its reason, or passes", "[trial]") {
  const std::string client = std::string(LOCKSIM_EXAMPLES) + "/redis_py_lock.py";
  trial::TrialSettings settings;
  settings.clients = 2;
  settings.duration = sim::seconds(3);
  settings.runs = 3;
  const auto caught = trial::put_on_trial({LOCKSIM_PYTHON, client, "--lease", "0.1", "--work", "0.6"}, settings);
  INFO(caught.summary());
  REQUIRE(caught.violated());
  CHECK(caught.failed.has_value());
  CHECK(caught.judgement.findings.front().violation.property == props::Property::MutualExclusion);
  CHECK_THAT(caught.summary(), Catch::StartsWith("mutual-exclusion violated on orders in run "));
  CHECK_THAT(caught.summary(), Catch::Contains("replay: --replay 'clients=2 servers=1 duration=3s faults="));

  settings.runs = 1;
  settings.clients = 3;
  settings.duration = sim::seconds(4);
  const auto passed = trial::put_on_trial({LOCKSIM_PYTHON, client}, settings);
  INFO(passed.summary());
  CHECK_FALSE(passed.violated());
  CHECK_THAT(passed.summary(), Catch::StartsWith("no violation in 1 run ("));

  trial::TrialSettings silent;
  silent.clients = 1;
  silent.duration = sim::milliseconds(300);
  CHECK_THROWS_WITH(trial::put_on_trial({"sleep", "1"}, silent), Catch::Contains("sent no LOCKSIM.ENTER"));
}

TEST_CASE("a client's clock jumps when its schedule says (libfaketime, read at every clock reading)", "[trial]") {
  // The client names the resource it enters by what its own clock says: "before" until
  // its clock has moved 100 s past its start, "after" once it has.
  const std::string code =
      "import sys, time\n"
      "sys.path.insert(0, '" LOCKSIM_EXAMPLES "')\n"
      "import locksim_trial as trial\n"
      "t0 = time.time()\n"
      "while trial.running():\n"
      "    with trial.critical_section('after' if time.time() - t0 > 100 else 'before'):\n"
      "        time.sleep(0.02)\n";
  trial::RunSetup setup;
  setup.command = {LOCKSIM_PYTHON, "-c", code};
  const trial::RunRecord run =
      trial::run_trial(trial::parse_schedule("clients=1 duration=2s faults=clock:c1@1s/+150s"), setup);
  REQUIRE_FALSE(run.marks.empty());
  Instant first_after = Instant::never(), last_before{};
  for (const trial::RecordedMark& m : run.marks) {
    if (m.mark.resource == "after") first_after = std::min(first_after, m.at);
    if (m.mark.resource == "before") last_before = std::max(last_before, m.at);
  }
  REQUIRE(first_after != Instant::never());
  CHECK(last_before < first_after);
  CHECK(first_after >= Instant{} + sim::milliseconds(950));
  CHECK(first_after <= Instant{} + sim::milliseconds(1300));
  REQUIRE(run.faults.size() == 1);
  CHECK(trial::describe(run.faults.front().fault) == "clock of c1 jumps by +150s at 1.000s");
}
