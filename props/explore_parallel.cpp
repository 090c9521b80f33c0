// Parallelism across simulations only: each simulation still runs on one
// thread, and results are merged in run order, so --jobs never changes them.
#include <algorithm>
#include <mutex>

#include "locksim/base/parallel.hpp"
#include "locksim/props/explorer.hpp"

namespace locksim::props {

ExploreResult explore_parallel(const FaultModel& model, const ExploreOptions& options, unsigned jobs) {
  if (jobs <= 1 || options.runs <= 1 || !options.stop_at_violation) return explore(model, options);
  jobs = std::min<unsigned>(jobs, options.runs);
  std::mutex lock;
  uint32_t done = 0;
  std::vector<ExploreResult> parts(jobs);
  // Threads live outside any simulation: each one runs whole simulations,
  // one at a time, and the results are merged below in run order.
  base::run_on_threads(jobs, [&](unsigned t) {
    ExploreOptions mine = options;
    mine.first_run = options.first_run + t * options.stride;
    mine.stride = options.stride * jobs;
    mine.runs = (options.runs - t + jobs - 1) / jobs;
    mine.shrink = false;  // only the winner is shrunk, below
    mine.progress = [&](uint32_t) {
      std::lock_guard<std::mutex> guard(lock);
      ++done;
      if (options.progress) options.progress(done);
    };
    parts[t] = explore(model, mine);
  });

  // The first finding in run order; every run before it was checked by some thread.
  const ExploreResult* first = nullptr;
  for (const auto& p : parts)
    if (p.found && (!first || p.found->run < first->found->run)) first = &p;
  ExploreResult result;
  for (const auto& p : parts) {
    result.worst.expiry_drift = std::max(result.worst.expiry_drift, p.worst.expiry_drift);
    result.worst.unavailability = std::max(result.worst.unavailability, p.worst.unavailability);
    result.worst.longest_wait = std::max(result.worst.longest_wait, p.worst.longest_wait);
    result.worst.max_overtakes = std::max(result.worst.max_overtakes, p.worst.max_overtakes);
    result.worst.acquisitions += p.worst.acquisitions;
    result.worst.held_writes += p.worst.held_writes;
    result.worst.nested_acquisitions += p.worst.nested_acquisitions;
  }
  if (!first) {
    result.runs = options.runs;
    for (const auto& p : parts) result.violations_of_other_properties += p.violations_of_other_properties;
    return result;
  }
  // As with one job: no metrics once something is found (violations_of_other_properties
  // stays 0 here, since which runs came before the finding differs per thread).
  result.worst = Metrics{};
  // Re-run the winner alone with shrinking: identical to what one job does.
  ExploreOptions again = options;
  const uint32_t index = (first->found->run - options.first_run) / options.stride;
  again.first_run = first->found->run;
  again.runs = 1;
  again.progress = nullptr;
  result.found = explore(model, again).found;
  result.runs = index + 1;
  return result;
}

}  // namespace locksim::props
