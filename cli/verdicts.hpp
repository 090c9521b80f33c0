#pragma once
// The bridge from props/ to what the CLI shows: a scenario re-run with its
// trace recorded (so the timeline can draw its commands), props' verdict on
// it, its violations as timeline highlights, and the command that replays it.
// props::check is the one checker: run, check, replay and the tour all use it.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/lock/simulation.hpp"
#include "locksim/props/check.hpp"
#include "locksim/props/scenario.hpp"
#include "locksim/render/timeline.hpp"

namespace locksim::cli {

// One highlight per violation, in the verdict's (time) order.
std::vector<render::Highlight> highlights_of(const props::Verdict& verdict);
// The violations of `first` first (when there is one), then the others.
std::vector<render::Highlight> highlights_of(const props::Verdict& verdict, props::Property first);

// props::check on a finished simulation.
props::Verdict check_simulation(lock::Simulation& sim);

struct Recorded {
  std::unique_ptr<lock::Simulation> sim;
  props::Verdict verdict;
  uint64_t trace_hash = 0;  // of the recorded run (recording adds the text of events to the hash)
};
// Runs the scenario with its trace recorded and checks it. Throws
// std::invalid_argument for a scenario the simulator rejects.
Recorded run_recorded(const props::Scenario& scenario);

// A word safe for a POSIX shell: 'as is' in single quotes.
std::string shell_quote(std::string_view text);
// "locksim replay '<scenario>'"
std::string replay_command(const props::Scenario& scenario);

}  // namespace locksim::cli
