#include "locksim/props/defaults.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "locksim/lock/registry.hpp"

namespace locksim::props {

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
  m.assumed = a;
  // A deployment with a replica is one the user asked for: its failover is in scope.
  if (m.base.replica) m.assumed.no_failover = false;
}

}  // namespace locksim::props
