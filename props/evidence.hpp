#pragma once
// Evidence for a result: which of a run's faults bit — struck something the lock
// uses while some client was acquiring, waiting for the lock, holding it, renewing
// it or releasing it (the intervals the history records) — and, over many runs,
// how often each kind bit in each phase and what that many biting runs prove: a
// failure that shows in at least p of the runs where faults bite would have been
// seen with 95 % probability, p = 1 - 0.05^(1/n) for n biting runs.
//
// What "uses" means, per kind (the history's calls and clock readings, touches.hpp):
//  - a crash, restart, pause, clock jump or drift of a server (Redis, the database):
//    the client in the phase calls that node at some time of the run (a database
//    lock's clients call no Redis node, so no Redis fault bites it);
//  - a cut: a call of the client on that link was in flight during the cut and the
//    phase (what a cut loses); a reset: the client calls that server (a reset ends the
//    connection's session — a transaction, a WATCH, a subscription — in flight or not);
//  - delay spikes: a message of one of the client's calls in flight in the phase was
//    held by a spike (the network reports the spike it drew with each call);
//  - a client clock's offset: the lock read that client's wall clock in the phase; a
//    jump of it: a read after the jump; its drift: a read of its wall or monotonic
//    clock (a lease, a validity, a wait limit timed on it). A lock that never reads
//    the client's clock (token-lua, set-nx-px: the lease lives in Redis) is not tested
//    by any of them — except drift, where a wait limit is timed on the monotonic clock;
//  - the client's own crash, pause, slow section and the faults aimed at its calls:
//    the phase they strike.
// A fault that strikes while nobody is in any phase (before the first acquire, after
// the last release, in think time) or that strikes nothing the lock uses tested nothing.
#include <array>
#include <cstdint>
#include <string_view>

#include "locksim/lock/history.hpp"
#include "locksim/props/fault_model.hpp"

namespace locksim::props {

enum class Phase : uint8_t { Acquiring, Waiting, Holding, Renewing, Releasing };
inline constexpr Phase kAllPhases[] = {Phase::Acquiring, Phase::Waiting, Phase::Holding, Phase::Renewing,
                                       Phase::Releasing};
inline constexpr size_t kPhaseCount = std::size(kAllPhases);
inline constexpr size_t kFaultFamilyCount = std::size(kAllFaultFamilies);
std::string_view to_string(Phase p);

// One run: per fault kind, whether the run drew it and the phases it struck (a bit per Phase).
struct RunEvidence {
  std::array<bool, kFaultFamilyCount> drawn{};
  std::array<uint8_t, kFaultFamilyCount> phases{};
  bool any_drawn() const;
  bool any_bit() const;
};
RunEvidence evidence_of(const Scenario& s, const lock::History& history, sim::Instant end);

// Many runs, summed (shards add up to the unsharded sum).
struct Evidence {
  uint64_t runs = 0;
  uint64_t runs_with_faults = 0;  // runs that drew some fault
  uint64_t runs_bitten = 0;       // runs in which some fault bit
  std::array<uint64_t, kFaultFamilyCount> drawn{}, bitten{};
  std::array<std::array<uint64_t, kPhaseCount>, kFaultFamilyCount> coverage{};  // [kind][phase]: runs
  void add(const RunEvidence& r);
  void add(const Evidence& e);
  bool operator==(const Evidence&) const = default;
};

// p = 1 - 0.05^(1/n): the smallest share of biting runs a failure must show in to be
// missed by all n with at most 5 % probability (1 when n = 0: nothing is bounded).
double detection_bound(uint64_t biting_runs);
// The fewest biting runs that bring the bound to `p` or below (59 for 5 %).
uint64_t biting_runs_for(double p);

}  // namespace locksim::props
