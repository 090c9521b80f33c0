#pragma once
// The verdict on a trial run: the clients' marks turned into the simulator's history
// (one per resource: Enter and Leave, and Crashed for a client that ended by itself),
// judged by the simulator's own mutual-exclusion checker (props/), plus what only the
// marks can tell: fenced writes (an accepted write from a hold older than one that had
// already written) and no-deadlock (nobody entered for longer than the stall bound
// while the clients ran). Each violation names the faults in force during it.
#include <string>
#include <vector>

#include "locksim/lock/history.hpp"
#include "locksim/props/property.hpp"
#include "locksim/trial/runner.hpp"

namespace locksim::trial {

struct JudgeOptions {
  Duration stall = sim::seconds(10);  // no-deadlock: the longest time without an ENTER, while clients run
  // How long a lost request or reply still acts after its fault: the client learns of it
  // only when its own timeout runs out (the trial does not know it; a second covers most).
  Duration aftermath = sim::seconds(1);
};

struct Finding {
  props::Violation violation;         // its clients index RunRecord::clients
  std::string resource;
  // The faults whose effect reaches into it, from the earlier hold's start: a delay until its
  // last late reply, a cut or a lost reply until JudgeOptions::aftermath after it.
  std::vector<AppliedFault> in_force;
};

struct Judgement {
  std::vector<Finding> findings;  // the first of each property, the earliest first
  size_t holds = 0;               // critical sections entered
  size_t writes = 0, rejected_writes = 0;
  std::vector<std::string> resources;
  bool violated() const { return !findings.empty(); }
};

Judgement judge(const RunRecord& run, const JudgeOptions& options = {});

// The simulator's history of one resource, as the checkers and the timeline read it:
// each client's critical sections (Enter, Leave), its pauses (Paused, Resumed) and its
// end if it ended by itself (Crashed), in true time from the run's start.
lock::History history_of(const RunRecord& run, const std::string& resource);

}  // namespace locksim::trial
