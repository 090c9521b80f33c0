#pragma once
// How check shows its failure inventory: as text (the first failure drawn as
// a timeline, then every distinct failure with its cause, counts, catalogue
// entry, needs and replay line; the algorithm's own before the inherent
// ones) or as one JSON object that shards' outputs can be merged from.
#include <optional>
#include <string>

#include "locksim/cli/commands.hpp"
#include "locksim/cli/options.hpp"
#include "locksim/props/defaults.hpp"
#include "locksim/props/inventory.hpp"

namespace locksim::cli {

struct InventoryContext {
  std::string algorithm;
  uint64_t seed = 1;
  props::Assumptions assumptions;
  const props::FaultModel& model;
  uint32_t budget = 0;  // --runs over every shard
  Shard shard;          // the slice this process ran
};

// "one Redis", "3 independent masters", "a master with an asynchronous replica".
std::string deployment_text(const props::Scenario& s);
// "nothing (--assume to state some)" or "durable-redis, pause<=500ms".
std::string assumptions_text(const props::Assumptions& a);
// A counterexample drawn: timeline, then property, cause, why, scenario, trace hash, replay.
std::string describe_counterexample(const std::string& algorithm, const props::Counterexample& c,
                                    const OutputOptions& output, const props::Assumptions& assumptions = {});
std::string inventory_text(const InventoryContext& ctx, const props::Inventory& inv,
                           const std::optional<props::Property>& target, const OutputOptions& output);
std::string inventory_json(const InventoryContext& ctx, const props::Inventory& inv);
// The evidence as text (a table of fault kinds by phase and the bound) and as the JSON
// object check --json prints under "evidence" (merge sums shards' and prints it again).
std::string evidence_text(const props::Evidence& e, uint32_t runs_outside);
std::string evidence_json(const props::Evidence& e, uint32_t runs_outside);

}  // namespace locksim::cli
