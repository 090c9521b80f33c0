#include "locksim/props/shrink_retime.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include "locksim/lock/simulation.hpp"

namespace locksim::props {

namespace {

using sim::Duration;
using sim::Instant;

// A fault at an instant on a client: what a timing element may have moved.
bool on_a_client(const sim::Fault& f) { return client_index(f.node).has_value(); }

// How an element's own clock moved an instant: T + sign * (offset + T * ppm / 1e6)
// (a slow section: its work, ppm 0).
struct Effect {
  Duration offset{};
  int64_t ppm = 0;
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

// Candidate 1: each client's moved faults shifted together, so that its first one is as
// long after the client's last step before it as it was in `now` — in the run without
// the element and without those faults (`base`) — but before the step that followed.
Scenario relative_to_steps(const Scenario& s, const TimingElement& e, const Run& now) {
  Scenario bare = e.without;
  std::erase_if(bare.faults.faults, [&](const sim::Fault& f) { return moved_by(e, f); });
  const Run base = run_of(bare, false);
  std::map<uint32_t, Duration> shift;  // by client; ordered, looked up only
  for (const sim::Fault& f : s.faults.faults) {
    if (!moved_by(e, f) || shift.count(*client_index(f.node))) continue;
    const uint32_t c = *client_index(f.node);
    const std::vector<Instant> was = steps_of(now.history, c), is = steps_of(base.history, c);
    const size_t k = static_cast<size_t>(std::upper_bound(was.begin(), was.end(), f.at) - was.begin());
    Duration d{};
    if (k > 0 && is.size() >= k) {
      d = is[k - 1] - was[k - 1];
      if (is.size() > k && f.at + d >= is[k]) d = (is[k - 1] + (is[k] - is[k - 1]) / 2) - f.at;
    }
    shift[c] = d;
  }
  return with_faults_at(e, [&](const sim::Fault& f) { return f.at + shift[*client_index(f.node)]; });
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

// The candidates of one element, in order, without repeats and without its plain removal.
std::vector<Scenario> candidates_of(const Scenario& s, const TimingElement& e, const Run& now) {
  std::vector<Scenario> out;
  auto add = [&](Scenario t) {
    if (t == e.without || std::find(out.begin(), out.end(), t) != out.end()) return;
    out.push_back(std::move(t));
  };
  add(relative_to_steps(s, e, now));
  if (e.effect)
    for (int64_t sign : {1, -1})
      add(with_faults_at(e, [&](const sim::Fault& f) {
        const Duration moved = e.effect->offset + Duration{f.at.ns / 1'000'000 * e.effect->ppm +
                                                           f.at.ns % 1'000'000 * e.effect->ppm / 1'000'000};
        return f.at + moved * sign;
      }));
  add(at_next_call(e, now));
  return out;
}

bool moves_a_fault(const Scenario& s, const TimingElement& e) {
  return std::any_of(s.faults.faults.begin(), s.faults.faults.end(),
                     [&](const sim::Fault& f) { return on_a_client(f) && moved_by(e, f); });
}

}  // namespace

std::vector<Scenario> retimings(const Scenario& s) {
  std::vector<Scenario> out;
  std::optional<Run> now;
  for (const TimingElement& e : timing_elements(s)) {
    if (!moves_a_fault(s, e)) continue;  // nothing to slide: its plain removal is all there is
    if (!now) now = run_of(s, true);
    for (Scenario& t : candidates_of(s, e, *now)) out.push_back(std::move(t));
  }
  return out;
}

bool retimed(Scenario& s, const StillFails& still_fails, Counterexample* found) {
  std::optional<Run> now;
  for (const TimingElement& e : timing_elements(s)) {
    if (!moves_a_fault(s, e)) continue;
    if (!now) now = run_of(s, true);
    for (Scenario& t : candidates_of(s, e, *now)) {
      std::optional<Violation> v = still_fails(t);
      if (found) ++found->shrink_runs;
      if (!v) continue;
      if (found) found->violation = std::move(*v);
      s = std::move(t);
      return true;
    }
  }
  return false;
}

}  // namespace locksim::props
