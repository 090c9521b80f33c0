#include "locksim/props/search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "locksim/lock/params.hpp"
#include "locksim/lock/registry.hpp"
#include "locksim/props/limits.hpp"

namespace locksim::props {

namespace {

[[noreturn]] void refuse(std::string message) { throw std::invalid_argument(std::move(message)); }

}  // namespace

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
  auto assumed = parse_assumptions(o.assume, &error);
  if (!assumed) refuse("--assume: " + error);
  assume(m, *assumed);
  return m;
}

}  // namespace locksim::props
