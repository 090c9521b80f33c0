#pragma once
// --time-scale K: every duration of a scenario (leases, retries, timeouts,
// work, think time, faults' instants and lengths, latency, replication lag,
// failover delay, horizon) stretched K times, so that scheduling noise on a
// loaded machine stays small against the windows that matter. Clock drift is
// a rate and stays as it is.
#include "locksim/lock/simulation.hpp"

namespace locksim::real {

sim::Duration scale(sim::Duration d, double k);
lock::SimulationConfig scaled(const lock::SimulationConfig& config, double k);

}  // namespace locksim::real
