#pragma once
// rapidcheck support for the test kit: draw scenarios from a fault model
// inside your own rc::check properties (failures shrink to the fewest
// clients, faults and shortest times), run them, and read the verdict.
//
//   rc::check("my-lock keeps mutual exclusion under pauses", [] {
//     auto scenario = *locksim::testing::gen::scenario(locksim::testing::fault_model("my-lock", "pause,slow-work"));
//     auto result = locksim::testing::run(scenario);
//     RC_ASSERT(result.verdict.holds(locksim::props::Property::MutualExclusion));
//   });
//
// rapidcheck prints a failing scenario as its one-line text, which
// `locksim replay` takes as it is.
#include <rapidcheck.h>

#include <ostream>
#include <string>

#include "locksim/props/explorer.hpp"
#include "locksim/props/fault_model.hpp"
#include "locksim/props/scenario.hpp"

namespace locksim::testing {

// A fault model for an algorithm id (built-in or registered) and fault kinds
// as `locksim check --faults` takes them; throws std::invalid_argument.
props::FaultModel fault_model(const std::string& algorithm, const std::string& faults = "all");

// Runs one scenario in the simulator and checks every property.
props::RunResult run(const props::Scenario& scenario);

namespace gen {
inline rc::Gen<props::Scenario> scenario(const props::FaultModel& model) { return props::scenario_generator(model); }
}  // namespace gen

}  // namespace locksim::testing

namespace locksim::props {
// How rapidcheck shows a scenario in a counterexample: the replayable line.
inline void showValue(const Scenario& s, std::ostream& os) { os << to_string(s); }
}  // namespace locksim::props
