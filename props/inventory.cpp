#include "locksim/props/inventory.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>

#include "locksim/base/parallel.hpp"
#include "locksim/lock/registry.hpp"
#include "locksim/props/catalogue.hpp"
#include "locksim/props/claims.hpp"
#include "locksim/props/inside_search.hpp"
#include "locksim/props/shrink_memo.hpp"

namespace locksim::props {

namespace {

using Key = std::pair<Property, Cause>;

struct Seen {
  uint32_t runs = 0;
  uint32_t first_run = 0;
  Violation first;
  // The first run that showed it inside the assumptions in force, if one did: then
  // the failure is the lock's own, and its example comes from that run.
  std::optional<std::pair<uint32_t, Violation>> first_inside;
};

void keep_first_inside(Seen& into, const Seen& other) {
  if (other.first_inside && (!into.first_inside || other.first_inside->first < into.first_inside->first))
    into.first_inside = other.first_inside;
}
using Tally = std::map<Key, Seen>;

void merge_metrics(Metrics& into, const Metrics& m) {
  into.expiry_drift = std::max(into.expiry_drift, m.expiry_drift);
  into.unavailability = std::max(into.unavailability, m.unavailability);
  into.longest_wait = std::max(into.longest_wait, m.longest_wait);
  into.max_overtakes = std::max(into.max_overtakes, m.max_overtakes);
  into.acquisitions += m.acquisitions;
  into.held_writes += m.held_writes;
  into.nested_acquisitions += m.nested_acquisitions;
}

void merge_tally(Tally& into, const Tally& part) {
  for (const auto& [key, seen] : part) {
    auto [it, fresh] = into.try_emplace(key, seen);
    if (fresh) continue;
    it->second.runs += seen.runs;
    keep_first_inside(it->second, seen);
    if (seen.first_run < it->second.first_run) {
      it->second.first_run = seen.first_run;
      it->second.first = seen.first;
    }
  }
}

// Runs every `jobs`-th run of the options' sequence, from the `job`-th.
struct Part {
  Tally tally;
  Metrics worst;
  Evidence evidence;
  uint32_t runs_outside = 0;
  uint32_t runs = 0;
  std::optional<std::pair<uint32_t, Seen>> variant_error;  // the part's first (local index, what)
};

// A Lua variant's own error ends the drawing: its file needs fixing, and every
// later run would spend its Lua budget again. Runs past the lowest index with
// such an error are skipped; every run before it is made on any number of
// jobs, so the answer stays the same.
class StopAt {
 public:
  bool past(uint32_t i) const { return i > index_.load(std::memory_order_relaxed); }
  void lower_to(uint32_t i) {
    uint32_t now = index_.load();
    while (i < now && !index_.compare_exchange_weak(now, i)) {}
  }

