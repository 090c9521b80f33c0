#pragma once
// One client's timings — when it starts, how long each critical section works,
// how long it thinks after each iteration — drawn from streams of its own,
// keyed by its identity and the iteration. Nothing the lock does (its tokens,
// its retries, whether an acquire succeeded) and nothing another client does
// shifts them, so one scenario is one world under every algorithm: the
// reference lock replays exactly the schedule the lock under check ran.
#include <cstdint>
#include <string_view>

#include "locksim/lock/workload.hpp"
#include "locksim/sim/random.hpp"

namespace locksim::lock {

class ClientSchedule {
 public:
  // `identity`: whose streams the client draws (WorkloadParams::identities);
  // `client`: its place in this run, which slow sections name.
  ClientSchedule(uint64_t seed, uint32_t identity, uint32_t client, const WorkloadParams& workload);
  // The schedule keeps a pointer to the workload: a temporary would dangle (ASan found one in a test).
  ClientSchedule(uint64_t seed, uint32_t identity, uint32_t client, WorkloadParams&& workload) = delete;

  sim::Duration start() const;                     // in [0, start_spread]
  sim::Duration work(uint32_t iteration) const;    // a slow section's work where one is set
  sim::Duration think(uint32_t iteration) const;   // after the iteration, in [think_min, think_max]

 private:
  sim::Duration draw(std::string_view what, uint32_t iteration, sim::Duration lo, sim::Duration hi) const;

  sim::Rng streams_;
  uint32_t client_;
  const WorkloadParams* workload_;
};

}  // namespace locksim::lock
