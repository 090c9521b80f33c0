#include "locksim/props/defaults.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "locksim/lock/registry.hpp"

namespace locksim::props {

std::optional<Assumptions> parse_assumptions(std::string_view text, std::string* error) {
  Assumptions a;
  if (text.empty() || text == "none") return a;
  auto fail = [&](std::string message) -> std::optional<Assumptions> {
    if (error) *error = std::move(message);
    return std::nullopt;
  };
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string_view word =
        text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (word == "durable-redis") {
      a.durable_redis = true;
    } else if (word == "sane-redis-clock") {
      a.sane_redis_clock = true;
    } else if (word == "no-failover") {
      a.no_failover = true;
    } else if (word.starts_with("pause<=")) {
      Duration d{};
      std::string why;
      if (!sim::parse_duration(word.substr(7), d, &why)) return fail(fmt::format("'{}': {}", word, why));
      if (d < sim::milliseconds(1) || d > sim::seconds(3600))
        return fail(fmt::format("'{}': the longest pause must be 1ms to 1h", word));
      a.max_pause = d;
    } else {
      return fail(
          fmt::format("unknown assumption '{}' (known: durable-redis, sane-redis-clock, pause<=DURATION, "
                      "no-failover, none)",
                      word));
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return a;
}

std::vector<std::string> assumption_words(const Assumptions& a) {
  std::vector<std::string> out;
  if (a.durable_redis) out.push_back("durable-redis");
  if (a.sane_redis_clock) out.push_back("sane-redis-clock");
  if (a.max_pause) out.push_back("pause<=" + sim::format_duration(*a.max_pause));
  if (a.no_failover) out.push_back("no-failover");
  return out;
}

std::optional<std::string> breaks_assumptions(const Scenario& s, const Assumptions& a) {
  if (a.durable_redis && !s.persistent_redis) return "durable-redis: the scenario's Redis restarts without persistence";
  if (a.no_failover && s.replica) return "no-failover: the scenario has a replica that may be promoted";
  for (size_t n = 0; n < s.redis_drifts_ppm.size(); ++n)
    if (a.sane_redis_clock && std::abs(s.redis_drifts_ppm[n]) > kSaneRedisDriftPpm)
      return fmt::format("sane-redis-clock: {}'s clock drifts {:+} ppm (more than {})", lock::redis_node_name(s, n),
                         s.redis_drifts_ppm[n], kSaneRedisDriftPpm);
  for (const sim::Fault& f : s.faults.faults) {
    const bool on_client = client_index(f.node).has_value();
    if (a.sane_redis_clock && f.kind == sim::FaultKind::ClockJump && !on_client)
      return fmt::format("sane-redis-clock: '{}'", sim::to_string(f));
    if (a.max_pause && f.kind == sim::FaultKind::Pause && f.amount > *a.max_pause)
      return fmt::format("pause<={}: '{}'", sim::format_duration(*a.max_pause), sim::to_string(f));
  }
  for (const auto& c : s.workload.call_faults)
    if (a.max_pause && c.kind == lock::CallFault::Kind::Pause && c.pause > *a.max_pause)
      return fmt::format("pause<={}: a pause of {} before a call", sim::format_duration(*a.max_pause),
                         sim::format_duration(c.pause));
  return std::nullopt;
}

FaultModel default_model(std::string_view algorithm) {
  FaultModel m;
  m.base.algorithm = std::string(algorithm);
  m.kinds.assign(std::begin(kAllFaultFamilies), std::end(kAllFaultFamilies));
  if (algorithm == "redlock") m.base.masters = 3;  // designed for several independent masters
  m.failover_on_master_crash = m.base.masters == 1;
  if (const lock::Algorithm* a = lock::find_algorithm(algorithm)) {
    m.base.lock = a->defaults;  // a variant's own defaults; flags override them
    if (a->masters) m.base.masters = a->masters;  // the deployment a variant declares
    if (a->replica) m.base.replica = true;
    m.failover_on_master_crash = m.base.masters == 1 && !m.base.replica;
    // Nesting where reentrancy is part of the algorithm's story (F16), or declared by a variant.
    if (a->reentrant || a->failures.find("F16") != std::string_view::npos) m.nested = 1;
    // Redisson's lock(leaseTime): drawn for the built-ins that take it. A variant is
    // offered every parameter, but whether it reads this one is its own business:
    // drawing it would only mislabel a renewing variant's failures.
    m.explicit_lease_mode =
        a->failures != "user variant" &&
        std::find(a->params.begin(), a->params.end(), std::string_view("explicit-lease")) != a->params.end();
  }
  return m;
}

void assume(FaultModel& m, const Assumptions& a) {
  if (a.durable_redis) m.base.persistent_redis = true;
  if (a.sane_redis_clock) {
    m.redis_clock_jumps = false;
    std::erase(m.kinds, FaultFamily::RedisDrift);
  }
  if (a.max_pause) m.max_pause = *a.max_pause;
  if (a.no_failover) {
    m.failover_on_master_crash = false;
    m.base.replica = false;
    std::erase(m.kinds, FaultFamily::MasterCrash);
  }
}

}  // namespace locksim::props
