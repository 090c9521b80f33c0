#pragma once
// The mechanisms the targeted inside search aims at. Some failures of a lock's own need one
// narrow thing to happen inside the assumptions: a pause that falls between the moment
// Redis grants the holder's SET and the moment its reply reaches the holder (so it enters
// after its lease), a resource write delayed in the network past the next holder's, a slow
// client clock that stretches work timed by it past the lease. Ordinary inside draws meet
// them once in thousands of runs, so whether such a failure was labelled the lock's own hung
// on the seed. For each such cause this table says how to turn a scenario drawn inside the
// assumptions into one aimed at the cause's mechanism, using only fault kinds the model
// draws, clamped into the assumptions (docs/failures.md, "Assumptions"). One table, keyed by
// the cause; nothing in it knows an algorithm or an example.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "locksim/lock/history.hpp"
#include "locksim/props/cause.hpp"
#include "locksim/props/fault_model.hpp"

namespace locksim::props {

struct MechanismAim {
  Cause cause;
  // What the aimed scenario adds, in words (docs/failures.md quotes these).
  std::string_view adds;
  // The fault kinds the aim adds: the model must draw every one of them.
  std::vector<FaultFamily> kinds;
  // Whether the aim reads the drawn scenario's own run (where its acquires were granted)
  // to place its fault: then the drawn scenario is run first, and checked too.
  bool probes = false;
};

// The aims, one per cause; the cause's aim, or null if the search does not aim at it.
const std::vector<MechanismAim>& mechanism_aims();
const MechanismAim* mechanism_aim(Cause cause);

// Whether the aim can strike inside the model's assumptions with the kinds the model draws
// (a pause of the whole lease under pause<=D with D below it cannot, nor a slow clock under
// sane-client-clock): a search aimed at it would spend its budget for nothing.
bool aimable(const MechanismAim& aim, const FaultModel& model);

// An acquire the drawn scenario's run made: the instant the store granted it (the ledger's
// grant of the holder's instance, or its acquire's last re-arm of it) and the instant the
// holder heard it had acquired.
struct GrantedAcquire {
  uint32_t client = 0;
  sim::Instant granted, acquired;
};
// The outermost acquires of a run, in order, with a gap between grant and reply to strike in.
std::vector<GrantedAcquire> granted_acquires(const lock::History& h);

// `drawn` aimed at the aim's mechanism, every choice from `key` (and, for an aim that probes,
// from `probe`: the history of drawn's run); nothing if there is nowhere to strike or the
// aimed scenario would break an assumption in force.
std::optional<Scenario> aimed_scenario(const MechanismAim& aim, const FaultModel& model, const Scenario& drawn,
                                       const lock::History* probe, uint64_t key);

}  // namespace locksim::props
