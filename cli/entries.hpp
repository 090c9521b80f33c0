#pragma once
// Runs catalogue entries (props::run_entry), several at a time when asked,
// each timed with a steady clock (reporting only: the simulations never see
// wall time). The outcomes come back in catalogue order whatever the jobs.
#include <vector>

#include "locksim/props/catalogue.hpp"

namespace locksim::cli {

struct TimedOutcome {
  props::EntryOutcome outcome;
  double wall_ms = 0;
};

std::vector<TimedOutcome> run_entries(const std::vector<const props::CatalogueEntry*>& entries,
                                      const props::EntryOptions& options, unsigned jobs);

}  // namespace locksim::cli
