#include "locksim/props/fault_model.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "locksim/lock/registry.hpp"
#include "locksim/props/scenario_draws.hpp"

namespace locksim::props {

std::string_view to_string(FaultFamily k) {
  switch (k) {
    case FaultFamily::ClientCrash: return "crash";
    case FaultFamily::ClientRestart: return "restart";
    case FaultFamily::Pause: return "pause";
    case FaultFamily::SlowWork: return "slow-work";
    case FaultFamily::DelaySpikes: return "delay";
    case FaultFamily::Cut: return "cut";
    case FaultFamily::Reset: return "reset";
    case FaultFamily::ClockSkew: return "skew";
    case FaultFamily::ClockDrift: return "drift";
    case FaultFamily::ClockJump: return "jump";
    case FaultFamily::RedisRestart: return "redis-restart";
    case FaultFamily::CrashAtCall: return "crash-at-call";
    case FaultFamily::PauseAtCall: return "pause-at-call";
    case FaultFamily::MasterCrash: return "master-crash";
    case FaultFamily::RedisDrift: return "redis-drift";
    case FaultFamily::LostAtCall: return "lost-at-call";
    case FaultFamily::DelayAtCall: return "delay-at-call";
  }
  return "?";
}

std::optional<FaultFamily> parse_fault_kind(std::string_view text) {
  for (FaultFamily k : kAllFaultFamilies)
    if (to_string(k) == text) return k;
  return std::nullopt;
}

std::optional<std::vector<FaultFamily>> parse_fault_kinds(std::string_view text, std::string* error) {
  std::vector<FaultFamily> kinds;
  if (text == "none" || text.empty()) return kinds;
  if (text == "all") return std::vector<FaultFamily>(std::begin(kAllFaultFamilies), std::end(kAllFaultFamilies));
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string_view word =
        text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    auto k = parse_fault_kind(word);
    if (!k) {
      if (error) {
        std::string known;
        for (FaultFamily each : kAllFaultFamilies) known += (known.empty() ? "" : ", ") + std::string(to_string(each));
        *error = fmt::format("unknown fault kind '{}' (known: {}, all, none)", word, known);
      }
      return std::nullopt;
    }
    if (std::find(kinds.begin(), kinds.end(), *k) == kinds.end()) kinds.push_back(*k);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return kinds;
}

namespace {

// Durations are drawn in whole milliseconds: shrinking toward the low end. A range
// that a short lease empties (10ms..3*lease) shrinks to its low end.
Duration ms_in(ScenarioDraws& d, int64_t lo, int64_t hi) {
  return sim::milliseconds(d.range<int64_t>(lo, std::max(lo, hi) + 1));
}
sim::Instant at_in(ScenarioDraws& d, Duration window) { return sim::Instant{} + ms_in(d, 0, window.ms()); }
uint32_t count(ScenarioDraws& d, uint32_t max) { return d.range<uint32_t>(1, max + 1); }

// Nested acquires, the algorithm's explicit-lease mode, a crowd of clients:
// drawn only when the model asks for them.
void draw_workload_extras(const FaultModel& model, Scenario& s, ScenarioDraws& d) {
  lock::WorkloadParams& w = s.workload;
  if (model.nested > 0 && d.coin()) w.nested = d.range<uint32_t>(1, model.nested + 1);
  if (model.explicit_lease_mode && d.range<int>(0, 4) == 0) s.lock.explicit_lease = s.lock.lease;
  if (model.contention && d.range<int>(0, 4) == 0) {
    w.clients = d.range<uint32_t>(4, 6);
    w.iterations = d.range<uint32_t>(3, 5);
    w.work_min = sim::milliseconds(20);
    w.work_max = sim::milliseconds(100);
    w.think_max = sim::milliseconds(50);
  }
}

// Draws a run's faults of one kind at a time into its scenario, scaled to its lease.
class FaultDrawer {
 public:
  FaultDrawer(const FaultModel& model, Scenario& s, bool inside, ScenarioDraws& draws)
      : d_(draws),
        model_(model),
        s_(s),
        inside_(inside),
        w_(s.workload),
        lease_ms_(std::max<int64_t>(s.lock.lease.ms(), 1)),
        pause_ms_(model.max_pause.ns > 0 ? std::max<int64_t>(model.max_pause.ms(), 1) : 3 * lease_ms_),
        short_pause_ms_(std::min<int64_t>(10, pause_ms_)) {}

