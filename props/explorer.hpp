#pragma once
// The explorer: runs many scenarios drawn from a fault model, stops at the
// first violation of the property it looks for, and shrinks that scenario to
// a minimal one that still violates it. Run i draws from its own rapidcheck
// random state, derived from (seed, i): any run can be re-drawn alone, which
// is what makes --jobs and --shard give the same answers as one job.
#include <functional>
#include <optional>

#include "locksim/props/check.hpp"
#include "locksim/props/evidence.hpp"
#include "locksim/props/fault_model.hpp"
#include "locksim/props/scenario.hpp"

namespace locksim::props {

struct Assumptions;

struct RunResult {
  Verdict verdict;  // each violation with its classified cause
  uint64_t trace_hash = 0;
  uint64_t events = 0;
  RunEvidence evidence;  // which of its faults bit, in which phases
};

// One scenario, run and checked.
RunResult run_scenario(const Scenario& s, const CheckOptions& options = {});
// The same, handing the run's history to `read` before it goes (the targeted inside search
// reads where a run's acquires were granted: props/mechanism_aims.hpp).
RunResult run_scenario(const Scenario& s, const CheckOptions& options,
                       const std::function<void(const lock::History&)>& read);

struct ExploreOptions {
  uint64_t seed = 1;
  uint32_t first_run = 0;  // runs [first_run, first_run + runs) of this seed's sequence
  uint32_t runs = 1000;
  uint32_t stride = 1;  // with --shard I/N: every Nth run
  // The property looked for; any property if none.
  std::optional<Property> target;
  // Without a target, only violations of these count (any if empty): check --first
  // looks for the lock's claimed properties. A variant's own error always counts.
  std::vector<Property> properties;
  // Only runs that keep these assumptions count, and shrinking keeps them (check --first
  // stops at the lock's own failures, as the inventory's exit status does); any run if null.
  const Assumptions* inside = nullptr;
  // Only a violation with one of these classified causes counts (any if empty).
  std::vector<Cause> causes;
  bool stop_at_violation = true;  // false: run them all (to measure metrics)
  bool shrink = true;
  uint32_t max_shrink_runs = 3000;
  CheckOptions check;
  std::function<void(uint32_t done)> progress;  // called after each run
};

struct Counterexample {
  Scenario original, shrunk;
  Violation violation;  // of the shrunk scenario (with its cause)
  uint32_t run = 0;     // index of the run that found it
  uint32_t shrink_runs = 0;
};

struct ExploreResult {
  std::optional<Counterexample> found;
  uint32_t runs = 0;  // scenarios run before (and including) the finding
  Metrics worst;      // the largest of each metric over the runs (empty once something is found,
                      // so that it does not depend on how runs were split among jobs)
  uint32_t violations_of_other_properties = 0;  // when nothing was found
};

// The same scenario without client k: its faults go, later clients move up a name.
Scenario remove_client(const Scenario& s, uint32_t k);

// Whether a candidate scenario still shows the failure being shrunk: that
// failure's violation, or nothing.
using StillFails = std::function<std::optional<Violation>(const Scenario&)>;

// One element of a scenario — a fault (a crash with its restart), a slow section, a
// call fault, a clock error, the delay spikes, the replica, the nested acquire, the
// explicit lease, a client — and the scenario without it.
// What an element is, told apart where mechanisms differ (a Redis clock jump from a
// client's, a Redis crash that is restarted from one that is not): what a cause's
// account names (props/cause_proof.hpp).
enum class ElementKind : uint8_t {
  ClientCrash, ClientRestart, Pause, SlowWork, DelaySpikes, Cut, Reset,
  ClientClockOffset, ClientClockDrift, ClientClockJump, RedisClockJump, RedisDrift,
  RedisRestart,  // a Redis crash with its restart, or a restart alone
  MasterCrash,   // a Redis crash it never comes back from (with a replica: the failover)
  CrashAtCall, PauseAtCall, LostAtCall, DelayAtCall,
  Replica, Nested, ExplicitLease, Persistence, Client,
};
struct Element {
  std::string what;  // "'pause A @1s for 800ms'", "client B", "the replica", ...
  Scenario without;
  ElementKind kind = ElementKind::Client;
};
std::vector<Element> elements_of(const Scenario& s);
// The scenario without the crashes of nodes already down (crashed, not restarted since):
// the simulator ignores such a crash, so it is no fault of the example, and the
// shrinker must not take it for one (removing it with the restart after it, which
// undoes the earlier crash, changes the schedule, and the replay keeps it).
Scenario without_idle_crashes(const Scenario& s);
// Removes elements while the scenario still fails, until none can go (1-minimal: each
// remaining element is necessary, as a replay without it shows). No budget: the passes
// are bounded by the number of elements. An element that only timed the faults goes with
// them moved (props/shrink_retime.hpp). Counts its runs into `found`, if given.
Scenario one_minimal(const Scenario& s, const StillFails& still_fails, Counterexample* found = nullptr);

// Where a drawn scenario comes from: rapidcheck's random state, the size it draws at,
// and whether it is drawn wholly inside the model's assumptions. Run i of a seed's
// sequence is one (sequence_draw); the targeted inside search (props/inside_search.hpp)
// draws others, from streams of its own.
struct DrawSource {
  uint64_t random_key = 0;
  int size = 100;
  bool inside = false;
};
DrawSource sequence_draw(const FaultModel& model, uint64_t seed, uint32_t run);
// The size run i of a sequence draws at: small scenarios first.
int draw_size(uint32_t run);

// The scenario of run i for this model and seed.
Scenario draw(const FaultModel& model, uint64_t seed, uint32_t run);
Scenario draw(const FaultModel& model, const DrawSource& from);

// Still fails = violates `property` (with one of `causes`, if any are given).
// With `replays`, candidates are simulated through that cache (shrink_memo.hpp), which must
// have been made for the same check options.
class ReplayCache;
StillFails fails_with(Property property, std::vector<Cause> causes, const CheckOptions& check,
                      ReplayCache* replays = nullptr);
// Shrinks run `run` of (model, seed), which fails as `found` says, to a
// minimal scenario that still fails: rapidcheck's shrinks first, then
// dropping clients, faults (a crash with its restart), slow work, clock
// errors, iterations. At most `budget` candidate runs.
// Only the second stage: drops clients, faults, slow work, clock errors and
// iterations from `s` while it still fails.
Scenario simplified(const Scenario& s, const StillFails& still_fails, uint32_t budget);
Counterexample shrink_run(const FaultModel& model, uint64_t seed, uint32_t run, const Violation& found,
                          const StillFails& still_fails, uint32_t budget);
// The same for a scenario drawn from `from`; `run` only labels the counterexample.
Counterexample shrink_drawn(const FaultModel& model, const DrawSource& from, uint32_t run, const Violation& found,
                            const StillFails& still_fails, uint32_t budget);
// The same for a scenario not drawn from a source (the targeted inside search's aimed
// scenarios): shrink_drawn's second stage, then 1-minimal. `run` only labels it.
Counterexample shrink_scenario(const Scenario& s, uint32_t run, const Violation& found, const StillFails& still_fails,
                               uint32_t budget);
ExploreResult explore(const FaultModel& model, const ExploreOptions& options);

// The same exploration on `jobs` threads, one simulation per thread at a
// time. The answer is the same as with one job: each thread takes every
// jobs-th run in order and stops at its first finding; the finding with the
// lowest run index wins and is shrunk on the calling thread. `progress` is
// called from one thread at a time.
ExploreResult explore_parallel(const FaultModel& model, const ExploreOptions& options, unsigned jobs);

}  // namespace locksim::props
