#include "locksim/props/shrink_retime.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "locksim/lock/simulation.hpp"

namespace locksim::props {

namespace {

using sim::Duration;
using sim::Instant;


// How an element's own clock moved an instant: T + sign * (offset + T * ppm / 1e6)
// (a slow section: its work, ppm 0).
struct Effect {
  Duration offset{};
  int64_t ppm = 0;
  // What it adds to an instant or a span of `ns` (exact: no overflow before the division).
  Duration on(int64_t ns) const { return offset + Duration{ns / 1'000'000 * ppm + ns % 1'000'000 * ppm / 1'000'000}; }
};

// An element that may only time the faults: the scenario without it, whose faults it
// moved (one client's, or every client's), and its own effect on an instant.
struct TimingElement {
  Scenario without;
  std::optional<uint32_t> client;
  std::optional<Effect> effect;
};

std::vector<TimingElement> timing_elements(const Scenario& s) {
  std::vector<TimingElement> out;
  auto add = [&](Scenario without, std::optional<uint32_t> client, std::optional<Effect> effect) {
    normalize(without);
    if (!(without == s)) out.push_back({std::move(without), client, effect});
  };
  const lock::WorkloadParams& w = s.workload;
  for (uint32_t c = 0; c < w.clock_offsets.size(); ++c) {
    Scenario t = s;
    t.workload.clock_offsets[c] = {};
    add(std::move(t), c, Effect{w.clock_offsets[c], 0});
  }
  for (uint32_t c = 0; c < w.drifts_ppm.size(); ++c) {
    Scenario t = s;
    t.workload.drifts_ppm[c] = 0;
    add(std::move(t), c, Effect{{}, w.drifts_ppm[c]});
  }
  for (size_t n = 0; n < s.redis_drifts_ppm.size(); ++n) {
    Scenario t = s;
    t.redis_drifts_ppm[n] = 0;
    add(std::move(t), std::nullopt, Effect{{}, s.redis_drifts_ppm[n]});
  }
  for (size_t i = 0; i < w.slow_work.size(); ++i) {
    Scenario t = s;
    t.workload.slow_work.erase(t.workload.slow_work.begin() + static_cast<std::ptrdiff_t>(i));
    add(std::move(t), w.slow_work[i].client, Effect{w.slow_work[i].work, 0});
  }
  if (s.latency.spike_probability > 0) {
    Scenario t = s;
    t.latency = Scenario{}.latency;
    add(std::move(t), std::nullopt, std::nullopt);
  }
  return out;
}

bool moved_by(const TimingElement& e, const sim::Fault& f) {
  const std::optional<uint32_t> c = client_index(f.node);
  return c && (!e.client || *c == *e.client);
}

// Instants a candidate prints: whole microseconds, never before the start.
Instant tidy(Instant t) {
  const int64_t us = (std::max<int64_t>(t.ns, 0) + 500) / 1000;
  return Instant{us * 1000};
}

// `without` with each fault the element moved placed at `at(fault)`, in time order.
template <class At>
Scenario with_faults_at(const TimingElement& e, At&& at) {
  Scenario out = e.without;
  for (sim::Fault& f : out.faults.faults)
    if (moved_by(e, f)) f.at = tidy(at(f));
  std::stable_sort(out.faults.faults.begin(), out.faults.faults.end(),
                   [](const sim::Fault& a, const sim::Fault& b) { return a.at < b.at; });
  normalize(out);
  return out;
}

// What a run shows of a client's progress: the instants of its own steps (and of its
// commands' effects on the keys), not the steps a fault made (a crash, a pause).
std::vector<Instant> steps_of(const lock::History& h, uint32_t client) {
  std::vector<Instant> out;
  for (const lock::HistoryEvent& e : h.events()) {
    if (e.client != client) continue;
    using lock::Step;
    if (e.step == Step::Crashed || e.step == Step::Restarted || e.step == Step::Paused || e.step == Step::Resumed)
      continue;
    out.push_back(e.at);
  }
  return out;
}

// The run of a scenario: its history and, when `trace`, the simulator's trace.
struct Run {
  lock::History history;
  std::vector<sim::TraceEvent> trace;
  std::vector<sim::NodeId> clients;  // node of each client
  sim::NodeId store = sim::kNoNode;
};

Run run_of(const Scenario& s, bool trace) {
  Scenario quiet = s;
  quiet.record_trace = trace;
  lock::Simulation sim(quiet);
  sim.run();
  Run r{sim.history(), {}, {}, sim.world().find_node("store")};
  if (trace) r.trace = sim.world().trace().events();
  for (uint32_t c = 0; c < s.workload.clients; ++c) r.clients.push_back(sim.world().find_node(lock::client_name(c)));
  return r;
}

// The steps a fault is placed against: those of the element's client (its clock or its
// slow section moved them); for an element of every client (the spikes, a Redis clock),
// those of the fault's own client, or of every client for a fault elsewhere.
std::vector<Instant> reference_steps(const lock::History& h, const TimingElement& e, const sim::Fault& f) {
  if (e.client) return steps_of(h, *e.client);
  if (const std::optional<uint32_t> c = client_index(f.node)) return steps_of(h, *c);
  std::vector<Instant> out;
  for (uint32_t c = 0; c < h.clients().size(); ++c) {
    const std::vector<Instant> mine = steps_of(h, c);
    out.insert(out.end(), mine.begin(), mine.end());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Where a fault at `at` lands in the run without the element (`is`), kept as long after
// the reference step before it as in the run with it (`was`), but before the next one.
Instant placed(Instant at, const std::vector<Instant>& was, const std::vector<Instant>& is) {
  const size_t k = static_cast<size_t>(std::upper_bound(was.begin(), was.end(), at) - was.begin());
  if (k == 0 || is.size() < k) return at;  // before any step, or a step that no longer comes
  const Instant moved = is[k - 1] + (at - was[k - 1]);
  return is.size() > k && moved >= is[k] ? is[k - 1] + (is[k] - is[k - 1]) / 2 : moved;
}

// Candidate 1: every fault placed against the reference steps, in the run without the
// element and without any fault (`base`): where those steps are unmoved by the faults.
// A node's faults keep their order (a restart stays after its crash).
Scenario relative_to_steps(const TimingElement& e, const Run& now) {
  Scenario bare = e.without;
  bare.faults.faults.clear();
  const Run base = run_of(bare, false);
  Scenario out = e.without;
  std::map<std::string, std::pair<Instant, Instant>> last;  // node -> (was, is) of its previous fault
  for (sim::Fault& f : out.faults.faults) {
    Instant at = tidy(placed(f.at, reference_steps(now.history, e, f), reference_steps(base.history, e, f)));
    if (auto it = last.find(f.node); it != last.end() && at < it->second.second)
      at = it->second.second + (f.at - it->second.first);
    last[f.node] = {f.at, at};
    f.at = at;
  }
  std::stable_sort(out.faults.faults.begin(), out.faults.faults.end(),
                   [](const sim::Fault& a, const sim::Fault& b) { return a.at < b.at; });
  normalize(out);
  return out;
}

// The number of commands client `c` had sent before `t` (its writes to the store apart).
uint32_t calls_before(const Run& r, uint32_t c, Instant t) {
  std::map<int64_t, sim::NodeId> server_of;  // connection -> the node that ran its calls
  for (const sim::TraceEvent& x : r.trace)
    if (x.kind == sim::TraceKind::CallExecuted) server_of.emplace(x.connection(), x.node);
  uint32_t n = 0;
  for (const sim::TraceEvent& x : r.trace) {
    if (x.at >= t) break;
    if (x.kind != sim::TraceKind::CallSent || x.node != r.clients[c]) continue;
    auto it = server_of.find(x.connection());
    if (it == server_of.end() || it->second != r.store) ++n;
  }
  return n;
}

// Candidate 3: the moved crashes and pauses aimed at the call their client was about to
// send, instead of at an instant.
Scenario at_next_call(const TimingElement& e, const Run& now) {
  Scenario out = e.without;
  std::vector<sim::Fault> kept;
  for (const sim::Fault& f : out.faults.faults) {
    const bool timed = f.kind == sim::FaultKind::Crash || f.kind == sim::FaultKind::Pause;
    if (!moved_by(e, f) || !timed) {
      kept.push_back(f);
      continue;
    }
    const uint32_t c = *client_index(f.node);
    lock::CallFault cf{c, calls_before(now, c, f.at) + 1, lock::CallFault::Kind::Crash, {}, lock::CallFault::On::Call};
    if (f.kind == sim::FaultKind::Pause) {
      cf.kind = lock::CallFault::Kind::Pause;
      cf.pause = f.amount;
    }
    if (std::find(out.workload.call_faults.begin(), out.workload.call_faults.end(), cf) ==
        out.workload.call_faults.end())
      out.workload.call_faults.push_back(cf);
  }
  out.faults.faults = std::move(kept);
  normalize(out);
  return out;
}

// Candidate 4: how long the faults last — a pause, a call held in flight — lengthened
// (sign 1) or shortened by the element's effect over them: the spans a removed clock or
// slow section made long enough. Every client's, since another's lease or wait
// may be what the element timed; never below a microsecond.
Scenario with_spans(const TimingElement& e, int64_t sign) {
  Scenario out = e.without;
  auto span = [&](Duration d) {
    return Duration{std::max<int64_t>(tidy(Instant{(d + e.effect->on(d.ns) * sign).ns}).ns, 1000)};
  };
  for (sim::Fault& f : out.faults.faults)
    if (f.kind == sim::FaultKind::Pause) f.amount = span(f.amount);
  for (lock::CallFault& c : out.workload.call_faults)
    if (c.kind == lock::CallFault::Kind::Pause || c.kind == lock::CallFault::Kind::Delay) c.pause = span(c.pause);
  normalize(out);
  return out;
}

// Candidate 5: the faults aimed at the element's client's calls (its every client's, for
// the spikes or a Redis clock) aimed `by` calls later: which call of a renewal loop or a
// retry loop a fault meets is what a clock or a slow section moves.
Scenario calls_shifted(const TimingElement& e, int64_t by) {
  Scenario out = e.without;
  for (lock::CallFault& c : out.workload.call_faults)
    if ((!e.client || c.client == *e.client) && c.call + by >= 1) c.call = static_cast<uint32_t>(c.call + by);
  normalize(out);
  return out;
}

// The candidates of one element, in order, without repeats and without its plain removal.
std::vector<Scenario> candidates_of(const TimingElement& e, const Run& now) {
  std::vector<Scenario> out;
  auto add = [&](Scenario t) {
    if (t == e.without || std::find(out.begin(), out.end(), t) != out.end()) return;
    out.push_back(std::move(t));
  };
  add(relative_to_steps(e, now));
  if (e.effect)
    for (int64_t sign : {1, -1})
      add(with_faults_at(e, [&](const sim::Fault& f) { return f.at + e.effect->on(f.at.ns) * sign; }));
  add(at_next_call(e, now));
  if (e.effect)
    for (int64_t sign : {1, -1}) add(with_spans(e, sign));
  for (int64_t by : {1, -1}) add(calls_shifted(e, by));
  return out;
}

// Hands `take` each element's candidates in turn, until it says stop. The run of `s`
// (its trace too, for the calls) is made once, only if some element has faults to move.
template <class Take>
void each_candidate(const Scenario& s, Take&& take) {
  if (s.faults.empty() && s.workload.call_faults.empty()) return;  // nothing to move: plain removals are all
  std::optional<Run> now;
  for (const TimingElement& e : timing_elements(s)) {
    if (!now) now = run_of(s, true);
    for (Scenario& t : candidates_of(e, *now))
      if (!take(std::move(t))) return;
  }
}

}  // namespace

std::vector<Scenario> retimings(const Scenario& s) {
  std::vector<Scenario> out;
  each_candidate(s, [&](Scenario t) {
    out.push_back(std::move(t));
    return true;
  });
  return out;
}

bool retimed(Scenario& s, const StillFails& still_fails, Counterexample* found) {
  bool replaced = false;
  each_candidate(s, [&](Scenario t) {
    std::optional<Violation> v = still_fails(t);
    if (found) ++found->shrink_runs;
    if (!v) return true;
    if (found) found->violation = std::move(*v);
    s = std::move(t);
    replaced = true;
    return false;
  });
  return replaced;
}

}  // namespace locksim::props