  void add(FaultFamily kind) {
    switch (kind) {
      case FaultFamily::ClientCrash: client_crashes(); break;
      case FaultFamily::ClientRestart: break;  // drawn with the crashes
      case FaultFamily::Pause: pauses(); break;
      case FaultFamily::SlowWork: slow_work(); break;
      case FaultFamily::DelaySpikes: delay_spikes(); break;
      case FaultFamily::Cut: cuts(); break;
      case FaultFamily::Reset: resets(); break;
      case FaultFamily::ClockSkew: clock_skew(); break;
      case FaultFamily::ClockDrift: clock_drift(); break;
      case FaultFamily::ClockJump: clock_jumps(); break;
      case FaultFamily::RedisRestart: redis_restarts(); break;
      case FaultFamily::MasterCrash: master_crash(); break;
      case FaultFamily::RedisDrift: redis_drift(); break;
      case FaultFamily::CrashAtCall: call_faults(lock::CallFault::Kind::Crash); break;
      case FaultFamily::PauseAtCall: call_faults(lock::CallFault::Kind::Pause); break;
      case FaultFamily::LostAtCall: lost_calls(); break;
      case FaultFamily::DelayAtCall: delayed_calls(); break;
    }
  }

 private:
  uint32_t client() { return d_.range<uint32_t>(0, w_.clients); }
  // A Redis master, by name ("redis", or "redis1".."redisN").
  // Whether this draw stays inside an assumption that is in force (always, if it is not):
  // always in a run drawn inside, else three times in four.
  // (Drawn so that rapidcheck's shrinking, toward 0 and false, moves a draw inside.)
  bool inside_bound(bool in_force) { return !in_force || inside_ || d_.range<int>(0, 4) != 3; }
  // Whether a flag in force (a durable Redis, sane clocks, no failover, Redis up) holds in
  // this draw: in a run drawn inside, yes; in the others it does not shape the draws, so
  // that they show the deployment's exposure as if nothing were assumed.
  bool inside_flag(bool in_force) const { return inside_ && in_force; }
  // A size of a bounded kind: inside the bound [lo, bound] or beyond it (bound, max(hi, 2 bound)];
  // without a bound, [lo, hi].
  Duration bounded(int64_t lo, int64_t hi, const std::optional<Duration>& bound) {
    if (!bound) return ms_in(d_, lo, hi);
    const int64_t b = std::max<int64_t>(bound->ms(), 1);
    if (inside_bound(true)) return ms_in(d_, std::min(lo, b / 2), b);
    return ms_in(d_, b + 1, std::max(hi, 2 * b));
  }
  std::string master() { return lock::redis_node_name(s_, d_.range<uint32_t>(0, s_.masters)); }
  static std::string name(uint32_t c) { return lock::client_name(c); }
  void push(sim::Fault f) { s_.faults.faults.push_back(std::move(f)); }