 private:
  std::atomic<uint32_t> index_{UINT32_MAX};
};

Part run_part(const FaultModel& model, const InventoryOptions& o, unsigned job, unsigned jobs, StopAt& stop,
              const std::function<void()>& tick) {
  Part part;
  // --time: a wall-clock budget for how many runs to draw, outside any one
  // simulation (each run stays deterministic; --time is said to vary the count).
  const auto started = std::chrono::steady_clock::now();
  for (uint32_t i = job; i < o.runs; i += jobs) {
    if (o.time_limit_s > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() > o.time_limit_s)
      break;
    if (stop.past(i)) break;
    if (o.interrupted && o.interrupted->load(std::memory_order_relaxed)) break;
    const uint32_t run = o.first_run + i * o.stride;
    const Scenario drawn = draw(model, o.seed, run);
    RunResult r = run_scenario(drawn, o.check);
    const bool inside = broken_assumptions(drawn, model.assumed).empty();
    ++part.runs;
    merge_metrics(part.worst, r.verdict.metrics);
    if (inside)
      part.evidence.add(r.evidence);
    else
      ++part.runs_outside;
    for (const Violation& v : r.verdict.violations) {
      if (v.property == Property::VariantError && !part.variant_error) {
        part.variant_error = {i, Seen{1, run, v, std::nullopt}};
        stop.lower_to(i);
      }
      if (o.target && v.property != *o.target) continue;
      auto [it, fresh] = part.tally.try_emplace(Key{v.property, v.cause});
      if (fresh) it->second = Seen{0, run, v, std::nullopt};
      ++it->second.runs;
      if (inside && !it->second.first_inside) it->second.first_inside = {run, v};
    }
    tick();
  }
  return part;
}

// A failure met only beyond the assumptions may not need what broke them: its first run,
// replayed with each assumption made to hold, either fails the same way (then it is the
// lock's own, proven by this replay, and its example comes from there) or it does not.
std::optional<Counterexample> replayed_inside(const FaultModel& model, const InventoryOptions& o, const Seen& seen,
                                           const StillFails& fails) {
  if (seen.first_inside || assumption_words(model.assumed).empty()) return std::nullopt;
  const Scenario drawn = draw(model, o.seed, seen.first_run);
  Scenario inside = held_inside(drawn, model.assumed);
  if (inside == drawn || !broken_assumptions(inside, model.assumed).empty()) return std::nullopt;
  const StillFails still_fails = memoized(fails);
  std::optional<Violation> v = still_fails(inside);
  if (!v) return std::nullopt;
  Counterexample c;
  c.original = inside;
  c.run = seen.first_run;
  c.violation = std::move(*v);
  if (o.shrink) {
    c.shrunk = simplified(inside, still_fails, o.max_shrink_runs);
    c.shrunk = one_minimal(c.shrunk, still_fails, &c);
    if (std::optional<Violation> last = still_fails(c.shrunk)) c.violation = std::move(*last);
  } else {
    c.shrunk = inside;
  }
  return c;
}

// What a failure's example shows: the fault kinds it needs, each necessary element, the
// assumptions it breaks, whether the counterpart fails it too, its catalogue entry.
// The cause is proven on the example, which may re-label it (props/cause_proof.hpp).
void describe_example(const FaultModel& model, const InventoryOptions& o, Failure& f, ReplayCache& replays) {
  f.needs = kinds_in(f.example.shrunk);
  f.necessary.clear();
  if (o.shrink)
    for (const Element& e : elements_of(f.example.shrunk))
      if (!e.what.starts_with("client ")) f.necessary.push_back(e.what);
  // The example fails as its bucket's classified cause (it was shrunk keeping it).
  f.cause = f.example.violation.cause;
  f.proof = CauseProof{f.cause, f.cause, {}, std::nullopt};
  if (o.shrink) {
    f.proof = prove_example(f.example, model.assumed, replays);
    f.cause = f.proof.proven;
  }
  f.breaks = broken_assumptions(f.example.shrunk, model.assumed);
  f.inherent = inherent_in(f.example.shrunk, f.property, f.cause, o.check);
  f.catalogue.clear();
  if (const CatalogueEntry* e = match_entry(f.example.shrunk, f.property, f.cause)) f.catalogue = e->id;
}

Failure finish(const FaultModel& model, const InventoryOptions& o, const std::vector<Property>& claims,
               const Key& key, const Seen& seen, ReplayCache& replays) {
  Failure f;
  f.property = key.first;
  // A variant's own error is always its own: its file needs fixing.
  f.claimed = f.property == Property::VariantError || claims_property(claims, f.property);
  f.cause = key.second;
  f.runs = seen.runs;
  f.first_run = seen.first_run;
  if (seen.first_inside) f.first_inside_run = seen.first_inside->first;
  // A failure seen inside the assumptions is the lock's own: its example comes from there.
  const uint32_t example_run = seen.first_inside ? seen.first_inside->first : seen.first_run;
  const Violation& example_violation = seen.first_inside ? seen.first_inside->second : seen.first;
  const StillFails same_failure = fails_with(f.property, {f.cause}, o.check, &replays);
  if (std::optional<Counterexample> moved = replayed_inside(model, o, seen, inside_only(same_failure, model.assumed))) {
    f.moved_inside = true;
    f.example = std::move(*moved);
  } else if (o.shrink) {
    // Shrinking keeps what the failure is: its property, its cause, and which side of the
    // assumptions it falls on. A smaller scenario may break one its original kept (a
    // restart shrunk to lose its persistence): that would be another failure, outside.
    const StillFails fails = seen.first_inside ? inside_only(same_failure, model.assumed) : same_failure;
    f.example = shrink_run(model, o.seed, example_run, example_violation, fails, o.max_shrink_runs);
  } else {
    f.example.original = f.example.shrunk = draw(model, o.seed, example_run);
    f.example.run = example_run;
    f.example.violation = example_violation;
  }
  describe_example(model, o, f, replays);
  return f;
}

// The failures still outside the assumptions once shrunk (neither met inside, nor moved by
// their replay or their shrinking) are sought by one targeted inside search; each one it
// finds is the lock's own after all, and takes the search's example.
void search_inside_for(const FaultModel& model, const InventoryOptions& o, uint32_t runs_made, unsigned jobs,
                       std::vector<Failure>& failures, ReplayCache& replays) {
  std::vector<Failure*> sought;
  std::vector<FailureKey> keys;
  for (Failure& f : failures)
    if (outside_assumptions(f) && f.property != Property::VariantError) {
      sought.push_back(&f);
      // A re-labelled failure is sought as classified: met inside, it is the lock's own after all.
      keys.emplace_back(f.property, f.proof.classified);
    }
  InsideSearchOptions search;
  search.seed = o.seed;
  // Scaled by the runs made, not asked for: --time asks for a hundred million.
  search.budget = o.inside_search_runs ? *o.inside_search_runs : inside_search_budget(runs_made);
  search.shrink = o.shrink;
  search.max_shrink_runs = o.max_shrink_runs;
  search.check = o.check;
  std::vector<InsideSearch> searched = search_inside(model, keys, search, jobs);
  for (size_t n = 0; n < sought.size(); ++n) {
    Failure& f = *sought[n];
    f.inside_search_runs = searched[n].runs;
    if (!searched[n].found) continue;
    f.moved_inside = f.found_by_search = true;
    f.example = std::move(*searched[n].found);
    describe_example(model, o, f, replays);
  }
}

// Calls work(i) for i in [0, n) on up to `jobs` threads.
void on_threads(size_t n, unsigned jobs, const std::function<void(size_t)>& work) {
  jobs = static_cast<unsigned>(std::max<size_t>(1, std::min<size_t>(jobs, n)));
  if (jobs <= 1) {
    for (size_t i = 0; i < n; ++i) work(i);
    return;
  }
  // Threads live outside any simulation: each runs whole simulations, one at a
  // time; the tallies are merged in run order, so --jobs never changes the answer.
  // Each thread takes the next item when it is free: shrinking one failure can cost
  // ten times another's, and a fixed share would leave a thread idle.
  std::atomic<size_t> next{0};
  base::run_on_threads(jobs, [&](unsigned) {
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) work(i);
  });
}

}  // namespace

