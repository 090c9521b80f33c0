#pragma once
// A trial in one call, for a team's own tests (C++, any framework): N runs of the
// client program under seeded fault schedules, stopping at the first violation, with a
// report that says what it found. `locksim trial` is the same from the command line.
//
//   locksim::trial::TrialSettings settings;
//   settings.duration = locksim::sim::seconds(5);
//   auto report = locksim::trial::put_on_trial({"python3", "my_client.py"}, settings);
//   INFO(report.summary());             // what, who and which faults, and the replay line
//   REQUIRE_FALSE(report.violated());
#include <optional>
#include <string>
#include <vector>

#include "locksim/trial/runner.hpp"
#include "locksim/trial/schedule.hpp"
#include "locksim/trial/verdict.hpp"

namespace locksim::trial {

// The default kinds: pause, cut, delay, lose, and skew where libfaketime is installed.
FaultModel default_fault_model();

struct TrialSettings {
  uint32_t clients = 3, servers = 1, runs = 1;
  uint64_t seed = 1;
  Duration duration = sim::seconds(10);
  FaultModel faults = default_fault_model();
  JudgeOptions judge;
  std::chrono::milliseconds grace{2000};
};

struct TrialReport {
  uint32_t runs = 0;                // runs made (the last one failed, if any did)
  size_t holds = 0;                 // critical sections over all runs
  std::optional<RunRecord> failed;  // the failing run's record
  Judgement judgement;              // the failing run's (or the last run's) verdict
  bool violated() const { return judgement.violated(); }
  // "mutual-exclusion violated on orders: c1 and c2 both held ...; faults in force: ...;
  // replay: --replay '<schedule>'", or "no violation in N runs (H critical sections)".
  std::string summary() const;
};

// Throws CannotStart (the program cannot be started), std::invalid_argument (no client
// marked a critical section in a run: nothing to judge; an unusable setting).
TrialReport put_on_trial(const std::vector<std::string>& command, const TrialSettings& settings = {});

}  // namespace locksim::trial
