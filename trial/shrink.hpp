#pragma once
// Shrinking a found schedule in real time: a run does not replay byte for byte, so a
// fault is removed when the schedule without it still reproduces the violation at least
// `threshold` of the time (rate measures that, by re-running it a few times). Faults are
// tried from the last to the first, each once; what stays is needed at that rate.
#include <functional>

#include "locksim/trial/schedule.hpp"

namespace locksim::trial {

struct ShrinkStep {
  Fault removed;
  double rate = 0;  // the reproduction rate without it
  bool kept = false;  // the rate fell below the threshold: it stays
};

struct Shrunk {
  Schedule schedule;
  std::vector<ShrinkStep> steps;
};

// rate(s): the fraction of re-runs of s that reproduce the violation (0..1).
Shrunk shrink(const Schedule& found, double threshold, const std::function<double(const Schedule&)>& rate,
              const std::function<void(const ShrinkStep&)>& on_step = {});

}  // namespace locksim::trial
