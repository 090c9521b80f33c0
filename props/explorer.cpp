#include "locksim/props/explorer.hpp"
#include "locksim/props/shrink_memo.hpp"
#include "locksim/props/shrink_retime.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "locksim/lock/simulation.hpp"
#include "locksim/props/assumptions.hpp"

namespace locksim::props {

namespace {

// 1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, ... 21st: how an element names a client's section.
std::string ordinal(uint64_t n) {
  const uint64_t tens = n % 100, ones = n % 10;
  const char* suffix = (tens >= 11 && tens <= 13) ? "th" : ones == 1 ? "st" : ones == 2 ? "nd" : ones == 3 ? "rd" : "th";
  return std::to_string(n) + suffix;
}

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

void merge(Metrics& into, const Metrics& m) {
  into.expiry_drift = std::max(into.expiry_drift, m.expiry_drift);
  into.unavailability = std::max(into.unavailability, m.unavailability);
  into.longest_wait = std::max(into.longest_wait, m.longest_wait);
  into.max_overtakes = std::max(into.max_overtakes, m.max_overtakes);
  into.acquisitions += m.acquisitions;
  into.held_writes += m.held_writes;
  into.nested_acquisitions += m.nested_acquisitions;
}

// The violation an exploration looks for in a run, with its cause.
const Violation* wanted(const RunResult& r, const ExploreOptions& o) {
  for (const Violation& v : r.verdict.violations) {
    if (o.target && v.property != *o.target) continue;
    if (!o.target && !o.properties.empty() && v.property != Property::VariantError &&
        std::find(o.properties.begin(), o.properties.end(), v.property) == o.properties.end())
      continue;
    if (!o.causes.empty() && std::find(o.causes.begin(), o.causes.end(), v.cause) == o.causes.end()) continue;
    return &v;
  }
  return nullptr;
}

// A fault plan without fault i and, for a crash, without the restart that undoes it.
std::vector<sim::Fault> without_fault(const std::vector<sim::Fault>& faults, size_t i) {
  std::vector<sim::Fault> out = faults;
  if (out[i].kind == sim::FaultKind::Crash) {
    for (size_t j = i + 1; j < out.size(); ++j) {
      if (out[j].node != out[i].node) continue;
      if (out[j].kind == sim::FaultKind::Restart) out.erase(out.begin() + static_cast<std::ptrdiff_t>(j));
      break;  // the node's next fault decides
    }
  }
  out.erase(out.begin() + static_cast<std::ptrdiff_t>(i));
  return out;
}

// Whether each fault of the plan crashes a node already down, in the order the
// simulator meets them (by time; at one instant, in plan order).
std::vector<bool> idle_crashes(const std::vector<sim::Fault>& plan) {
  std::vector<size_t> order(plan.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return plan[a].at < plan[b].at; });
  std::vector<bool> idle(plan.size(), false);
  std::set<std::string> down;
  for (size_t i : order) {
    if (plan[i].kind == sim::FaultKind::Crash) idle[i] = !down.insert(plan[i].node).second;
    if (plan[i].kind == sim::FaultKind::Restart) down.erase(plan[i].node);
  }
  return idle;
}

// The scenario without any fault of one kind (a crash with its restart).
Scenario without_kind(const Scenario& s, FaultFamily kind) {
  Scenario out = s;
  auto& plan = out.faults.faults;
  lock::WorkloadParams& w = out.workload;
  auto drop = [&](auto&& pred) { std::erase_if(plan, pred); };
  auto on_client = [](const sim::Fault& f) { return client_index(f.node).has_value(); };
  switch (kind) {
    case FaultFamily::ClientCrash:
      drop([&](const sim::Fault& f) {
        return on_client(f) && (f.kind == sim::FaultKind::Crash || f.kind == sim::FaultKind::Restart);
      });
      break;
    case FaultFamily::ClientRestart:
      drop([&](const sim::Fault& f) { return on_client(f) && f.kind == sim::FaultKind::Restart; });
      break;
    case FaultFamily::Pause: drop([](const sim::Fault& f) { return f.kind == sim::FaultKind::Pause; }); break;
    case FaultFamily::SlowWork: w.slow_work.clear(); break;
    case FaultFamily::DelaySpikes: out.latency = Scenario{}.latency; break;
    case FaultFamily::Cut:
      drop([](const sim::Fault& f) { return f.kind == sim::FaultKind::Cut || f.kind == sim::FaultKind::Heal; });
      break;
    case FaultFamily::Reset: drop([](const sim::Fault& f) { return f.kind == sim::FaultKind::Reset; }); break;
    case FaultFamily::ClockSkew: w.clock_offsets.clear(); break;
    case FaultFamily::ClockDrift: w.drifts_ppm.clear(); break;
    case FaultFamily::RedisDrift: out.redis_drifts_ppm.clear(); break;
    case FaultFamily::ClockJump: drop([](const sim::Fault& f) { return f.kind == sim::FaultKind::ClockJump; }); break;
    case FaultFamily::RedisRestart:
    case FaultFamily::MasterCrash:
      drop([&](const sim::Fault& f) {
        return !on_client(f) && (f.kind == sim::FaultKind::Crash || f.kind == sim::FaultKind::Restart);
      });
      break;
    case FaultFamily::CrashAtCall:
    case FaultFamily::PauseAtCall: {
      const auto k = kind == FaultFamily::CrashAtCall ? lock::CallFault::Kind::Crash : lock::CallFault::Kind::Pause;
      std::erase_if(w.call_faults, [k](const lock::CallFault& c) { return c.kind == k; });
      break;
    }
    case FaultFamily::LostAtCall:
      std::erase_if(w.call_faults, [](const lock::CallFault& c) { return c.loses_message(); });
      break;
    case FaultFamily::DelayAtCall:
      std::erase_if(w.call_faults, [](const lock::CallFault& c) { return c.kind == lock::CallFault::Kind::Delay; });
      break;
  }
  normalize(out);
  return out;
}

// The single-step simplifications of a scenario that rapidcheck's shrinking
// cannot make, biggest first: drop a whole kind of fault, one fault (with its
// restart), one slow section, one call fault, one client's clock error, an
// iteration. `reseed`: worth retrying with a neighbouring seed (removing a
// fault shifts what the others meet).
struct Simpler {
  Scenario scenario;
  bool reseed = false;
};
std::vector<Simpler> simpler(const Scenario& s) {
  std::vector<Simpler> out;
  const std::vector<FaultFamily> kinds = kinds_in(s);
  for (FaultFamily k : kinds) out.push_back({without_kind(s, k), false});
  for (size_t i = s.faults.faults.size(); i-- > 0;) {
    Scenario t = s;
    t.faults.faults = without_fault(s.faults.faults, i);
    out.push_back({std::move(t), true});
  }
  for (size_t i = s.workload.slow_work.size(); i-- > 0;) {
    Scenario t = s;
    t.workload.slow_work.erase(t.workload.slow_work.begin() + static_cast<std::ptrdiff_t>(i));
    out.push_back({std::move(t), false});
  }
  for (size_t i = s.workload.call_faults.size(); i-- > 0;) {
    Scenario t = s;
    t.workload.call_faults.erase(t.workload.call_faults.begin() + static_cast<std::ptrdiff_t>(i));
    out.push_back({std::move(t), false});
  }
  const lock::WorkloadParams& w = s.workload;
  for (size_t c = 0; c < std::max(w.clock_offsets.size(), w.drifts_ppm.size()); ++c) {
    Scenario t = s;
    if (c < t.workload.clock_offsets.size()) t.workload.clock_offsets[c] = {};
    if (c < t.workload.drifts_ppm.size()) t.workload.drifts_ppm[c] = 0;
    normalize(t);
    if (!(t == s)) out.push_back({std::move(t), false});
  }
  if (w.iterations > 1) {
    out.push_back({s, false});
    --out.back().scenario.workload.iterations;
  }
  // A replica that is never promoted (no Redis node crashes) only receives copies:
  // the clients cannot tell it is there.
  const bool server_crash = std::any_of(s.faults.faults.begin(), s.faults.faults.end(), [](const sim::Fault& f) {
    return !client_index(f.node).has_value() && f.kind == sim::FaultKind::Crash;
  });
  if (s.replica && !server_crash) {
    Scenario t = s;
    t.replica = false;
    t.replication_lag = Scenario{}.replication_lag;
    t.failover_after = Scenario{}.failover_after;
    out.push_back({std::move(t), false});
  }
  return out;
}

// After rapidcheck's shrinking, which cannot drop a client or one fault from
// the middle of a list, try exactly that: each simplification that still
// fails is kept. Removing a client changes who draws which random numbers, so
// a few neighbouring seeds are tried for it.
void simplify(Scenario& s, const StillFails& fails, uint32_t budget, Counterexample& found) {
  auto still_fails = [&](const Scenario& candidate) {
    if (found.shrink_runs >= budget) return false;
    ++found.shrink_runs;
    std::optional<Violation> f = fails(candidate);
    if (!f) return false;
    found.violation = std::move(*f);
    return true;
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
    for (bool again = true; again && found.shrink_runs < budget;) {
      again = false;
      for (Simpler& candidate : simpler(s)) {
        for (uint64_t tweak = 0; tweak < (candidate.reseed ? 4 : 1) && !again; ++tweak) {
          Scenario t = candidate.scenario;
          t.seed += tweak;
          if (!still_fails(t)) continue;
          s = std::move(t);
          again = changed = true;
        }
        if (again) break;
      }
    }
  }
}

// How an element list names a call fault: "A's lost reply of its call 3", ...
std::string call_fault_words(const lock::CallFault& c) {
  return c.loses_message()
            ? fmt::format("{}'s lost {} of its call {}", lock::client_name(c.client),
                          c.kind == lock::CallFault::Kind::ReplyLost ? "reply" : "request", c.call)
        : c.kind == lock::CallFault::Kind::Delay
            ? fmt::format("{}'s {} delay of its {} {}", lock::client_name(c.client), sim::format_duration(c.pause),
                          c.on == lock::CallFault::On::Write ? "write" : "call", c.call)
        : c.kind == lock::CallFault::Kind::Crash
            ? fmt::format("{}'s crash before its call {}", lock::client_name(c.client), c.call)
            : fmt::format("{}'s {} pause before its call {}", lock::client_name(c.client),
                          sim::format_duration(c.pause), c.call);
}

// What fault i of a plan is, as an element.
ElementKind kind_of_fault(const std::vector<sim::Fault>& plan, size_t i) {
  const sim::Fault& f = plan[i];
  const bool client = client_index(f.node).has_value();
  switch (f.kind) {
    case sim::FaultKind::Crash: {
      if (client) return ElementKind::ClientCrash;
      const bool restarted = std::any_of(plan.begin() + static_cast<std::ptrdiff_t>(i), plan.end(), [&](const sim::Fault& r) {
        return r.kind == sim::FaultKind::Restart && r.node == f.node;
      });
      return restarted ? ElementKind::RedisRestart : ElementKind::MasterCrash;
    }
    case sim::FaultKind::Restart: return client ? ElementKind::ClientRestart : ElementKind::RedisRestart;
    case sim::FaultKind::Pause: return ElementKind::Pause;
    case sim::FaultKind::ClockJump: return client ? ElementKind::ClientClockJump : ElementKind::RedisClockJump;
    case sim::FaultKind::Cut:
    case sim::FaultKind::Heal: return ElementKind::Cut;
    case sim::FaultKind::Reset: return ElementKind::Reset;
  }
  return ElementKind::Cut;
}

ElementKind kind_of_call_fault(const lock::CallFault& c) {
  return c.loses_message()                            ? ElementKind::LostAtCall
         : c.kind == lock::CallFault::Kind::Delay ? ElementKind::DelayAtCall
         : c.kind == lock::CallFault::Kind::Crash ? ElementKind::CrashAtCall
                                                  : ElementKind::PauseAtCall;
}

}  // namespace

