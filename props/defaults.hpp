#pragma once
// What `check ALGO` explores when told nothing else: the deployment the
// algorithm is designed for (redlock: three masters; the others: one Redis),
// every fault kind, and what the algorithm's documented use needs drawn —
// nested acquires where reentrancy is documented (F16), the explicit-lease
// mode where the algorithm has one (F15), a replica that takes over when a
// master dies (F17). (Two or three clients already show F20.) And the
// assumptions a user may state to narrow it (--assume).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/props/assumptions.hpp"
#include "locksim/props/fault_model.hpp"

namespace locksim::props {

FaultModel default_model(std::string_view algorithm);
// Puts the assumptions in force: they shape the faults drawn (FaultModel::assumed),
// and the runs' failures are split by them. A drawn crowd's or the base's work is
// kept within a work bound.
void assume(FaultModel& m, const Assumptions& a);

}  // namespace locksim::props