bool example_preferred(const Failure& a, const Failure& b) {
  if (a.first_inside_run || b.first_inside_run)
    return a.first_inside_run && (!b.first_inside_run || *a.first_inside_run < *b.first_inside_run);
  return a.first_run < b.first_run;
}

void fold_relabelled(std::vector<Failure>& failures) {
  std::vector<Failure> folded;
  for (Failure& f : failures) {
    auto same = std::find_if(folded.begin(), folded.end(), [&](const Failure& g) {
      return g.property == f.property && g.cause == f.cause;
    });
    if (same == folded.end()) {
      folded.push_back(std::move(f));
      continue;
    }
    const uint32_t runs = same->runs + f.runs, first = std::min(same->first_run, f.first_run);
    if (example_preferred(f, *same)) *same = std::move(f);
    same->runs = runs;
    same->first_run = first;
  }
  failures = std::move(folded);
}

std::vector<Property> claims_in_force(const FaultModel& model, const InventoryOptions& options) {
  const std::vector<Property> claims = options.claims ? *options.claims : claimed_properties(model.base.algorithm);
  return options.target ? with_claim(claims, *options.target) : claims;
}

std::string reference_algorithm(const Scenario& s) {
  // A lock kept in a database is held against the database's best: a row lock held through the work.
  if (const lock::Algorithm* a = lock::find_algorithm(s.algorithm); a && a->uses_database) return "db-for-update";
  if (s.masters > 1) return "redlock";
  return s.workload.nested > 0 ? "reentrant" : "watchdog";
}