Scenario without_idle_crashes(const Scenario& s) {
  const std::vector<bool> idle = idle_crashes(s.faults.faults);
  if (std::find(idle.begin(), idle.end(), true) == idle.end()) return s;
  Scenario out = s;
  out.faults.faults.clear();
  for (size_t i = 0; i < idle.size(); ++i)
    if (!idle[i]) out.faults.faults.push_back(s.faults.faults[i]);
  return out;
}

// Each client clock's offset and drift, and each Redis node's drift: an element apiece.
template <typename Add>
void add_clock_elements(const Scenario& s, const Add& add) {
  const lock::WorkloadParams& w = s.workload;
  for (size_t c = 0; c < w.clock_offsets.size(); ++c) {
    Scenario t = s;
    t.workload.clock_offsets[c] = {};
    add(fmt::format("{}'s clock offset of {}", lock::client_name(static_cast<uint32_t>(c)),
                    sim::format_duration(w.clock_offsets[c])),
        std::move(t), ElementKind::ClientClockOffset);
  }
  for (size_t c = 0; c < w.drifts_ppm.size(); ++c) {
    Scenario t = s;
    t.workload.drifts_ppm[c] = 0;
    add(fmt::format("{}'s clock drift of {:+} ppm", lock::client_name(static_cast<uint32_t>(c)), w.drifts_ppm[c]),
        std::move(t), ElementKind::ClientClockDrift);
  }
  for (size_t n = 0; n < s.redis_drifts_ppm.size(); ++n) {
    Scenario t = s;
    t.redis_drifts_ppm[n] = 0;
    add(fmt::format("{}'s clock drift of {:+} ppm", lock::redis_node_name(s, static_cast<uint32_t>(n)),
                    s.redis_drifts_ppm[n]),
        std::move(t), ElementKind::RedisDrift);
  }
}

