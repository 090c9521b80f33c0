// The workload a real client runs: the same loop as the simulator's
// (lock::Simulation::client_main) — acquire, enter, [nested acquires], work,
// [fenced write], leave, release, think — on a RealClient.
#include "locksim/lock/registry.hpp"
#include "locksim/real/client.hpp"
#include "locksim/real/run.hpp"

namespace locksim::real {

using lock::Step;

lock::Task<void> RealClient::main_task() {
  const lock::WorkloadParams& wl = run_.config().workload;
  std::unique_ptr<lock::Lock> lock = run_.algorithm().make(run_.config().lock);
  if (life_.iteration == 0 && life_.calls == 0 && wl.start_spread.ns > 0)
    co_await sleep(schedule_.start());
  while (life_.iteration < wl.iterations) {
    const uint32_t iteration = life_.iteration;
    record(Step::AcquireStart, 0);
    const bool held = co_await lock->acquire(*this);
    if (held) {
      record(Step::Acquired, lock->fence());
      co_await critical_section(*lock, iteration);
      record(Step::ReleaseStart, 0);
      const bool released = co_await lock->release(*this);
      record(Step::Released, released ? 1 : 0, 0);
    } else {
      record(Step::AcquireFailed, 0);
    }
    ++life_.iteration;
    co_await sleep(schedule_.think(iteration));
  }
}

lock::Task<void> RealClient::critical_section(lock::Lock& lock, uint32_t iteration) {
  const lock::WorkloadParams& wl = run_.config().workload;
  record(Step::Enter);
  uint32_t nested_held = 0;
  for (uint32_t depth = 1; depth <= wl.nested; ++depth) {
    record(Step::AcquireStart, depth);
    const bool held = co_await lock.acquire(*this);
    if (!held) {
      record(Step::AcquireFailed, depth);
      break;
    }
    record(Step::Acquired, lock.fence(), depth);
    ++nested_held;
  }
  sim::Duration work = schedule_.work(iteration);  // a slow section's where the scenario sets one
  if (wl.stop_when_lost) {
    const sim::Duration slice = run_.work_slice();
    while (work.ns > 0 && lock.still_held()) {
      const sim::Duration step = work < slice ? work : slice;
      co_await sleep(step);
      work -= step;
    }
  } else {
    co_await sleep(work);
  }
  if (wl.write_resource && (!wl.stop_when_lost || lock.still_held())) run_.resource_write(index_, lock.fence());
  for (uint32_t depth = nested_held; depth >= 1; --depth) {
    record(Step::ReleaseStart, depth);
    const bool released = co_await lock.release(*this);
    record(Step::Released, released ? 1 : 0, depth);
  }
  record(Step::Leave);
}

}  // namespace locksim::real
