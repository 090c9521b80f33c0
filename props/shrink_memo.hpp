#pragma once
// What each scenario tried while shrinking answered. Shrinking meets the same
// candidate more than once (rapidcheck's shrinks repeat themselves; dropping a
// fault kind can equal dropping its only fault), and a run's verdict is a function
// of its scenario, so a candidate met again is answered without simulating it.
// The caller still counts it against its budget: shrinking takes the same path
// and ends at the same counterexample as without the memo.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "locksim/props/explorer.hpp"

namespace locksim::props {

class ShrinkMemo {
 public:
  explicit ShrinkMemo(StillFails inner) : inner_(std::move(inner)) {}
  std::optional<Violation> operator()(const Scenario& candidate);
  size_t hits() const { return hits_; }

 private:
  StillFails inner_;
  // Keyed by a digest of the fields shrinking changes (cheap next to the scenario's text,
  // which cost more than a tenth of a replay); the scenario itself is compared too, so
  // two scenarios share an answer only when they are equal. Looked up, never iterated.
  std::unordered_map<uint64_t, std::vector<std::pair<Scenario, std::optional<Violation>>>> seen_;
  size_t hits_ = 0;
};

// `still_fails` behind a memo of its own.
StillFails memoized(StillFails still_fails);

// The violations of replays, shared by every failure one inventory shrinks. Two failures
// first seen in the same run (a mutual-exclusion violation and the fenced write it let
// through) shrink from the same scenario and replay many of the same candidates; each
// memo above is one failure's. A replay's violations are a function of its scenario and
// the check options, so an answer is the same whichever failure or thread computed it:
// the cache changes how often a scenario is simulated, never an answer. Safe to share
// between threads (a lookup holds a lock; a simulation does not). Bounded: it starts
// over when full.
class ReplayCache {
 public:
  explicit ReplayCache(CheckOptions check, size_t most = 2048) : check_(check), most_(most) {}
  // run_scenario(candidate, check).verdict.violations, simulated once.
  std::shared_ptr<const std::vector<Violation>> violations(const Scenario& candidate);
  size_t hits() const;

 private:
  using Entry = std::pair<Scenario, std::shared_ptr<const std::vector<Violation>>>;
  const CheckOptions check_;
  const size_t most_;
  mutable std::mutex lock_;
  std::unordered_map<uint64_t, std::vector<Entry>> seen_;  // by memo digest; looked up, never iterated
  size_t entries_ = 0;
  size_t hits_ = 0;
};

}  // namespace locksim::props