std::vector<Element> elements_of(const Scenario& s) {
  std::vector<Element> out;
  auto add = [&](std::string what, Scenario without, ElementKind kind) {
    normalize(without);
    // Without a restart, a later crash of its node finds it down: that crash goes too.
    without = without_idle_crashes(without);
    if (!(without == s)) out.push_back(Element{std::move(what), std::move(without), kind});
  };
  const auto& plan = s.faults.faults;
  for (size_t i = 0; i < plan.size(); ++i) {
    if (plan[i].kind == sim::FaultKind::Heal) continue;
    // A restart goes with its crash, but may also go alone (the node then stays down).
    Scenario t = s;
    t.faults.faults = without_fault(plan, i);
    add("'" + sim::to_string(plan[i]) + "'", std::move(t), kind_of_fault(plan, i));
  }
  const lock::WorkloadParams& w = s.workload;
  for (size_t i = 0; i < w.slow_work.size(); ++i) {
    Scenario t = s;
    t.workload.slow_work.erase(t.workload.slow_work.begin() + static_cast<std::ptrdiff_t>(i));
    add(fmt::format("{}'s {} section of {}", lock::client_name(w.slow_work[i].client),
                    ordinal(w.slow_work[i].iteration + 1), sim::format_duration(w.slow_work[i].work)),
        std::move(t), ElementKind::SlowWork);
  }
  for (size_t i = 0; i < w.call_faults.size(); ++i) {
    const lock::CallFault& c = w.call_faults[i];
    Scenario t = s;
    t.workload.call_faults.erase(t.workload.call_faults.begin() + static_cast<std::ptrdiff_t>(i));
    add(call_fault_words(c), std::move(t), kind_of_call_fault(c));
  }
  add_clock_elements(s, add);
  if (s.latency.spike_probability > 0) {
    Scenario t = s;
    t.latency = Scenario{}.latency;
    add("the delay spikes", std::move(t), ElementKind::DelaySpikes);
  }
  if (s.replica) {
    Scenario t = s;
    t.replica = false;
    t.replication_lag = Scenario{}.replication_lag;
    t.failover_after = Scenario{}.failover_after;
    add("the replica", std::move(t), ElementKind::Replica);
  }
  if (w.nested > 0) {
    Scenario t = s;
    t.workload.nested = 0;
    add("the nested acquire", std::move(t), ElementKind::Nested);
  }
  if (s.lock.explicit_lease.ns > 0) {
    Scenario t = s;
    t.lock.explicit_lease = {};
    add("the explicit lease", std::move(t), ElementKind::ExplicitLease);
  }
  // Persistence with no Redis restart to keep keys through is inert, and goes like any element.
  if (s.persistent_redis) {
    Scenario t = s;
    t.persistent_redis = false;
    add("Redis's persistence", std::move(t), ElementKind::Persistence);
  }
  for (uint32_t k = 0; k < w.clients && w.clients > 1; ++k) add("client " + lock::client_name(k), remove_client(s, k), ElementKind::Client);
  return out;
}

