#pragma once
// The failure inventory: every run of the budget is drawn, run and checked,
// and each violation is classified (property + cause). Each distinct failure
// is reported once: how many runs showed it, the first of them (a global run
// index, so shards merge), the catalogue entry it matches, its counterexample
// shrunk with the cause kept, the fault kinds that counterexample needs, and
// whether it is inherent to the deployment — the best-known lock for that
// deployment (watchdog on one Redis or with a replica, redlock on several
// masters) fails the same scenario the same way.
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "locksim/props/explorer.hpp"

namespace locksim::props {

struct Failure {
  Property property = Property::MutualExclusion;
  Cause cause = Cause::Unknown;
  uint32_t runs = 0;       // runs that showed it
  uint32_t first_run = 0;  // global index of the first
  Counterexample example;  // from the first run, shrunk keeping property and cause
  std::vector<FaultFamily> needs;
  bool inherent = false;
  std::string catalogue;  // "F07", or "" when no entry documents it
};

struct InventoryOptions {
  uint64_t seed = 1;
  uint32_t first_run = 0;  // runs first_run, first_run + stride, ... (a shard)
  uint32_t runs = 1000;
  uint32_t stride = 1;
  std::optional<Property> target;  // only this property (any if none)
  bool shrink = true;
  uint32_t max_shrink_runs = 150;  // per failure
  double time_limit_s = 0;         // stop drawing after this much wall time (0: the whole budget)
  // Set from outside (Ctrl-C): stop drawing, as at the time limit; the inventory is then partial.
  const std::atomic<bool>* interrupted = nullptr;
  CheckOptions check;
  std::function<void(uint32_t done)> progress;  // from one thread at a time
};

struct Inventory {
  uint32_t runs = 0;              // runs made
  bool partial = false;           // interrupted before the budget was spent (InventoryOptions::interrupted)
  std::vector<Failure> failures;  // the algorithm's own first, then the inherent ones; each by first run
  Metrics worst;                  // the largest of each metric over all runs
};

// The same answer for any number of jobs (without a time limit).
Inventory take_inventory(const FaultModel& model, const InventoryOptions& options, unsigned jobs = 1);

// The best-known algorithm for the deployment of `s`, and `s` with it.
std::string reference_algorithm(const Scenario& s);
Scenario with_reference(const Scenario& s);
// Whether the reference fails `s` with the same property and cause.
bool inherent_in(const Scenario& s, Property p, Cause c, const CheckOptions& check = {});

}  // namespace locksim::props
