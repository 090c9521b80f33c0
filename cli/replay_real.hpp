#pragma once
// locksim replay SCENARIO --real: the scenario simulated, then run against
// real redis-server processes (real/), checked by the same checkers and
// compared: "confirmed: ... (as simulated)" or "not reproduced in N attempts".
#include "locksim/cli/commands.hpp"
#include "locksim/props/scenario.hpp"

namespace locksim::cli {

int cmd_replay_real(const props::Scenario& scenario, const ReplayOptions& options);

}  // namespace locksim::cli