Scenario one_minimal(const Scenario& s, const StillFails& still_fails, Counterexample* found) {
  Scenario out = s;
  // The crashes of nodes already down go first: the simulator ignores them. A replay checks
  // it (what reads the plan, an explanation, a stated assumption, might tell them apart).
  if (Scenario idle_gone = without_idle_crashes(out); !(idle_gone == out)) {
    std::optional<Violation> v = still_fails(idle_gone);
    if (found) ++found->shrink_runs;
    if (v) {
      if (found) found->violation = std::move(*v);
      out = std::move(idle_gone);
    }
  }
  // Each pass tries every element once; a removal that still fails is kept and the
  // passes start over. Ends when no single element can go: at most one pass per element.
  for (bool removed = true; removed;) {
    removed = false;
    for (Element& e : elements_of(out)) {
      std::optional<Violation> v = still_fails(e.without);
      if (found) ++found->shrink_runs;
      if (!v) continue;
      if (found) found->violation = std::move(*v);
      out = std::move(e.without);
      removed = true;
      break;
    }
    // None goes alone: one that only timed the faults may go with them moved.
    if (!removed) removed = retimed(out, still_fails, found);
  }
  return out;
}

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

RunResult run_scenario(const Scenario& s, const CheckOptions& options) { return run_scenario(s, options, nullptr); }

