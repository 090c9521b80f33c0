#include "locksim/props/search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "locksim/lock/params.hpp"
#include "locksim/lock/registry.hpp"
#include "locksim/props/limits.hpp"

namespace locksim::props {

namespace {

[[noreturn]] void refuse(std::string message) { throw std::invalid_argument(std::move(message)); }

sim::Duration duration_of(std::string_view text, const char* flag) {
  sim::Duration d;
  std::string error;
  if (!sim::parse_duration(text, d, &error)) refuse(fmt::format("{}: {}", flag, error));
  return d;
}

// "20ms" (pinned) or "1ms..100ms" (drawn from the range), within [lowest, 1h].
std::pair<sim::Duration, sim::Duration> duration_range(const std::string& text, const char* flag, sim::Duration lowest) {
  const size_t dots = text.find("..");
  const sim::Duration lo = duration_of(std::string_view(text).substr(0, dots), flag);
  const sim::Duration hi = dots == std::string::npos ? lo : duration_of(std::string_view(text).substr(dots + 2), flag);
  if (lo < lowest || hi > sim::seconds(3600) || hi < lo)
    refuse(fmt::format("{} '{}': expected a duration or MIN..MAX from {} to 1h, MIN <= MAX", flag, text,
                       sim::format_duration(lowest)));
  return {lo, hi};
}

// The replica's lag and the failover's timing: drawn whenever a replica is in play.
void set_failover_timing(const SearchSettings& o, FaultModel& m) {
  if ((!o.lag.empty() || !o.failover.empty()) && m.base.masters > 1)
    refuse("--lag and --failover shape a replica's failover: they go with a single master");
  const sim::Duration lease = std::max(m.base.lock.lease, sim::milliseconds(50));
  std::tie(m.lag_min, m.lag_max) = o.lag.empty() ? std::pair{sim::milliseconds(1), sim::milliseconds(100)}
                                                 : duration_range(o.lag, "--lag", sim::Duration{});
  std::tie(m.failover_min, m.failover_max) = o.failover.empty()
                                                 ? std::pair{sim::milliseconds(50), lease}
                                                 : duration_range(o.failover, "--failover", sim::milliseconds(1));
}

}  // namespace

Assumptions assumptions_in_force(const std::string& algorithm, const std::string& assume, uint32_t masters) {
  std::string error;
  auto a = parse_assumptions(assume, &error);
  if (!a) refuse("--assume: " + error);
  if (assume == "none") return *a;
  return combined(default_assumptions(algorithm, masters), *a);
}

FaultModel search_model(const SearchSettings& o) {
  if (!lock::find_algorithm(o.algorithm)) refuse(fmt::format("unknown algorithm '{}'", o.algorithm));
  // The bounds the flags have (the program's parser checks them before this).
  for (auto [key, value] : {std::pair<const char*, uint32_t>{"clients", o.clients},
                            {"clients", o.clients_max},
                            {"iterations", o.iterations},
                            {"masters", o.masters},
                            {"nested", o.nested}})
    if (value)
      if (auto why = check_limit(key, value, true)) refuse(*why);
  FaultModel m = default_model(o.algorithm);
  if (o.replica && o.masters > 1) refuse("--replica goes with a single master");
  if (o.masters) m.base.masters = o.masters;
  if (o.replica) m.base.replica = true;
  m.failover_on_master_crash = m.base.masters == 1 && !m.base.replica;
  for (const auto& [name, value] : o.lock_params) {
    const lock::ParamInfo* info = lock::find_lock_param(name);
    if (!info) refuse(fmt::format("unknown lock parameter '{}'", name));
    if (auto error = info->set(m.base.lock, value)) refuse(fmt::format("--{}: {}", name, *error));
    if (name == "explicit-lease") m.explicit_lease_mode = false;  // the user chose the mode
  }
  std::string error;
  auto kinds = parse_fault_kinds(o.faults, &error);
  if (!kinds) refuse("--faults: " + error);
  m.kinds = *kinds;
  m.swarm = true;
  if (o.clients) m.min_clients = m.max_clients = o.clients;
  if (o.clients_max) {
    if (o.clients && o.clients_max < o.clients)
      refuse(fmt::format("--clients-max {}: less than --clients {}", o.clients_max, o.clients));
    m.max_clients = o.clients_max;
    m.min_clients = std::min(m.min_clients, m.max_clients);
  }
  // The user's numbers of clients and iterations are not overridden by a drawn crowd.
  if (o.clients || o.clients_max || o.iterations) m.contention = false;
  if (o.iterations) m.max_iterations = o.iterations;
  if (o.nested) m.nested = o.nested;
  set_failover_timing(o, m);
  assume(m, assumptions_in_force(o.algorithm, o.assume, m.base.masters));
  return m;
}

}  // namespace locksim::props
