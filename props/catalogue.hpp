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

#include "props/explorer.hpp"

namespace locksim::props {

enum class Expectation : uint8_t {
  Violated,          // the explorer finds a violation of `property`
  ViolatedYetHolds,  // ... while `also_holds` is never violated (F19)
  Survives,          // nothing violates `property` or `also_holds` in `survive_runs` runs
  Metric,            // a cost to measure: `metric` reaches `metric_at_least`
  NotModelled,       // needs a database (F22): not in the simulator
};
std::string_view to_string(Expectation e);

enum class MetricKind : uint8_t { None, ExpiryDrift, Unavailability, LongestWait };
std::string_view to_string(MetricKind m);
Duration metric_value(const Metrics& m, MetricKind kind);

struct CatalogueEntry {
  std::string id;            // "F07"
  std::string title;         // what goes wrong, in a few words
  std::string seeds;         // source keys of the posts that describe it (lock/sources.hpp)
  Expectation expected = Expectation::Violated;
  Property property = Property::MutualExclusion;
  std::vector<Property> also_holds;
  MetricKind metric = MetricKind::None;
  Duration metric_at_least{};
  FaultModel model;          // model.base.algorithm is the algorithm on trial
  uint32_t max_clients = 0;  // the shrunk counterexample needs no more clients than the documented schedule
  std::string fix;           // the algorithm that fixes it ("" if none)
  std::string fix_params;    // scenario words applied to the fix's base (e.g. "explicit-lease=0s")
  std::optional<Property> fix_property;  // checked on the fix (default: property)
  uint32_t survive_runs = 150;           // runs a survivor (or a fix) must pass
};

const std::vector<CatalogueEntry>& catalogue();
const CatalogueEntry* find_entry(std::string_view id);

struct EntryOutcome {
  const CatalogueEntry* entry = nullptr;
  bool as_expected = false;
  std::string outcome;   // one line: what was found
  uint32_t runs = 0;     // runs to the first violation (or all runs made)
  std::optional<Counterexample> counterexample;
  Metrics metrics;
  std::string fix_outcome;  // "" when the fix was not checked
  bool fix_as_expected = true;
};

struct EntryOptions {
  uint64_t seed = 1;
  uint32_t budget = 2000;   // most runs to look for a violation
  bool check_fix = true;
  double survive_scale = 1.0;  // scales survive_runs (a deeper run sets it above 1)
};

EntryOutcome run_entry(const CatalogueEntry& entry, const EntryOptions& options = {});

// The fault model of an entry's fix: the same faults, the fixing algorithm.
FaultModel fix_model(const CatalogueEntry& entry);

}  // namespace locksim::props
