#pragma once
// The catalogue of documented failures (docs/failures.md, F01..F23) as data: for
// each, the broken algorithm and the fault model that triggers it, the
// property it breaks (or the metric it costs), the most clients its
// documented schedule needs, and the algorithm that fixes it — checked under
// the same fault model.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/props/explorer.hpp"

namespace locksim::props {

enum class Expectation : uint8_t {
  Violated,          // the explorer finds a violation of `property`
  ViolatedYetHolds,  // ... while `also_holds` is never violated (F19)
  Survives,          // nothing violates `property` or `also_holds` in `survive_runs` runs
  Metric,            // a cost to measure: `metric` reaches `metric_at_least`
  NotModelled,       // needs a database in the simulated runs (F22): listed, never run
};
std::string_view to_string(Expectation e);

enum class MetricKind : uint8_t { None, ExpiryDrift, Unavailability, LongestWait };
std::string_view to_string(MetricKind m);
Duration metric_value(const Metrics& m, MetricKind kind);

// Written with designated initialisers: a field left out keeps its default.
struct CatalogueEntry {
  std::string id;       // "F07"
  std::string title;    // what goes wrong, in a few words
  std::string sources;  // keys of the posts that describe it (lock/sources.hpp); "-": beyond them
  Expectation expected = Expectation::Violated;
  Property property = Property::MutualExclusion;
  std::vector<Property> also_holds;
  MetricKind metric = MetricKind::None;
  Duration metric_at_least{};
  FaultModel model;                      // model.base.algorithm is the algorithm on trial
  uint32_t max_clients = 0;              // the shrunk counterexample needs no more clients than the documented schedule
  std::string fix;                       // the algorithm that fixes it ("" if none)
  std::string fix_params;                // scenario words applied to the fix's base (e.g. "explicit-lease=0s")
  std::optional<Property> fix_property;  // checked on the fix (default: property)
  std::vector<Property> fix_also_holds;  // also checked on the fix: a fix must not bring in another failure
  // A survivor's pre-fix version: the algorithm (with these words) whose
  // failure under the same faults the survivor avoids. Its failures are what
  // make the survival check bite.
  std::string baseline;
  std::string baseline_params;
  uint32_t survive_runs = 150;  // runs a survivor (or a fix) must pass
};

const std::vector<CatalogueEntry>& catalogue();
const CatalogueEntry* find_entry(std::string_view id);

// A survival or fix check bites when the pre-fix version fails, over the same
// drawn scenarios, in enough runs that a fix failing in this share of the biting
// runs would have shown with 95 % probability (props/evidence.hpp): 59 biting
// runs. It draws until then; below it the check proves little and counts as
// failed. (What share of all runs bite does not matter: the bound is over the
// biting runs.)
inline constexpr double kFixBound = 0.05;

struct EntryOutcome {
  const CatalogueEntry* entry = nullptr;
  bool as_expected = false;
  std::string outcome;  // one line: what was found
  uint32_t runs = 0;    // runs to the first violation (or all runs made)
  std::optional<Counterexample> counterexample;
  Metrics metrics;
  std::string fix_outcome;  // "" when the fix (or the survival) was not checked
  bool fix_as_expected = true;
  // The survival or fix check: runs made, runs in which the pre-fix version
  // fails (the fix's properties, same scenarios), and runs that count as held
  // (someone acquired and nothing was violated).
  uint32_t fix_runs = 0, fix_bites = 0, fix_held = 0;
  bool has_fix_check() const { return fix_runs > 0; }
  bool cause_found = false;  // a violation with the documented cause was found
  // Plain `check ALGO` (the default model, no tuning) on the same seed: the
  // first run that shows the entry's property with its documented cause.
  std::optional<uint32_t> generic_run;
  uint32_t generic_budget = 0;  // 0: not measured
  double generic_ms = 0;        // wall time to that run (or the budget)
};

struct EntryOptions {
  uint64_t seed = 1;
  uint32_t budget = 2000;  // most runs to look for a violation
  bool check_fix = true;
  double survive_scale = 1.0;   // scales survive_runs (a deeper run sets it above 1)
  uint32_t generic_budget = 0;  // runs of plain `check ALGO` to look for the entry in (0: do not)
};

EntryOutcome run_entry(const CatalogueEntry& entry, const EntryOptions& options = {});

// The fault model of an entry's fix: the same faults, the fixing algorithm.
FaultModel fix_model(const CatalogueEntry& entry);
// The fault model of the version a survival or fix check is compared with: the
// entry's own model for a fix, the baseline's for a survivor (none if absent).
std::optional<FaultModel> pre_fix_model(const CatalogueEntry& entry);

// The causes that docs/failures.md gives for an entry's failure (catalogue_causes.cpp):
// an entry is found only when a violation with one of them is.
const std::vector<Cause>& documented_causes(std::string_view id);
// The entry that documents a failure of scenario `s`'s algorithm (in its mode:
// an explicit lease is F15's), or nothing.
const CatalogueEntry* match_entry(const Scenario& s, Property p, Cause c);
// Looks for the entry with plain `check ALGO` (props/defaults.hpp): fills the generic_* fields.
void find_generically(const CatalogueEntry& entry, const EntryOptions& options, EntryOutcome& out);

}  // namespace locksim::props
