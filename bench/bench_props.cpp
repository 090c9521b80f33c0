// The random explorer's time to each documented failure: for every catalogue
// entry that is a violation, over 20 base seeds, the wall time and the number
// of runs to the first violation (no shrinking), as medians.
//   bench_props [seeds]      (default 20)
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <vector>

#include "props/catalogue.hpp"

using namespace locksim::props;

namespace {
template <class T>
T median(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
}  // namespace

int main(int argc, char** argv) {
  const int seeds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 20;
  fmt::print("# explorer: median over {} base seeds of the wall time and runs to the first violation\n", seeds);
  std::vector<double> all_ms;
  int missed = 0;
  for (const auto& entry : catalogue()) {
    if (entry.expected != Expectation::Violated && entry.expected != Expectation::ViolatedYetHolds) continue;
    std::vector<double> ms;
    std::vector<uint32_t> runs;
    for (int seed = 1; seed <= seeds; ++seed) {
      ExploreOptions o;
      o.seed = static_cast<uint64_t>(seed);
      o.target = entry.property;
      o.runs = 5000;
      o.shrink = false;
      auto t0 = std::chrono::steady_clock::now();
      ExploreResult r = explore(entry.model, o);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      runs.push_back(r.found ? r.runs : 0);
      if (!r.found) ++missed;
    }
    all_ms.push_back(median(ms));
    fmt::print("explorer.first_violation.{}: {:.2f} ms (median runs {}, {} {})\n", entry.id, median(ms), median(runs),
               entry.model.base.algorithm, to_string(entry.property));
  }
  fmt::print("explorer.first_violation.median_of_entries: {:.2f} ms\n", median(all_ms));
  fmt::print("explorer.first_violation.worst_entry: {:.2f} ms\n", *std::max_element(all_ms.begin(), all_ms.end()));
  fmt::print("explorer.missed: {} searches\n", missed);
  return 0;
}
