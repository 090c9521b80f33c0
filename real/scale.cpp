#include "locksim/real/scale.hpp"

#include <cmath>

namespace locksim::real {

sim::Duration scale(sim::Duration d, double k) {
  return sim::Duration{static_cast<int64_t>(std::llround(static_cast<double>(d.ns) * k))};
}

lock::SimulationConfig scaled(const lock::SimulationConfig& config, double k) {
  lock::SimulationConfig s = config;
  auto stretch = [k](sim::Duration& d) { d = scale(d, k); };
  for (sim::Duration* d : {&s.lock.lease, &s.lock.retry, &s.lock.retry_jitter, &s.lock.wait_limit, &s.lock.call_timeout,
                           &s.lock.renew_interval, &s.lock.explicit_lease})
    stretch(*d);
  lock::WorkloadParams& w = s.workload;
  for (sim::Duration* d : {&w.work_min, &w.work_max, &w.think_min, &w.think_max, &w.start_spread}) stretch(*d);
  for (sim::Duration& d : w.clock_offsets) stretch(d);
  for (lock::SlowWork& sw : w.slow_work) stretch(sw.work);
  for (lock::CallFault& cf : w.call_faults) stretch(cf.pause);
  for (sim::Duration* d : {&s.latency.base, &s.latency.jitter, &s.latency.spike_scale, &s.latency.spike_cap})
    stretch(*d);
  for (sim::Fault& f : s.faults.faults) {
    f.at = sim::Instant{} + scale(f.at - sim::Instant{}, k);
    stretch(f.amount);
  }
  for (sim::Duration* d : {&s.horizon, &s.replication_lag, &s.failover_after}) stretch(*d);
  return s;
}

}  // namespace locksim::real
