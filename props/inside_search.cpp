#include "locksim/props/inside_search.hpp"

#include <algorithm>
#include <atomic>
#include <functional>
#include <string_view>

#include "locksim/base/assert.hpp"
#include "locksim/base/parallel.hpp"
#include "locksim/props/assumptions.hpp"
#include "locksim/props/mechanism_aims.hpp"
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

// The first candidate of a search that failed a sought way: its index among the search's
// candidates, and the scenario when it was not drawn from a source of its own (an aimed one).
struct SearchHit {
  uint32_t index = kNoSearchHit;
  std::optional<Scenario> scenario;
};

// Hands each candidate of search item `item`, in order, to `seen` with its index and run.
using CandidateSeen = std::function<void(uint32_t index, const Scenario&, const RunResult&, bool aimed)>;
using SearchItem = std::function<void(uint32_t item, const CandidateSeen& seen)>;

// The first candidate, among items first, first + stride, ... below `items`, that shows each
// failure sought. Stops once every failure has been met.
std::vector<SearchHit> first_search_hits(const std::vector<FailureKey>& sought, uint32_t items,
                                         const SearchItem& item, uint32_t first, uint32_t stride) {
  std::vector<SearchHit> hit(sought.size());
  size_t left = sought.size();
  const CandidateSeen seen = [&](uint32_t index, const Scenario& s, const RunResult& r, bool aimed) {
    for (const Violation& v : r.verdict.violations)
      for (size_t k = 0; k < sought.size(); ++k)
        if (hit[k].index == kNoSearchHit && sought[k] == FailureKey{v.property, v.cause}) {
          hit[k].index = index;
          if (aimed) hit[k].scenario = s;
          --left;
        }
  };
  for (uint32_t i = first; i < items && left > 0; i += stride) item(i, seen);
  return hit;
}

// The same over `jobs` threads, each taking every jobs-th item: the lowest hit over the jobs
// is the first of all, as one job would have found it.
std::vector<SearchHit> first_hits_on(const std::vector<FailureKey>& sought, uint32_t items, const SearchItem& item,
                                     unsigned jobs) {
  jobs = std::max(1u, std::min(jobs, items));
  std::vector<std::vector<SearchHit>> parts(jobs);
  if (jobs == 1)
    parts[0] = first_search_hits(sought, items, item, 0, 1);
  else
    base::run_on_threads(jobs, [&](unsigned t) { parts[t] = first_search_hits(sought, items, item, t, jobs); });
  std::vector<SearchHit> out(sought.size());
  for (size_t k = 0; k < sought.size(); ++k)
    for (auto& p : parts)
      if (p[k].index < out[k].index) out[k] = std::move(p[k]);
  return out;
}