RunResult run_scenario(const Scenario& s, const CheckOptions& options,
                       const std::function<void(const lock::History&)>& read) {
  Scenario quiet = s;
  quiet.record_trace = false;  // checking needs the history, not the rendered trace
  lock::Simulation sim(quiet);
  sim.run();
  RunResult r;
  const RunEnd end = run_end(sim);
  r.verdict = check(sim.history(), sim.config(), end, options);
  r.evidence = evidence_of(s, sim.history(), end.at);
  r.trace_hash = sim.trace_hash();
  r.events = sim.world().events_processed();
  if (read) read(sim.history());
  return r;
}

// rapidcheck's generators scale with a size: run i draws at size 10 + 3i, up
// to the full range at 100. Small scenarios (fewest clients, shortest times)
// come first, so the first violation found is already small.
int draw_size(uint32_t run) { return static_cast<int>(std::min<uint64_t>(100, 10 + 3 * uint64_t{run})); }

DrawSource sequence_draw(const FaultModel& model, uint64_t seed, uint32_t run) {
  uint64_t state = seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t{run} + 1));
  return DrawSource{sim::splitmix64(state), draw_size(run), drawn_inside(model, run)};
}

Scenario draw(const FaultModel& model, const DrawSource& from) {
  // The generator's scenario, drawn outside rapidcheck: no lock, no shrink tree.
  return draw_scenario(model, from.inside, rc::Random(from.random_key), from.size);
}

Scenario draw(const FaultModel& model, uint64_t seed, uint32_t run) { return draw(model, sequence_draw(model, seed, run)); }

StillFails fails_with(Property property, std::vector<Cause> causes, const CheckOptions& check,
                      ReplayCache* replays) {
  return [property, causes = std::move(causes), check, replays](const Scenario& candidate) -> std::optional<Violation> {
    std::shared_ptr<const std::vector<Violation>> cached;
    std::vector<Violation> simulated;
    if (replays)
      cached = replays->violations(candidate);
    else
      simulated = run_scenario(candidate, check).verdict.violations;
    for (const Violation& v : cached ? *cached : simulated) {
      if (v.property != property) continue;
      if (!causes.empty() && std::find(causes.begin(), causes.end(), v.cause) == causes.end()) continue;
      return v;
    }
    return std::nullopt;
  };
}

