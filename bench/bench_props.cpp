// The random explorer's time to each documented failure: for every catalogue
// entry that is a violation, over N base seeds, the wall time and the number
// of runs to the first violation (no shrinking, at most 5000 runs), as medians.
// A seed whose search misses counts as slower than any that finds (the median
// is "missed" when half or more miss), and the misses are printed per entry.
// Beside each tuned search (the entry's own fault model) is the generic one:
// plain `check ALGO` with its default faults, which finds the entry only with
// a violation of its property, one of its documented causes, that matches it
// (as the inventory names it by catalogue id).
//   bench_props [seeds]      (default 20)
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "locksim/base/allocator.hpp"
#include "locksim/props/catalogue.hpp"
#include "locksim/props/defaults.hpp"

using namespace locksim::props;

namespace {

constexpr double kMissed = std::numeric_limits<double>::infinity();
constexpr uint32_t kBudget = 5000;

struct Search {
  double median_ms = kMissed;  // kMissed: half or more of the seeds missed
  double median_runs = kMissed;
  int missed = 0, generic_missed = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());  // misses (infinite) sort last
  return v[v.size() / 2];
}

// The first run (and wall time to it) at which the search finds the failure:
// with an entry, a violation that the catalogue matches to that entry (other
// violations with its causes are passed over and the search goes on).
std::optional<uint32_t> first_find(const FaultModel& model, const ExploreOptions& options,
                                   const CatalogueEntry* entry) {
  ExploreOptions o = options;
  while (o.runs > 0) {
    const ExploreResult r = explore(model, o);
    if (!r.found) return std::nullopt;
    const Counterexample& c = *r.found;
    if (!entry || match_entry(c.shrunk, c.violation.property, c.violation.cause) == entry) return c.run + 1;
    const uint32_t done = c.run + 1 - o.first_run;
    if (done >= o.runs) return std::nullopt;
    o.first_run = c.run + 1;
    o.runs -= done;
  }
  return std::nullopt;
}

Search time_to_find(const FaultModel& model, Property property, int seeds, const CatalogueEntry* entry = nullptr) {
  std::vector<double> ms, runs;
  Search s;
  for (int seed = 1; seed <= seeds; ++seed) {
    ExploreOptions o;
    o.seed = static_cast<uint64_t>(seed);
    o.target = property;
    o.runs = kBudget;
    o.shrink = false;
    if (entry) o.causes = documented_causes(entry->id);
    auto t0 = std::chrono::steady_clock::now();
    const std::optional<uint32_t> found = first_find(model, o, entry);
    const double elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    ms.push_back(found ? elapsed : kMissed);
    runs.push_back(found ? *found : kMissed);
    if (!found) ++s.missed;
  }
  s.median_ms = median(ms);
  s.median_runs = median(runs);
  return s;
}

// The generic search for an entry: `check ALGO` with its default fault model
// (the deployment the algorithm is designed for, every fault kind).
FaultModel generic_model(const CatalogueEntry& entry) { return default_model(entry.model.base.algorithm); }

std::string figure(const Search& s, int seeds) {
  if (s.median_ms == kMissed) return fmt::format("missed (median; missed in {} of {} seeds)", s.missed, seeds);
  return fmt::format("{:.2f} ms (median runs {:.0f}; missed in {} of {} seeds)", s.median_ms, s.median_runs, s.missed,
                     seeds);
}

}  // namespace

int main(int argc, char** argv) {
  locksim::base::keep_freed_memory_for_reuse();  // as the locksim program does
  const int seeds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 20;
  fmt::print(
      "# explorer: median over {} base seeds of the wall time and runs to the first violation "
      "(at most {} runs; a miss counts as slower than any find)\n",
      seeds, kBudget);
  std::vector<double> all_ms;
  int missed = 0, generic_missed = 0;
  for (const auto& entry : catalogue()) {
    if (entry.expected != Expectation::Violated && entry.expected != Expectation::ViolatedYetHolds) continue;
    const Search tuned = time_to_find(entry.model, entry.property, seeds);
    all_ms.push_back(tuned.median_ms);
    missed += tuned.missed;
    fmt::print("explorer.first_violation.{}: {} [{} {}]\n", entry.id, figure(tuned, seeds), entry.model.base.algorithm,
               to_string(entry.property));
    const Search generic = time_to_find(generic_model(entry), entry.property, seeds, &entry);
    generic_missed += generic.missed;
    fmt::print("explorer.generic_first_violation.{}: {}\n", entry.id, figure(generic, seeds));
  }
  const double worst = *std::max_element(all_ms.begin(), all_ms.end());
  fmt::print("explorer.first_violation.median_of_entries: {}\n",
             median(all_ms) == kMissed ? std::string("missed") : fmt::format("{:.2f} ms", median(all_ms)));
  fmt::print("explorer.first_violation.worst_entry: {}\n",
             worst == kMissed ? std::string("missed") : fmt::format("{:.2f} ms", worst));
  fmt::print("explorer.missed: {} searches\n", missed);
  fmt::print("explorer.generic_missed: {} searches\n", generic_missed);
  return 0;
}
