#include "locksim/props/inside_search.hpp"

#include <algorithm>
#include <atomic>
#include <string_view>

#include "locksim/base/assert.hpp"
#include "locksim/base/parallel.hpp"
#include "locksim/props/assumptions.hpp"
#include "locksim/sim/random.hpp"

namespace locksim::props {

namespace {

// FNV-1a of a name: the same on every platform and build (std::hash is not).
uint64_t search_stream_hash(std::string_view text) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 0x100000001b3ULL;
  }
  return h;
}

constexpr uint32_t kNoSearchHit = UINT32_MAX;

// The first search run, among i = first, first + stride, ..., below the budget, that shows
// each failure sought (kNoSearchHit if none). Stops once every failure has been met.
std::vector<uint32_t> first_search_hits(const FaultModel& model, const std::vector<FailureKey>& sought,
                                 const InsideSearchOptions& o, uint32_t first, uint32_t stride) {
  std::vector<uint32_t> hit(sought.size(), kNoSearchHit);
  size_t left = sought.size();
  for (uint32_t i = first; i < o.budget && left > 0; i += stride) {
    const Scenario drawn = draw(model, inside_search_draw(model, o.seed, i));
    if (!broken_assumptions(drawn, model.assumed).empty()) continue;
    const RunResult r = run_scenario(drawn, o.check);
    for (const Violation& v : r.verdict.violations)
      for (size_t k = 0; k < sought.size(); ++k)
        if (hit[k] == kNoSearchHit && sought[k] == FailureKey{v.property, v.cause}) {
          hit[k] = i;
          --left;
        }
  }
  return hit;
}

}  // namespace

uint32_t inside_search_budget(uint32_t check_runs) {
  if (check_runs == 0) return 0;
  return std::clamp<uint32_t>(check_runs / 10, kMinInsideSearchRuns, kMaxInsideSearchRuns);
}

DrawSource inside_search_draw(const FaultModel& model, uint64_t seed, uint32_t i) {
  // By name, not by anything of this process, so that every shard draws the same stream;
  // apart from the check's own runs, whose states mix the seed with the run index alone.
  uint64_t state = seed ^ search_stream_hash(model.base.algorithm) ^ search_stream_hash("inside search");
  const uint64_t stream = sim::splitmix64(state);
  state = stream ^ (0x9e3779b97f4a7c15ULL * (uint64_t{i} + 1));
  return DrawSource{sim::splitmix64(state), 100, true};
}

StillFails inside_only(StillFails fails, const Assumptions& assumed) {
  return [fails = std::move(fails), assumed](const Scenario& candidate) -> std::optional<Violation> {
    if (!broken_assumptions(candidate, assumed).empty()) return std::nullopt;
    return fails(candidate);
  };
}

std::vector<InsideSearch> search_inside(const FaultModel& model, const std::vector<FailureKey>& sought,
                                        const InsideSearchOptions& o, unsigned jobs) {
  std::vector<InsideSearch> out(sought.size());
  if (sought.empty() || o.budget == 0 || assumption_words(model.assumed).empty()) return out;
  jobs = std::max(1u, std::min(jobs, o.budget));
  // Each job takes every jobs-th search run and finds its own first hits; the lowest over
  // the jobs is the first hit of all, as one job would have found it.
  std::vector<std::vector<uint32_t>> parts(jobs);
  if (jobs == 1)
    parts[0] = first_search_hits(model, sought, o, 0, 1);
  else
    base::run_on_threads(jobs, [&](unsigned t) { parts[t] = first_search_hits(model, sought, o, t, jobs); });
  std::vector<size_t> found;
  for (size_t k = 0; k < sought.size(); ++k) {
    uint32_t first = kNoSearchHit;
    for (const auto& p : parts) first = std::min(first, p[k]);
    out[k].runs = first == kNoSearchHit ? o.budget : first + 1;
    if (first != kNoSearchHit) {
      out[k].found.emplace();
      out[k].found->run = first;
      found.push_back(k);
    }
  }
  // Each one found is shrunk from its search run, inside the assumptions.
  std::atomic<size_t> next{0};
  auto shrink_next = [&](unsigned) {
    for (size_t n = next.fetch_add(1); n < found.size(); n = next.fetch_add(1)) {
      const size_t k = found[n];
      Counterexample& c = *out[k].found;
      const DrawSource from = inside_search_draw(model, o.seed, c.run);
      const StillFails same = inside_only(fails_with(sought[k].first, {sought[k].second}, o.check), model.assumed);
      const Scenario drawn = draw(model, from);
      std::optional<Violation> v = same(drawn);
      LOCKSIM_ASSERT(v.has_value(), "a search run replays the same way");
      if (o.shrink) {
        c = shrink_drawn(model, from, c.run, *v, same, o.max_shrink_runs);
      } else {
        c.original = c.shrunk = drawn;
        c.violation = std::move(*v);
      }
    }
  };
  if (jobs == 1 || found.size() <= 1)
    shrink_next(0);
  else
    base::run_on_threads(std::min<unsigned>(jobs, static_cast<unsigned>(found.size())), shrink_next);
  return out;
}

}  // namespace locksim::props