Scenario simplified(const Scenario& s, const StillFails& still_fails, uint32_t budget) {
  Counterexample scratch;
  Scenario out = s;
  simplify(out, still_fails, budget, scratch);
  return out;
}

Counterexample shrink_run(const FaultModel& model, uint64_t seed, uint32_t run, const Violation& first,
                          const StillFails& fails, uint32_t budget) {
  return shrink_drawn(model, sequence_draw(model, seed, run), run, first, fails, budget);
}

Counterexample shrink_drawn(const FaultModel& model, const DrawSource& from, uint32_t run, const Violation& first,
                            const StillFails& fails, uint32_t budget) {
  const StillFails still_fails = memoized(fails);  // a candidate met again is not run again
  Counterexample found;
  found.run = run;
  found.violation = first;
  std::optional<rc::Shrinkable<Scenario>> drawn;
  {
    std::lock_guard<std::mutex> guard(generation_lock());
    drawn.emplace(scenario_generator(model, from.inside)(rc::Random(from.random_key), from.size));
    found.original = drawn->value();
  }
  // Greedy shrinking: take the first smaller scenario that still fails the
  // same way, until none does.
  // rapidcheck's fine steps get half the budget; the big steps of simplify() the rest.
  rc::Shrinkable<Scenario> current = *drawn;
  bool improved = true;
  while (improved && found.shrink_runs < budget / 2) {
    improved = false;
    std::unique_lock<std::mutex> generating(generation_lock());
    auto children = current.shrinks();
    while (auto child = children.next()) {
      if (++found.shrink_runs > budget / 2) break;
      Scenario candidate = child->value();
      generating.unlock();
      std::optional<Violation> f = still_fails(candidate);
      generating.lock();
      if (f) {
        current = *child;
        found.violation = std::move(*f);
        improved = true;
        break;
      }
    }
  }
  found.shrunk = value_of(current);
  simplify(found.shrunk, still_fails, budget, found);
  // Whatever the budget left, the example ends 1-minimal: every element is necessary.
  found.shrunk = one_minimal(found.shrunk, still_fails, &found);
  return found;
}

Counterexample shrink_scenario(const Scenario& s, uint32_t run, const Violation& first, const StillFails& fails,
                               uint32_t budget) {
  const StillFails still_fails = memoized(fails);
  Counterexample found;
  found.run = run;
  found.violation = first;
  found.original = found.shrunk = s;
  simplify(found.shrunk, still_fails, budget, found);
  found.shrunk = one_minimal(found.shrunk, still_fails, &found);
  return found;
}

ExploreResult explore(const FaultModel& model, const ExploreOptions& options) {
  ExploreResult result;
  for (uint32_t i = 0; i < options.runs; ++i) {
    const uint32_t run = options.first_run + i * options.stride;
    const Scenario scenario = draw(model, options.seed, run);
    RunResult r = run_scenario(scenario, options.check);
    ++result.runs;
    merge(result.worst, r.verdict.metrics);
    if (options.progress) options.progress(result.runs);
    const Violation* f = wanted(r, options);
    if (f && options.inside && !broken_assumptions(scenario, *options.inside).empty()) f = nullptr;
    if (!f || !options.stop_at_violation) {
      if (!r.verdict.violations.empty()) ++result.violations_of_other_properties;
      continue;
    }
    result.worst = Metrics{};
    Counterexample found;
    if (options.shrink) {
      StillFails fails = fails_with(f->property, options.causes, options.check);
      if (options.inside)
        fails = [fails, inside = options.inside](const Scenario& candidate) -> std::optional<Violation> {
          if (!broken_assumptions(candidate, *inside).empty()) return std::nullopt;
          return fails(candidate);
        };
      found = shrink_run(model, options.seed, run, *f, fails, options.max_shrink_runs);
    } else {
      found.original = found.shrunk = scenario;
      found.run = run;
      found.violation = *f;
    }
    result.found = std::move(found);
    return result;
  }
  return result;
}

}  // namespace locksim::props
