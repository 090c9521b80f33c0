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

#include "locksim/props/cause_proof.hpp"
#include "locksim/props/explorer.hpp"

namespace locksim::props {

struct Failure {
  Property property = Property::MutualExclusion;
  Cause cause = Cause::Unknown;
  uint32_t runs = 0;       // runs that showed it
  uint32_t first_run = 0;  // global index of the first
  std::optional<uint32_t> first_inside_run;  // the first that stayed inside the assumptions (its example's run)
  // Found only outside the assumptions, but its first run, replayed with each assumption
  // made to hold (held_inside), fails the same way: the lock's own, proven by replay; its
  // example is shrunk from that replay.
  bool moved_inside = false;
  // Found only outside, its first run's replay inside did not fail, so the targeted inside
  // search (props/inside_search.hpp) looked for it: how many runs it made, and whether one
  // failed the same way (then moved_inside, and the example comes from that search run).
  uint32_t inside_search_runs = 0;
  bool found_by_search = false;
  Counterexample example;  // from the first run, shrunk keeping property and cause
  std::vector<FaultFamily> needs;
  // The example's elements, each necessary (removing it makes the failure go, by replay),
  // clients aside: "'pause A @1s for 800ms'", "the replica", ...
  std::vector<std::string> necessary;
  // How its cause was proven: each necessary element replayed away (props/cause_proof.hpp).
  // A re-labelled failure's cause is the proof's, and the classifier's is proof.classified.
  CauseProof proof;
  // The assumptions in force that its example's faults break, one line each: empty for
  // a failure of the lock's own, else what the deployment must rule out.
  std::vector<std::string> breaks;
  // Extra information: the built-in counterpart for the deployment (never the algorithm
  // itself) fails the same scenario, on the same schedule, the same way.
  bool inherent = false;
  // Of a property the algorithm claims (props/claims.hpp): only then can it be the lock's own.
  bool claimed = true;
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
  // Runs the targeted inside search (props/inside_search.hpp) may make for the failures
  // met only outside the assumptions. None: inside_search_budget of the runs made. A sharded sweep
  // gives every shard the whole sweep's budget, so that each shard searches alike (check does).
  std::optional<uint32_t> inside_search_runs;
  // The properties whose failures are the lock's own; none: the algorithm's claims
  // (claimed_properties). The target, when there is one, is claimed too: asked for by name.
  std::optional<std::vector<Property>> claims;
  std::function<void(uint32_t done)> progress;  // from one thread at a time
};

// The failures a proof re-labelled onto another's property and cause are folded into it
// (fold_relabelled), except in a shard (stride > 1): which way a bucket goes is its first
// run's, so merge folds them once it knows which shard met that run (cli/merge.cpp).
struct Inventory {
  uint32_t runs = 0;              // runs made
  bool partial = false;           // interrupted before the budget was spent (InventoryOptions::interrupted)
  // The algorithm's own (claimed, under the assumptions) first, then those of unclaimed
  // properties under the assumptions, then those outside; each by first run.
  std::vector<Failure> failures;
  std::vector<Property> claims;   // in force (InventoryOptions::claims resolved)
  Metrics worst;                  // the largest of each metric over all runs
  // Over the runs that stayed inside the assumptions in force (the runs that test
  // the lock itself): which faults bit, in which phases, and so what a clean result proves.
  Evidence evidence;
  uint32_t runs_outside = 0;  // runs whose faults broke some assumption
};

// The same answer for any number of jobs (without a time limit).
Inventory take_inventory(const FaultModel& model, const InventoryOptions& options, unsigned jobs = 1);

// Whether a failure needs a fault outside the assumptions in force.
inline bool outside_assumptions(const Failure& f) { return !f.breaks.empty(); }
// Whether it is the lock's own: of a claimed property, inside the assumptions. Only these fail `check`.
inline bool own_failure(const Failure& f) { return f.claimed && !outside_assumptions(f); }
// Inside the assumptions but of a property the lock does not claim: listed, not counted.
inline bool unclaimed_failure(const Failure& f) { return !f.claimed && !outside_assumptions(f); }
// Whether a's example is preferred to b's when two failures fold: one from a run inside
// the assumptions (the earliest such), else the earliest run's.
bool example_preferred(const Failure& a, const Failure& b);
// Failures of the same property and cause (a proof re-labelled one onto another's) made
// one: runs summed, the lowest first run, the preferred example with what it shows.
// The others keep their order.
void fold_relabelled(std::vector<Failure>& failures);
// The claims in force for `options`: its own, else the algorithm's; with the target.
std::vector<Property> claims_in_force(const FaultModel& model, const InventoryOptions& options);

// The best-known algorithm for the deployment of `s`, and `s` with it.
std::string reference_algorithm(const Scenario& s);
Scenario with_reference(const Scenario& s);
// Whether the reference fails `s` with the same property and cause (never, when the
// reference is the scenario's own algorithm).
bool inherent_in(const Scenario& s, Property p, Cause c, const CheckOptions& check = {});

}  // namespace locksim::props