// Item i of the search aimed at `aim`: a scenario drawn inside the assumptions from the stream
// of (seed, algorithm, cause), and the same scenario aimed at the cause's mechanism; an aim
// that probes runs the drawn one first (both are candidates, the drawn one first).
SearchItem aimed_item(const FaultModel& model, const MechanismAim& aim, const InsideSearchOptions& o) {
  return [&model, &aim, &o](uint32_t i, const CandidateSeen& seen) {
    const DrawSource from = aimed_search_draw(model, o.seed, aim.cause, i);
    const Scenario drawn = draw(model, from);
    if (!broken_assumptions(drawn, model.assumed).empty()) return;
    uint64_t state = from.random_key ^ search_stream_hash("aim");
    const uint64_t key = sim::splitmix64(state);
    std::optional<Scenario> aimed;
    if (aim.probes) {
      const RunResult probe = run_scenario(drawn, o.check, [&](const lock::History& h) {
        aimed = aimed_scenario(aim, model, drawn, &h, key);
      });
      seen(2 * i, drawn, probe, true);
      if (aimed) seen(2 * i + 1, *aimed, run_scenario(*aimed, o.check), true);
      return;
    }
    aimed = aimed_scenario(aim, model, drawn, nullptr, key);
    if (aimed) seen(i, *aimed, run_scenario(*aimed, o.check), true);
  };
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

uint32_t aimed_search_items(uint32_t budget) {
  if (budget == 0) return 0;
  return std::clamp<uint32_t>(budget / 5, kMinAimedSearchItems, kMaxAimedSearchItems);
}

DrawSource aimed_search_draw(const FaultModel& model, uint64_t seed, Cause cause, uint32_t i) {
  // The cause's own stream, by names alone, as the search's is.
  uint64_t state = seed ^ search_stream_hash(model.base.algorithm) ^ search_stream_hash("aimed inside search") ^
                   (search_stream_hash(to_string(cause)) * 3);
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
  const SearchItem drawn_item = [&](uint32_t i, const CandidateSeen& seen) {
    const Scenario drawn = draw(model, inside_search_draw(model, o.seed, i));
    if (broken_assumptions(drawn, model.assumed).empty()) seen(i, drawn, run_scenario(drawn, o.check), false);
  };
  std::vector<SearchHit> hits = first_hits_on(sought, o.budget, drawn_item, jobs);
  for (size_t k = 0; k < sought.size(); ++k) out[k].runs = hits[k].index == kNoSearchHit ? o.budget : hits[k].index + 1;
  // What the drawn runs did not show is sought again by the runs aimed at its cause's
  // mechanism: one stream a cause, whatever else is sought, so each answer still depends on
  // (seed, algorithm, property, cause) alone.
  const uint32_t items = aimed_search_items(o.budget);
  for (const MechanismAim& aim : mechanism_aims()) {
    std::vector<size_t> unmet;
    std::vector<FailureKey> keys;
    for (size_t k = 0; k < sought.size(); ++k)
      if (hits[k].index == kNoSearchHit && sought[k].second == aim.cause) {
        unmet.push_back(k);
        keys.push_back(sought[k]);
      }
    if (unmet.empty() || !aimable(aim, model)) continue;
    const uint32_t candidates = items * (aim.probes ? 2 : 1);
    std::vector<SearchHit> aimed = first_hits_on(keys, items, aimed_item(model, aim, o), jobs);
    for (size_t n = 0; n < unmet.size(); ++n) {
      const size_t k = unmet[n];
      out[k].runs = o.budget + (aimed[n].index == kNoSearchHit ? candidates : aimed[n].index + 1);
      if (aimed[n].index == kNoSearchHit) continue;
      hits[k] = std::move(aimed[n]);
      hits[k].index = out[k].runs - 1;
      out[k].aimed = true;
    }
  }
  std::vector<size_t> found;
  for (size_t k = 0; k < sought.size(); ++k)
    if (hits[k].index != kNoSearchHit) {
      out[k].found.emplace();
      out[k].found->run = hits[k].index;
      found.push_back(k);
    }
  // Each one found is shrunk from its search run, inside the assumptions.
  std::atomic<size_t> next{0};
  auto shrink_next = [&](unsigned) {
    for (size_t n = next.fetch_add(1); n < found.size(); n = next.fetch_add(1)) {
      const size_t k = found[n];
      Counterexample& c = *out[k].found;
      const StillFails same = inside_only(fails_with(sought[k].first, {sought[k].second}, o.check), model.assumed);
      const std::optional<DrawSource> from =
          hits[k].scenario ? std::nullopt : std::optional<DrawSource>(inside_search_draw(model, o.seed, c.run));
      const Scenario drawn = from ? draw(model, *from) : *hits[k].scenario;
      std::optional<Violation> v = same(drawn);
      LOCKSIM_ASSERT(v.has_value(), "a search run replays the same way");
      if (!o.shrink) {
        c.original = c.shrunk = drawn;
        c.violation = std::move(*v);
      } else if (from) {
        c = shrink_drawn(model, *from, c.run, *v, same, o.max_shrink_runs);
      } else {
        c = shrink_scenario(drawn, c.run, *v, same, o.max_shrink_runs);
      }
    }
  };
  if (jobs <= 1 || found.size() <= 1)
    shrink_next(0);
  else
    base::run_on_threads(std::min<unsigned>(jobs, static_cast<unsigned>(found.size())), shrink_next);
  return out;
}

}  // namespace locksim::props