  void client_crashes() {
    const bool restart =
        std::find(model_.kinds.begin(), model_.kinds.end(), FaultFamily::ClientRestart) != model_.kinds.end();
    for (uint32_t i = count(d_, model_.max_faults); i > 0; --i) {
      uint32_t c = client();
      sim::Instant at = at_in(d_, model_.window);
      push({sim::FaultKind::Crash, name(c), "", at, {}});
      if (restart && d_.coin())
        push({sim::FaultKind::Restart, name(c), "", at + ms_in(d_, 1, 2 * lease_ms_), {}});
    }
  }
  void pauses() {
    for (uint32_t i = count(d_, model_.max_faults); i > 0; --i)
      push({sim::FaultKind::Pause, name(client()), "", at_in(d_, model_.window),
            bounded(short_pause_ms_, pause_ms_, model_.assumed.max_pause)});
  }
  void slow_work() {
    for (uint32_t i = count(d_, model_.max_faults); i > 0; --i)
      w_.slow_work.push_back(
          {client(), d_.range<uint32_t>(0, w_.iterations),
           bounded(lease_ms_ / 2, 3 * lease_ms_, model_.assumed.max_work)});
  }
  void delay_spikes() {
    s_.latency.spike_probability = d_.range<int>(1, 31) / 100.0;
    s_.latency.spike_scale = ms_in(d_, 1, 50);
    s_.latency.spike_alpha = 1.5;
    // A message takes base + jitter + spike: the bound caps the whole.
    std::optional<Duration> cap_bound = model_.assumed.max_delay;
    if (cap_bound)
      *cap_bound = std::max(sim::milliseconds(1), *cap_bound - s_.latency.base - s_.latency.jitter);
    s_.latency.spike_cap = bounded(50, 2 * lease_ms_, cap_bound);
  }
  // A cut loses the messages it catches (sim/network.hpp): as a lost call, beyond any bound
  // on delay, so the draws inside that bound cut nothing.
  void cuts() {
    for (uint32_t i = count(d_, model_.max_faults); i > 0; --i) {
      const std::string from = name(client()), to = master();
      const sim::Instant at = at_in(d_, model_.window);
      const Duration length = ms_in(d_, 10, 3 * lease_ms_);
      if (model_.assumed.max_delay && inside_bound(true)) continue;
      push({sim::FaultKind::Cut, from, to, at, length});
    }
  }
  void resets() {
    for (uint32_t i = count(d_, model_.max_faults); i > 0; --i)
      push({sim::FaultKind::Reset, name(client()), master(), at_in(d_, model_.window), {}});
  }
  void clock_skew() {
    w_.clock_offsets.resize(w_.clients);
    w_.drifts_ppm.resize(w_.clients);
    for (uint32_t c = 0; c < w_.clients; ++c) {
      const auto& bound = model_.assumed.max_clock_error;
      w_.clock_offsets[c] = bound ? bounded(0, 2 * lease_ms_, bound) : ms_in(d_, 0, 2 * lease_ms_);
      if (d_.coin()) w_.clock_offsets[c] = -w_.clock_offsets[c];
    }
  }
  void clock_drift() {
    w_.clock_offsets.resize(w_.clients);
    w_.drifts_ppm.resize(w_.clients);
    for (uint32_t c = 0; c < w_.clients; ++c) {
      const bool sane = inside_flag(model_.assumed.sane_client_clock);
      int64_t ppm = d_.range<int64_t>(0, (sane ? kSaneDriftPpm : 200'000) + 1);
      w_.drifts_ppm[c] = d_.coin() ? -ppm : ppm;
    }
  }
  void clock_jumps() {
    for (uint32_t i = count(d_, model_.max_faults); i > 0; --i) {
      const bool on_redis = model_.redis_clock_jumps && d_.coin();
      std::string node = on_redis ? master() : name(client());
      const Assumptions& a = model_.assumed;
      Duration by = on_redis || !a.max_clock_error ? ms_in(d_, 0, 3 * lease_ms_) : bounded(0, 3 * lease_ms_, a.max_clock_error);
      if (d_.coin()) by = -by;
      // A clock assumed sane does not jump, in the runs drawn inside the assumption.
      if (inside_flag(on_redis ? a.sane_redis_clock : a.sane_client_clock)) continue;
      push({sim::FaultKind::ClockJump, node, "", at_in(d_, model_.window), by});
    }
  }
  void redis_restarts() {
    if (inside_flag(model_.assumed.durable_redis)) s_.persistent_redis = true;
    for (uint32_t i = count(d_, model_.max_faults); i > 0; --i) {
      sim::Instant at = at_in(d_, model_.window);
      std::string node = master();
      push({sim::FaultKind::Crash, node, "", at, {}});
      const int64_t down_ms = model_.max_downtime.ns > 0 ? model_.max_downtime.ms() : 2 * lease_ms_;
      // While down it answers no one: a delay bound bounds the downtime too.
      push({sim::FaultKind::Restart, node, "", at + bounded(1, down_ms, model_.assumed.max_delay), {}});
    }
  }
  void master_crash() {
    // One master dying for good is an outage, not a safety question, unless a replica takes over.
    const bool brings_replica = model_.failover_on_master_crash && s_.masters == 1 && !s_.replica;
    // How late the replica hears of writes and how soon it is promoted decide whether a
    // hold is lost (F17): drawn, like every other fault's size, unless pinned. A replica
    // of the base scenario keeps the base's timing unless the model gives ranges.
    const Duration base_lag = s_.replication_lag, base_failover = s_.failover_after;
    if (brings_replica || (s_.replica && model_.lag_max.ns > 0))
      s_.replication_lag = in(model_.lag_min, model_.lag_max, sim::milliseconds(1), sim::milliseconds(100));
    if (brings_replica || (s_.replica && model_.failover_max.ns > 0))
      s_.failover_after = in(model_.failover_min, model_.failover_max, sim::milliseconds(50),
                             sim::milliseconds(std::max<int64_t>(50, lease_ms_)));
    if (brings_replica) s_.replica = true;
    const sim::Instant at = at_in(d_, model_.window);
    // No failover assumed: in the runs inside it, no replica is promoted (and a master
    // that dies for good is an outage, not a question this check asks).
    if (s_.replica && inside_flag(model_.assumed.no_failover)) {
      // The replica it brought goes, and with it its timing: a line that names a lag and a
      // failover for a deployment without a replica reads as if they mattered.
      if (brings_replica) s_.replica = false, s_.replication_lag = base_lag, s_.failover_after = base_failover;
      return;
    }
    // A Redis assumed up comes back: without a replica to answer, a master that dies for
    // good is outside it, so the runs drawn inside keep their masters.
    const std::string node = master();
    if (!s_.replica && inside_flag(model_.assumed.redis_up)) return;
    push({sim::FaultKind::Crash, node, "", at, {}});
  }
  // A duration in [lo, hi] (whole milliseconds), or in [dlo, dhi] when hi is zero.
  Duration in(Duration lo, Duration hi, Duration dlo, Duration dhi) {
    // Always one draw, so that pinning a value leaves the rest of the scenario as drawn.
    if (hi.ns <= 0) return ms_in(d_, dlo.ms(), dhi.ms());
    if (lo == hi) return (void)ms_in(d_, 0, 0), lo;  // keeps sub-millisecond pins exact
    return ms_in(d_, lo.ms(), hi.ms());
  }
  // Each master's own rate; the replica keeps true time. Drawn as client drifts are.
  void redis_drift() {
    s_.redis_drifts_ppm.resize(s_.masters);
    for (int64_t& drift : s_.redis_drifts_ppm) {
      const bool sane = inside_flag(model_.assumed.sane_redis_clock);
      const int64_t ppm = d_.range<int64_t>(0, (sane ? kSaneDriftPpm : 200'000) + 1);
      drift = d_.coin() ? -ppm : ppm;
    }
  }
  // One fault at most per call (or write) of a client: two on one call would act as one
  // (two delays add up, a crash before it leaves nothing for the other) while the line,
  // the cause and the shrinker would count two. A draw for a call already struck is
  // dropped, its choices still made, so that the rest of the scenario stays as drawn.
  void push_call_fault(const lock::CallFault& f) {
    const bool taken = std::any_of(w_.call_faults.begin(), w_.call_faults.end(), [&](const lock::CallFault& g) {
      return g.client == f.client && g.call == f.call && g.on == f.on;
    });
    if (!taken) w_.call_faults.push_back(f);
  }
  void call_faults(lock::CallFault::Kind kind) {
    for (uint32_t i = count(d_, model_.max_faults); i > 0; --i) {
      if (kind == lock::CallFault::Kind::Crash)
        push_call_fault({client(), d_.range<uint32_t>(1, model_.max_call + 1), lock::CallFault::Kind::Crash, {}});
      else
        push_call_fault({client(), d_.range<uint32_t>(1, model_.max_call + 1), lock::CallFault::Kind::Pause,
                         bounded(short_pause_ms_, pause_ms_, model_.assumed.max_pause)});
    }
  }

  // A command whose request or reply the network loses: a fault of the network, as a
  // cut is, so beyond a bound on delay (no message arrives within any bound); the draws
  // inside that bound lose nothing.
  void lost_calls() {
    for (uint32_t i = count(d_, model_.max_faults); i > 0; --i) {
      const uint32_t c = client(), n = d_.range<uint32_t>(1, model_.max_call + 1);
      const bool reply = d_.coin();
      if (model_.assumed.max_delay && inside_bound(true)) continue;
      push_call_fault({c, n, reply ? lock::CallFault::Kind::ReplyLost : lock::CallFault::Kind::RequestLost, {}});
    }
  }

  // One message held in flight longer than its latency: half the draws a command's request
  // (1..max_call), half a write to the resource (1..iterations; none if the workload does
  // not write). A network fault, as spikes are: inside a delay bound the message's whole
  // flight, latency and delay, keeps to it.
  void delayed_calls() {
    std::optional<Duration> bound = model_.assumed.max_delay;
    if (bound) *bound = std::max(sim::milliseconds(1), *bound - s_.latency.base - s_.latency.jitter);
    for (uint32_t i = count(d_, model_.max_faults); i > 0; --i) {
      const uint32_t c = client();
      const bool write = w_.write_resource && d_.coin();
      const uint32_t n = write ? d_.range<uint32_t>(1, w_.iterations + 1) : d_.range<uint32_t>(1, model_.max_call + 1);
      const Duration held = bounded(short_pause_ms_, pause_ms_, bound);
      push_call_fault(lock::CallFault{c, n, lock::CallFault::Kind::Delay, held,
                                      write ? lock::CallFault::On::Write : lock::CallFault::On::Call});
    }
  }

  ScenarioDraws& d_;
  const FaultModel& model_;
  Scenario& s_;
  const bool inside_;  // drawn wholly inside the assumptions in force
  lock::WorkloadParams& w_;
  const int64_t lease_ms_, pause_ms_, short_pause_ms_;
};

}  // namespace

// A variant's own parameters with a range, unless the command line set them.
static void draw_variant_params(Scenario& s, ScenarioDraws& d) {
  const lock::Algorithm* a = lock::find_algorithm(s.algorithm);
  if (!a) return;
  for (const lock::VariantParam& p : a->own_params)
    if (p.min && !s.lock.custom.count(p.name)) {
      const std::string value = lock::drawn_value(p, d.range<int>(0, 1001) / 1000.0);
      if (value != p.default_value) s.lock.custom[p.name] = value;
    }
}

bool drawn_inside(const FaultModel& model, uint32_t run) {
  return run % 2 == 0 && !assumption_words(model.assumed).empty();
}

// One scenario, each choice taken from `d` (rapidcheck's or made directly: ScenarioDraws).
static Scenario drawn_scenario(const FaultModel& model, bool inside, ScenarioDraws& d) {
  Scenario s = model.base;
  lock::WorkloadParams& w = s.workload;
  s.seed = d.range<uint64_t>(0, 1'000'000);
  w.clients = d.range<uint32_t>(model.min_clients, model.max_clients + 1);
  w.iterations = d.range<uint32_t>(1, model.max_iterations + 1);
  draw_workload_extras(model, s, d);
  draw_variant_params(s, d);
  if (const auto& bound = model.assumed.max_work; bound && w.work_max > *bound) {
    // Every section of the assumed world fits the bound; only slow work goes beyond it.
    w.work_max = *bound;
    w.work_min = std::min(w.work_min, w.work_max);
  }
  FaultDrawer faults(model, s, inside, d);
  // Swarm: a kind is on or off for the whole run; shrinking turns kinds off.
  // When every kind came out off, one is turned on: a fault model's run
  // always meets some fault (a one-kind model would otherwise run half its
  // scenarios fault-free). Drawn last, so the other scenarios stay as they were.
  bool any_on = false;
  for (FaultFamily kind : model.kinds) {
    if (model.swarm && !d.coin()) continue;
    any_on = any_on || kind != FaultFamily::ClientRestart;
    faults.add(kind);
  }
  std::vector<FaultFamily> drawable;
  for (FaultFamily kind : model.kinds)
    if (kind != FaultFamily::ClientRestart) drawable.push_back(kind);
  if (!any_on && !drawable.empty()) faults.add(drawable[d.range<size_t>(0, drawable.size())]);
  // Faults apply in time order; a stable order also keeps the printed plan readable.
  std::stable_sort(s.faults.faults.begin(), s.faults.faults.end(),
                   [](const sim::Fault& a, const sim::Fault& b) { return a.at < b.at; });
  normalize(s);
  return s;
}

rc::Gen<Scenario> scenario_generator(const FaultModel& model, bool inside) {
  return rc::gen::exec([model, inside]() {
    ScenarioDraws rapidchecks;
    return drawn_scenario(model, inside, rapidchecks);
  });
}

Scenario draw_scenario(const FaultModel& model, bool inside, const rc::Random& random, int size) {
  ScenarioDraws direct(random, size);
  return drawn_scenario(model, inside, direct);
}

std::vector<FaultFamily> kinds_in(const Scenario& s) {
  std::vector<FaultFamily> found;
  auto add = [&](FaultFamily k) {
    if (std::find(found.begin(), found.end(), k) == found.end()) found.push_back(k);
  };
  const auto& plan = s.faults.faults;
  for (size_t i = 0; i < plan.size(); ++i) {
    const sim::Fault& f = plan[i];
    const bool client = client_index(f.node).has_value();
    switch (f.kind) {
      case sim::FaultKind::Crash: {
        if (client) {
          add(FaultFamily::ClientCrash);
          break;
        }
        const bool restarted =
            std::any_of(plan.begin() + static_cast<std::ptrdiff_t>(i), plan.end(),
                        [&](const sim::Fault& r) { return r.kind == sim::FaultKind::Restart && r.node == f.node; });
        add(restarted ? FaultFamily::RedisRestart : FaultFamily::MasterCrash);
        break;
      }
      case sim::FaultKind::Restart:
        if (client) add(FaultFamily::ClientRestart);
        break;
      case sim::FaultKind::Pause: add(FaultFamily::Pause); break;
      case sim::FaultKind::ClockJump: add(FaultFamily::ClockJump); break;
      case sim::FaultKind::Cut:
      case sim::FaultKind::Heal: add(FaultFamily::Cut); break;
      case sim::FaultKind::Reset: add(FaultFamily::Reset); break;
    }
  }
  const lock::WorkloadParams& w = s.workload;
  if (!w.slow_work.empty()) add(FaultFamily::SlowWork);
  if (s.latency.spike_probability > 0) add(FaultFamily::DelaySpikes);
  if (std::any_of(w.clock_offsets.begin(), w.clock_offsets.end(), [](Duration d) { return d.ns != 0; }))
    add(FaultFamily::ClockSkew);
  if (std::any_of(w.drifts_ppm.begin(), w.drifts_ppm.end(), [](int64_t d) { return d != 0; }))
    add(FaultFamily::ClockDrift);
  if (std::any_of(s.redis_drifts_ppm.begin(), s.redis_drifts_ppm.end(), [](int64_t d) { return d != 0; }))
    add(FaultFamily::RedisDrift);
  for (const auto& c : w.call_faults)
    add(c.loses_message()                            ? FaultFamily::LostAtCall
        : c.kind == lock::CallFault::Kind::Delay ? FaultFamily::DelayAtCall
        : c.kind == lock::CallFault::Kind::Crash ? FaultFamily::CrashAtCall
                                                 : FaultFamily::PauseAtCall);
  std::vector<FaultFamily> ordered;
  for (FaultFamily k : kAllFaultFamilies)
    if (std::find(found.begin(), found.end(), k) != found.end()) ordered.push_back(k);
  return ordered;
}

}  // namespace locksim::props
