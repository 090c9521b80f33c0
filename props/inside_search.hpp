#pragma once
// The targeted inside search. A failure (property, cause) that check met only in runs
// beyond the assumptions in force may still be the lock's own: the half of the budget
// drawn inside them may just have missed it (a rare failure shows in a few runs of
// thousands, so one seed meets it inside and the next does not). For such failures check
// draws extra runs wholly inside the assumptions, from a random stream derived from the
// seed and the algorithm alone — never from the shard, a run index or an example — and
// checks each run for every failure still sought, until each is found or the budget is
// spent. A failure's answer is the first search run that fails its way: it depends on
// nothing but (seed, algorithm, property, cause) and the budget, not on which other
// failures were sought. So every shard that meets a failure only outside finds the same
// answer, and `merge` of shards still equals the unsharded check (docs/failures.md,
// "Own failures and failures outside the assumptions"). One stream for all the failures
// sought: each search run is drawn and simulated once, whatever their number.
//
// A failure whose mechanism the drawn runs rarely meet (props/mechanism_aims.hpp) is then
// sought by runs aimed at that mechanism: scenarios drawn inside the assumptions from a
// stream of (seed, algorithm, cause) alone, each turned toward the cause's mechanism (a
// pause placed between the grant of an acquire and its reply, long delay spikes, a slow
// client clock under a long section), clamped back inside the assumptions. Its answer, too,
// is the first aimed run that fails its way, the same in every shard.
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "locksim/props/explorer.hpp"

namespace locksim::props {

// Search runs, for a check of `check_runs` runs: one for every ten, at least
// kMinInsideSearchRuns and at most kMaxInsideSearchRuns; none for a check without runs.
// (A tenth costs a check about a tenth more time when some failure is outside; a fifth
// found one more of the sixteen seed-dependent failures of the audit, for twice that.)
inline constexpr uint32_t kMinInsideSearchRuns = 50;
inline constexpr uint32_t kMaxInsideSearchRuns = 2000;
uint32_t inside_search_budget(uint32_t check_runs);

// Items of the search aimed at one cause's mechanism, for a search budget: one for every
// five search runs, within these bounds. (An aim that probes runs two scenarios an item.)
inline constexpr uint32_t kMinAimedSearchItems = 5;
inline constexpr uint32_t kMaxAimedSearchItems = 400;
uint32_t aimed_search_items(uint32_t budget);

// Search run i: drawn wholly inside the model's assumptions, at full size, from the
// stream of (seed, algorithm).
DrawSource inside_search_draw(const FaultModel& model, uint64_t seed, uint32_t i);
// Item i of the search aimed at `cause`: drawn wholly inside, from the stream of (seed, algorithm, cause).
DrawSource aimed_search_draw(const FaultModel& model, uint64_t seed, Cause cause, uint32_t i);

// `fails`, restricted to scenarios inside the assumptions `assumed`.
StillFails inside_only(StillFails fails, const Assumptions& assumed);

struct InsideSearchOptions {
  uint64_t seed = 1;
  uint32_t budget = 0;  // search runs at most
  bool shrink = true;
  uint32_t max_shrink_runs = 150;
  CheckOptions check;
};

struct InsideSearch {
  // Search runs up to and including the one that found it (the drawn runs' budget, then the
  // aimed runs); all of them if none did.
  uint32_t runs = 0;
  bool aimed = false;  // found by a run aimed at its cause's mechanism
  // The first search run that failed the same way (`run` is its index in the search),
  // shrunk keeping the property, the cause and every assumption.
  std::optional<Counterexample> found;
};

using FailureKey = std::pair<Property, Cause>;
// One answer per failure sought, in order. Nothing is searched without assumptions
// (every run is inside them). The same answers on any number of jobs.
std::vector<InsideSearch> search_inside(const FaultModel& model, const std::vector<FailureKey>& sought,
                                        const InsideSearchOptions& o, unsigned jobs = 1);

}  // namespace locksim::props
