#include "locksim/lock/schedule.hpp"

namespace locksim::lock {

ClientSchedule::ClientSchedule(uint64_t seed, uint32_t identity, uint32_t client, const WorkloadParams& workload)
    : streams_(sim::Rng(seed).stream(sim::stable_hash("schedule:") ^ sim::stable_hash(client_name(identity)))),
      client_(client),
      workload_(&workload) {}

// One stream per (kind, iteration): a draw never depends on how many came before it.
sim::Duration ClientSchedule::draw(std::string_view what, uint32_t iteration, sim::Duration lo,
                                   sim::Duration hi) const {
  sim::Rng rng = streams_.stream(sim::stable_hash(what) + iteration);
  return rng.uniform(lo, hi);
}

sim::Duration ClientSchedule::start() const {
  return draw("start", 0, sim::Duration{}, workload_->start_spread);
}

sim::Duration ClientSchedule::work(uint32_t iteration) const {
  for (const SlowWork& s : workload_->slow_work)
    if (s.client == client_ && s.iteration == iteration) return s.work;
  return draw("work", iteration, workload_->work_min, workload_->work_max);
}

sim::Duration ClientSchedule::think(uint32_t iteration) const {
  return draw("think", iteration, workload_->think_min, workload_->think_max);
}

}  // namespace locksim::lock
