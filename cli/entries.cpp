#include "locksim/cli/entries.hpp"

#include <atomic>
#include <chrono>

#include "locksim/base/parallel.hpp"

namespace locksim::cli {

std::vector<TimedOutcome> run_entries(const std::vector<const props::CatalogueEntry*>& entries,
                                      const props::EntryOptions& options, unsigned jobs) {
  std::vector<TimedOutcome> out(entries.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < entries.size();) {
      const auto start = std::chrono::steady_clock::now();
      out[i].outcome = props::run_entry(*entries[i], options);
      out[i].wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
  };
  jobs = std::max(1u, std::min<unsigned>(jobs, static_cast<unsigned>(entries.size())));
  if (jobs <= 1) {
    work();
    return out;
  }
  base::run_on_threads(jobs, [&](unsigned) { work(); });
  return out;
}

}  // namespace locksim::cli
