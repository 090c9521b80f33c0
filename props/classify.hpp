#pragma once
// The classifier (classify.cpp): what made a violation possible, read from the
// run's history, fault plan and clocks. props::check fills each violation's
// cause, fault and explanation with it.
#include <string>

#include "locksim/lock/history.hpp"
#include "locksim/lock/simulation.hpp"
#include "locksim/props/property.hpp"

namespace locksim::props {

struct Explanation {
  Cause cause = Cause::Unknown;
  std::string fault;     // the fault that produced it, as the scenario writes it ("jump redis @119ms by +923ms"), or ""
  std::string sentence;  // the cause in the run's own terms: who, what, when, and the fault
};

Explanation classify(const lock::History& history, const lock::SimulationConfig& config, const Violation& v);

}  // namespace locksim::props
