#include "locksim/cli/tour_assumptions.hpp"

#include <stdexcept>

#include "locksim/base/assert.hpp"
#include "locksim/cli/verdicts.hpp"
#include "locksim/props/assumptions.hpp"

namespace locksim::cli {

namespace {

struct Tried {
  std::string_view what;
  std::string_view faults;  // the scenario's fault words, on kBase
};

// Two clients race for the lock on three masters; B wins (seed 1) and works 600 ms
// of a 1 s lease. Each line breaks one assumption of the argument, the last none.
constexpr std::string_view kBase = "redlock seed=1 masters=3 clients=2 iterations=1 work=600ms..600ms spread=1ms";
constexpr Tried kTried[] = {
    {"redis2 restarts, no persistence", "faults=[restart redis2 @7ms]"},
    {"the holder stops 1.5 s (GC)", "faults=[pause B @100ms for 1.5s]"},
    {"two masters' clocks jump +2 s", "faults=[jump redis1 @100ms by +2s; jump redis2 @100ms by +2s]"},
    {"the holder stops 200 ms", "faults=[pause B @100ms for 200ms]"},
};

AssumptionTrial run_one(const Tried& t, const props::Assumptions& assumptions) {
  AssumptionTrial trial;
  trial.what = t.what;
  trial.scenario = std::string(kBase) + " " + std::string(t.faults);
  std::string error;
  const auto scenario = props::parse_scenario(trial.scenario, &error);
  if (!scenario) {
    trial.problem = "its scenario does not read: " + error;
    return trial;
  }
  try {
    const Recorded run = run_recorded(*scenario);
    if (const props::Violation* v = run.verdict.find(props::Property::MutualExclusion)) {
      trial.violated = true;
      trial.overlap = v->to - v->from;
    }
  } catch (const std::invalid_argument& rejected) {
    trial.problem = std::string("the simulator rejects its scenario: ") + rejected.what();
    return trial;
  }
  trial.broken = props::broken_words(*scenario, assumptions);
  return trial;
}

}  // namespace

std::vector<AssumptionTrial> try_redlock_assumptions() {
  const auto assumptions = props::parse_assumptions(kRedlockAssumptions);
  LOCKSIM_ASSERT(assumptions.has_value(), "the tour's Redlock assumptions read");
  std::vector<AssumptionTrial> trials;
  for (const Tried& t : kTried) trials.push_back(run_one(t, *assumptions));
  return trials;
}

}  // namespace locksim::cli
