#include "locksim/props/limits.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace locksim::props {

namespace {

constexpr int64_t kSecond = 1'000'000'000;
constexpr int64_t kMaxRunSpan = 600 * kSecond;       // a horizon, and anything timed within a run
constexpr int64_t kMaxClockSpan = 86'400 * kSecond;  // clock offsets, jumps, lock parameters

}  // namespace

const std::vector<Limit>& limit_table() {
  static const std::vector<Limit> table = {
      {"clients", "clients", "--clients", 1, 26, false},
      {"iterations", "iterations", "--iterations", 1, 1000, false},
      {"nested", "nested", "--nested", 0, 10, false},
      {"masters", "masters", "--masters", 1, 9, false},
      {"horizon", "horizon", "--horizon", 1, kMaxRunSpan, true},
      {"work", "work", "--work-min/--work-max", 0, kMaxRunSpan, true},
      {"think", "think", "--think-min/--think-max", 0, kMaxRunSpan, true},
      {"spread", "spread", "--start-spread", 0, kMaxRunSpan, true},
      {"lag", "lag", "--lag", 0, kMaxRunSpan, true},
      {"failover", "failover", "--failover", 0, kMaxRunSpan, true},
      {"latency", "latency", "--latency", 0, kMaxRunSpan, true},
      {"spikes", "spikes", "--spikes", 0, kMaxRunSpan, true},
      {"slow", "slow", "--slow-work", 0, kMaxRunSpan, true},
      {"slow-iteration", "slow", "--slow-work ITERATION", 0, 999, false},
      {"call", "call", "--call-fault", 0, kMaxRunSpan, true},
      {"call-number", "call", "--call-fault N", 1, 1'000'000, false},
      {"clock", "clock", "--clock-offset", -kMaxClockSpan, kMaxClockSpan, true},
      {"drift", "clock", "--drift", -999'999, 1'000'000, false},
      {"faults", "faults", "--faults", 0, 1000, false},  // how many faults a plan may hold
      {"fault-time", "faults", "--faults @TIME", 0, kMaxRunSpan, true},
      {"fault-amount", "faults", "--faults DURATION", -kMaxClockSpan, kMaxClockSpan, true},
      {"lease", "lease", "--lease", 1'000'000, kMaxClockSpan, true},
      {"retry", "retry", "--retry", 1'000'000, kMaxClockSpan, true},
      {"retry-jitter", "retry-jitter", "--retry-jitter", 0, kMaxClockSpan, true},
      {"wait-limit", "wait-limit", "--wait-limit", 0, kMaxClockSpan, true},
      {"call-timeout", "call-timeout", "--call-timeout", 1'000'000, kMaxClockSpan, true},
      {"renew-interval", "renew-interval", "--renew-interval", 0, kMaxClockSpan, true},
      {"explicit-lease", "explicit-lease", "--explicit-lease", 0, kMaxClockSpan, true},
  };
  return table;
}

const Limit* find_limit(std::string_view key) {
  const auto& table = limit_table();
  auto it = std::find_if(table.begin(), table.end(), [&](const Limit& l) { return l.key == key; });
  return it == table.end() ? nullptr : &*it;
}

namespace {

class Checker {
 public:
  explicit Checker(bool as_flags) : as_flags_(as_flags) {}

  // Records the first value out of its bounds.
  void check(std::string_view key, int64_t value) {
    const Limit* limit = find_limit(key);
    if (error || !limit || (value >= limit->min && value <= limit->max)) return;
    const std::string name(as_flags_ ? limit->flag : limit->word);  // as the user wrote it
    if (limit->duration)
      error = fmt::format("{}: {} is out of range [{}, {}]", name, sim::format_duration({value}),
                          sim::format_duration({limit->min}), sim::format_duration({limit->max}));
    else
      error = fmt::format("{}: {} is out of range [{}, {}]", name, value, limit->min, limit->max);
  }
  void check(std::string_view key, sim::Duration d) { check(key, d.ns); }

  std::optional<std::string> error;

 private:
  bool as_flags_;
};

void check_workload(Checker& c, const lock::WorkloadParams& w) {
  c.check("clients", w.clients);
  c.check("iterations", w.iterations);
  c.check("nested", w.nested);
  for (auto d : {w.work_min, w.work_max}) c.check("work", d);
  for (auto d : {w.think_min, w.think_max}) c.check("think", d);
  c.check("spread", w.start_spread);
  for (auto d : w.clock_offsets) c.check("clock", d);
  for (auto ppm : w.drifts_ppm) c.check("drift", ppm);
  for (const auto& sw : w.slow_work) {
    c.check("slow-iteration", sw.iteration);
    c.check("slow", sw.work);
  }
  for (const auto& cf : w.call_faults) {
    c.check("call-number", cf.call);
    c.check("call", cf.pause);
  }
}

}  // namespace

std::optional<std::string> check_limit(std::string_view key, int64_t value, bool as_flags) {
  Checker c(as_flags);
  c.check(key, value);
  return c.error;
}

std::optional<std::string> check_limits(const Scenario& s, bool as_flags) {
  Checker c(as_flags);
  check_workload(c, s.workload);
  c.check("masters", s.masters);
  c.check("horizon", s.horizon);
  c.check("lag", s.replication_lag);
  c.check("failover", s.failover_after);
  for (auto d : {s.latency.base, s.latency.jitter}) c.check("latency", d);
  for (auto d : {s.latency.spike_scale, s.latency.spike_cap}) c.check("spikes", d);
  c.check("faults", static_cast<int64_t>(s.faults.faults.size()));
  for (const auto& f : s.faults.faults) {
    c.check("fault-time", f.at.ns);
    c.check("fault-amount", f.amount);
  }
  const lock::LockParams& p = s.lock;
  c.check("lease", p.lease);
  c.check("retry", p.retry);
  c.check("retry-jitter", p.retry_jitter);
  c.check("wait-limit", p.wait_limit);
  c.check("call-timeout", p.call_timeout);
  c.check("renew-interval", p.renew_interval);
  c.check("explicit-lease", p.explicit_lease);
  return c.error;
}

}  // namespace locksim::props