Scenario with_reference(const Scenario& s) {
  Scenario r = s;
  r.algorithm = reference_algorithm(s);
  // The reference as designed: renewed, with no mode of the algorithm under check.
  r.lock.explicit_lease = {};
  r.lock.renew_interval = {};
  r.lock.release_if_unexpired = false;
  return r;
}

bool inherent_in(const Scenario& s, Property p, Cause c, const CheckOptions& check) {
  // Waiting fairly and nesting are what an algorithm does, not what a deployment costs.
  if (p == Property::BoundedWait || c == Cause::SelfDeadlock || c == Cause::InnerRelease) return false;
  if (reference_algorithm(s) == s.algorithm) return false;  // a lock is no counterpart of itself
  RunResult r = run_scenario(with_reference(s), check);
  for (const Violation& v : r.verdict.violations)
    if (v.property == p && v.cause == c) return true;
  return false;
}

Inventory take_inventory(const FaultModel& model, const InventoryOptions& o, unsigned jobs) {
  jobs = std::max(1u, std::min<unsigned>(jobs, std::max<uint32_t>(1, o.runs)));
  std::mutex lock;
  uint32_t done = 0;
  auto tick = [&] {
    std::lock_guard<std::mutex> guard(lock);
    ++done;
    if (o.progress) o.progress(done);
  };
  std::vector<Part> parts(jobs);
  StopAt stop;
  on_threads(jobs, jobs, [&](size_t j) { parts[j] = run_part(model, o, static_cast<unsigned>(j), jobs, stop, tick); });
  Inventory inv;
  inv.claims = claims_in_force(model, o);
  Tally tally;
  std::optional<std::pair<uint32_t, Seen>> variant_error;
  for (const Part& p : parts) {
    inv.runs += p.runs;
    inv.runs_outside += p.runs_outside;
    inv.evidence.add(p.evidence);
    merge_metrics(inv.worst, p.worst);
    merge_tally(tally, p.tally);
    if (p.variant_error && (!variant_error || p.variant_error->first < variant_error->first))
      variant_error = p.variant_error;
  }
  if (variant_error) {
    // Only the variant's error, after the runs up to it (what the other parts
    // made past it depends on the number of jobs).
    inv.runs = variant_error->first + 1;
    inv.worst = Metrics{};
    inv.evidence = Evidence{};
    inv.runs_outside = 0;
    tally.clear();
    tally.emplace(Key{Property::VariantError, variant_error->second.first.cause}, variant_error->second);
  }
  inv.partial = !variant_error && o.interrupted && o.interrupted->load() && inv.runs < o.runs;
  std::vector<std::pair<Key, Seen>> found(tally.begin(), tally.end());
  inv.failures.resize(found.size());
  ReplayCache replays(o.check);  // failures first seen in one run shrink through the same candidates
  on_threads(found.size(), jobs, [&](size_t i) {
    inv.failures[i] = finish(model, o, inv.claims, found[i].first, found[i].second, replays);
  });
  if (!(o.interrupted && o.interrupted->load())) search_inside_for(model, o, inv.runs, jobs, inv.failures, replays);
  if (o.stride <= 1) fold_relabelled(inv.failures);
  // The lock's own, then unclaimed properties inside the assumptions, then outside them;
  // each by first run, then by property and cause as declared (as merge orders them).
  auto group = [](const Failure& f) { return own_failure(f) ? 0 : unclaimed_failure(f) ? 1 : 2; };
  std::stable_sort(inv.failures.begin(), inv.failures.end(), [&](const Failure& a, const Failure& b) {
    if (group(a) != group(b)) return group(a) < group(b);
    if (a.first_run != b.first_run) return a.first_run < b.first_run;
    return std::pair(a.property, a.cause) < std::pair(b.property, b.cause);
  });
  return inv;
}

}  // namespace locksim::props
