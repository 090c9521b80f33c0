// The trial from a team's own C++ test (trial/trial.hpp): the short-lease redis-py Lock
// fails with a summary naming the property, and a correct one passes.
#include <catch2/catch.hpp>

#include "locksim/trial/trial.hpp"

using namespace locksim;

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
  CHECK_THROWS_WITH(trial::put_on_trial({"sleep", "3"}, silent), Catch::Contains("sent no LOCKSIM.ENTER"));
}
