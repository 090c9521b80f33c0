#include "props/explorer.hpp"

#include <algorithm>
#include <mutex>
#include <optional>

#include "lock/simulation.hpp"

namespace locksim::props {

namespace {

// rapidcheck's generators scale with a size: run i draws at size 10 + 3i, up
// to the full range at 100. Small scenarios (fewest clients, shortest times)
// come first, so the first violation found is already small.
int size_for(uint32_t run) { return static_cast<int>(std::min<uint64_t>(100, 10 + 3 * uint64_t{run})); }

// rapidcheck keeps its generation context in a global, so drawing a scenario
// (and reading a shrinkable's value, which may re-run the generator) happens
// under one lock. Simulations themselves share nothing and run in parallel.
std::mutex& generation_lock() {
  static std::mutex m;
  return m;
}

Scenario value_of(const rc::Shrinkable<Scenario>& s) {
  std::lock_guard<std::mutex> guard(generation_lock());
  return s.value();
}

rc::Random random_for(uint64_t seed, uint32_t run) {
  uint64_t state = seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t{run} + 1));
  return rc::Random(sim::splitmix64(state));
}

void merge(Metrics& into, const Metrics& m) {
  into.expiry_drift = std::max(into.expiry_drift, m.expiry_drift);
  into.unavailability = std::max(into.unavailability, m.unavailability);
  into.longest_wait = std::max(into.longest_wait, m.longest_wait);
  into.max_overtakes = std::max(into.max_overtakes, m.max_overtakes);
  into.acquisitions += m.acquisitions;
}

const Violation* wanted(const Verdict& v, const std::optional<Property>& target) {
  if (target) return v.find(*target);
  return v.violations.empty() ? nullptr : &v.violations.front();
}

// After rapidcheck's shrinking, which cannot drop a client or one fault from
// the middle of a list, try exactly that: each removal that still violates
// the property is kept. Removing a client changes who draws which random
// numbers, so a few neighbouring seeds are tried for it.
void simplify(Scenario& s, Property property, const CheckOptions& check, uint32_t budget, Counterexample& found) {
  auto still_fails = [&](const Scenario& candidate) {
    if (found.shrink_runs >= budget) return false;
    ++found.shrink_runs;
    RunResult r = run_scenario(candidate, check);
    if (const Violation* v = r.verdict.find(property)) {
      found.violation = *v;
      return true;
    }
    return false;
  };
  for (bool changed = true; changed && found.shrink_runs < budget;) {
    changed = false;
    for (uint32_t k = s.workload.clients; k-- > 0 && s.workload.clients > 1;) {
      Scenario fewer = remove_client(s, k);
      for (uint64_t tweak = 0; tweak < 8; ++tweak) {
        Scenario candidate = fewer;
        candidate.seed = s.seed + tweak;
        if (still_fails(candidate)) {
          s = candidate;
          changed = true;
          break;
        }
      }
    }
    {
      // Faults of the plan.
      for (size_t i = s.faults.faults.size(); i-- > 0;) {
        Scenario candidate = s;
        candidate.faults.faults.erase(candidate.faults.faults.begin() + static_cast<std::ptrdiff_t>(i));
        if (still_fails(candidate)) { s = std::move(candidate); changed = true; }
      }
      for (size_t i = s.workload.slow_work.size(); i-- > 0;) {
        Scenario candidate = s;
        candidate.workload.slow_work.erase(candidate.workload.slow_work.begin() + static_cast<std::ptrdiff_t>(i));
        if (still_fails(candidate)) { s = std::move(candidate); changed = true; }
      }
      for (size_t i = s.workload.call_faults.size(); i-- > 0;) {
        Scenario candidate = s;
        candidate.workload.call_faults.erase(candidate.workload.call_faults.begin() + static_cast<std::ptrdiff_t>(i));
        if (still_fails(candidate)) { s = std::move(candidate); changed = true; }
      }
    }
    if (s.workload.iterations > 1) {
      Scenario candidate = s;
      --candidate.workload.iterations;
      if (still_fails(candidate)) { s = std::move(candidate); changed = true; }
    }
  }
}

}  // namespace

Scenario remove_client(const Scenario& s, uint32_t k) {
  Scenario out = s;
  lock::WorkloadParams& w = out.workload;
  w.clients -= 1;
  auto shift = [k](uint32_t c) { return c > k ? c - 1 : c; };
  std::erase_if(w.slow_work, [k](const lock::SlowWork& x) { return x.client == k; });
  for (auto& x : w.slow_work) x.client = shift(x.client);
  std::erase_if(w.call_faults, [k](const lock::CallFault& x) { return x.client == k; });
  for (auto& x : w.call_faults) x.client = shift(x.client);
  if (w.identities.empty())
    for (uint32_t c = 0; c <= w.clients; ++c) w.identities.push_back(c);
  w.identities.erase(w.identities.begin() + k);
  if (k < w.clock_offsets.size()) w.clock_offsets.erase(w.clock_offsets.begin() + k);
  if (k < w.drifts_ppm.size()) w.drifts_ppm.erase(w.drifts_ppm.begin() + k);
  const std::string gone = lock::client_name(k);
  std::erase_if(out.faults.faults, [&](const sim::Fault& f) { return f.node == gone || f.peer == gone; });
  auto rename = [&](std::string& name) {
    if (auto c = client_index(name); c && *c > k) name = lock::client_name(*c - 1);
  };
  for (auto& f : out.faults.faults) {
    rename(f.node);
    rename(f.peer);
  }
  normalize(out);
  return out;
}

RunResult run_scenario(const Scenario& s, const CheckOptions& options) {
  Scenario quiet = s;
  quiet.record_trace = false;  // checking needs the history, not the rendered trace
  lock::Simulation sim(quiet);
  sim.run();
  RunResult r;
  r.verdict = check(sim.history(), sim.config(), run_end(sim), options);
  r.trace_hash = sim.trace_hash();
  r.events = sim.world().events_processed();
  return r;
}

Scenario draw(const FaultModel& model, uint64_t seed, uint32_t run) {
  std::lock_guard<std::mutex> guard(generation_lock());
  return scenario_generator(model)(random_for(seed, run), size_for(run)).value();
}

ExploreResult explore(const FaultModel& model, const ExploreOptions& options) {
  ExploreResult result;
  const rc::Gen<Scenario> gen = scenario_generator(model);
  for (uint32_t i = 0; i < options.runs; ++i) {
    const uint32_t run = options.first_run + i * options.stride;
    std::optional<rc::Shrinkable<Scenario>> drawn_once;
    Scenario scenario;
    {
      std::lock_guard<std::mutex> guard(generation_lock());
      drawn_once.emplace(gen(random_for(options.seed, run), size_for(run)));
      scenario = drawn_once->value();
    }
    const rc::Shrinkable<Scenario>& drawn = *drawn_once;
    RunResult r = run_scenario(scenario, options.check);
    ++result.runs;
    merge(result.worst, r.verdict.metrics);
    if (options.progress) options.progress(result.runs);
    const Violation* v = wanted(r.verdict, options.target);
    if (!v || !options.stop_at_violation) {
      if (!r.verdict.violations.empty()) ++result.violations_of_other_properties;
      continue;
    }
    Counterexample found;
    found.original = scenario;
    found.run = run;
    found.violation = *v;
    const Property property = v->property;
    // Greedy shrinking: take the first smaller scenario that still violates
    // the same property, until none does.
    rc::Shrinkable<Scenario> current = drawn;
    bool improved = options.shrink;
    while (improved && found.shrink_runs < options.max_shrink_runs) {
      improved = false;
      std::unique_lock<std::mutex> generating(generation_lock());
      auto children = current.shrinks();
      while (auto child = children.next()) {
        if (++found.shrink_runs > options.max_shrink_runs) break;
        Scenario candidate = child->value();
        generating.unlock();
        RunResult cr = run_scenario(candidate, options.check);
        generating.lock();
        if (const Violation* cv = cr.verdict.find(property)) {
          current = *child;
          found.violation = *cv;
          improved = true;
          break;
        }
      }
    }
    result.worst = Metrics{};
    found.shrunk = value_of(current);
    if (options.shrink) simplify(found.shrunk, property, options.check, options.max_shrink_runs, found);
    result.found = std::move(found);
    return result;
  }
  return result;
}

}  // namespace locksim::props
