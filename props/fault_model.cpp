#include "locksim/props/fault_model.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace locksim::props {

std::string_view to_string(FaultKind k) {
  switch (k) {
    case FaultKind::ClientCrash: return "crash";
    case FaultKind::ClientRestart: return "restart";
    case FaultKind::Pause: return "pause";
    case FaultKind::SlowWork: return "slow-work";
    case FaultKind::DelaySpikes: return "delay";
    case FaultKind::Cut: return "cut";
    case FaultKind::Reset: return "reset";
    case FaultKind::ClockSkew: return "skew";
    case FaultKind::ClockDrift: return "drift";
    case FaultKind::ClockJump: return "jump";
    case FaultKind::RedisRestart: return "redis-restart";
    case FaultKind::CrashAtCall: return "crash-at-call";
    case FaultKind::PauseAtCall: return "pause-at-call";
    case FaultKind::MasterCrash: return "master-crash";
    case FaultKind::RedisDrift: return "redis-drift";
  }
  return "?";
}

std::optional<FaultKind> parse_fault_kind(std::string_view text) {
  for (FaultKind k : kAllFaultKinds)
    if (to_string(k) == text) return k;
  return std::nullopt;
}

std::optional<std::vector<FaultKind>> parse_fault_kinds(std::string_view text, std::string* error) {
  std::vector<FaultKind> kinds;
  if (text == "none" || text.empty()) return kinds;
  if (text == "all") return std::vector<FaultKind>(std::begin(kAllFaultKinds), std::end(kAllFaultKinds));
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string_view word =
        text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    auto k = parse_fault_kind(word);
    if (!k) {
      if (error) {
        std::string known;
        for (FaultKind each : kAllFaultKinds) known += (known.empty() ? "" : ", ") + std::string(to_string(each));
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
Duration ms_in(int64_t lo, int64_t hi) {
  return sim::milliseconds(*rc::gen::inRange<int64_t>(lo, std::max(lo, hi) + 1));
}
Duration signed_ms(int64_t hi) {
  Duration magnitude = ms_in(0, hi);
  return *rc::gen::arbitrary<bool>() ? -magnitude : magnitude;
}
sim::Instant at_in(Duration window) { return sim::Instant{} + ms_in(0, window.ms()); }
uint32_t count(uint32_t max) { return *rc::gen::inRange<uint32_t>(1, max + 1); }

// Nested acquires, the algorithm's explicit-lease mode, a crowd of clients:
// drawn only when the model asks for them.
void draw_workload_extras(const FaultModel& model, Scenario& s) {
  lock::WorkloadParams& w = s.workload;
  if (model.nested > 0 && *rc::gen::arbitrary<bool>()) w.nested = *rc::gen::inRange<uint32_t>(1, model.nested + 1);
  if (model.explicit_lease_mode && *rc::gen::inRange<int>(0, 4) == 0) s.lock.explicit_lease = s.lock.lease;
  if (model.contention && *rc::gen::inRange<int>(0, 4) == 0) {
    w.clients = *rc::gen::inRange<uint32_t>(4, 6);
    w.iterations = *rc::gen::inRange<uint32_t>(3, 5);
    w.work_min = sim::milliseconds(20);
    w.work_max = sim::milliseconds(100);
    w.think_max = sim::milliseconds(50);
  }
}

}  // namespace

rc::Gen<Scenario> scenario_generator(const FaultModel& model) {
  return rc::gen::exec([model]() {
    Scenario s = model.base;
    lock::WorkloadParams& w = s.workload;
    s.seed = *rc::gen::inRange<uint64_t>(0, 1'000'000);
    w.clients = *rc::gen::inRange<uint32_t>(model.min_clients, model.max_clients + 1);
    w.iterations = *rc::gen::inRange<uint32_t>(1, model.max_iterations + 1);
    draw_workload_extras(model, s);
    const int64_t lease_ms = std::max<int64_t>(s.lock.lease.ms(), 1);
    const int64_t pause_ms = model.max_pause.ns > 0 ? std::max<int64_t>(model.max_pause.ms(), 1) : 3 * lease_ms;
    const int64_t short_pause_ms = std::min<int64_t>(10, pause_ms);
    auto client = [&] { return *rc::gen::inRange<uint32_t>(0, w.clients); };
    // A Redis master, by name ("redis", or "redis1".."redisN").
    auto master = [&] { return lock::redis_node_name(s, *rc::gen::inRange<uint32_t>(0, s.masters)); };
    auto name = [&](uint32_t c) { return lock::client_name(c); };
    auto add_faults = [&](FaultKind kind) {
      switch (kind) {
        case FaultKind::ClientCrash: {
          const bool restart =
              std::find(model.kinds.begin(), model.kinds.end(), FaultKind::ClientRestart) != model.kinds.end();
          for (uint32_t i = count(model.max_faults); i > 0; --i) {
            uint32_t c = client();
            sim::Instant at = at_in(model.window);
            s.faults.faults.push_back({sim::FaultKind::Crash, name(c), "", at, {}});
            if (restart && *rc::gen::arbitrary<bool>())
              s.faults.faults.push_back({sim::FaultKind::Restart, name(c), "", at + ms_in(1, 2 * lease_ms), {}});
          }
          break;
        }
        case FaultKind::ClientRestart: break;  // drawn with the crashes
        case FaultKind::Pause:
          for (uint32_t i = count(model.max_faults); i > 0; --i)
            s.faults.faults.push_back(
                {sim::FaultKind::Pause, name(client()), "", at_in(model.window), ms_in(short_pause_ms, pause_ms)});
          break;
        case FaultKind::SlowWork:
          for (uint32_t i = count(model.max_faults); i > 0; --i)
            w.slow_work.push_back(
                {client(), *rc::gen::inRange<uint32_t>(0, w.iterations), ms_in(lease_ms / 2, 3 * lease_ms)});
          break;
        case FaultKind::DelaySpikes:
          s.latency.spike_probability = *rc::gen::inRange<int>(1, 31) / 100.0;
          s.latency.spike_scale = ms_in(1, 50);
          s.latency.spike_alpha = 1.5;
          s.latency.spike_cap = ms_in(50, 2 * lease_ms);
          break;
        case FaultKind::Cut:
          for (uint32_t i = count(model.max_faults); i > 0; --i)
            s.faults.faults.push_back(
                {sim::FaultKind::Cut, name(client()), master(), at_in(model.window), ms_in(10, 3 * lease_ms)});
          break;
        case FaultKind::Reset:
          for (uint32_t i = count(model.max_faults); i > 0; --i)
            s.faults.faults.push_back({sim::FaultKind::Reset, name(client()), master(), at_in(model.window), {}});
          break;
        case FaultKind::ClockSkew:
          w.clock_offsets.resize(w.clients);
          w.drifts_ppm.resize(w.clients);
          for (uint32_t c = 0; c < w.clients; ++c) w.clock_offsets[c] = signed_ms(2 * lease_ms);
          break;
        case FaultKind::ClockDrift:
          w.clock_offsets.resize(w.clients);
          w.drifts_ppm.resize(w.clients);
          for (uint32_t c = 0; c < w.clients; ++c) {
            int64_t ppm = *rc::gen::inRange<int64_t>(0, 200'001);
            w.drifts_ppm[c] = *rc::gen::arbitrary<bool>() ? -ppm : ppm;
          }
          break;
        case FaultKind::ClockJump:
          for (uint32_t i = count(model.max_faults); i > 0; --i) {
            std::string node = model.redis_clock_jumps && *rc::gen::arbitrary<bool>() ? master() : name(client());
            s.faults.faults.push_back(
                {sim::FaultKind::ClockJump, node, "", at_in(model.window), signed_ms(3 * lease_ms)});
          }
          break;
        case FaultKind::RedisRestart:
          for (uint32_t i = count(model.max_faults); i > 0; --i) {
            sim::Instant at = at_in(model.window);
            std::string node = master();
            s.faults.faults.push_back({sim::FaultKind::Crash, node, "", at, {}});
            const int64_t down_ms = model.max_downtime.ns > 0 ? model.max_downtime.ms() : 2 * lease_ms;
            s.faults.faults.push_back({sim::FaultKind::Restart, node, "", at + ms_in(1, down_ms), {}});
          }
          break;
        case FaultKind::MasterCrash:
          if (model.failover_on_master_crash && s.masters == 1 && !s.replica) {
            // One master dying for good is an outage, not a safety question, unless a replica takes over.
            s.replica = true;
            s.replication_lag = ms_in(1, 100);
            s.failover_after = ms_in(50, lease_ms);
          }
          s.faults.faults.push_back({sim::FaultKind::Crash, master(), "", at_in(model.window), {}});
          break;
        case FaultKind::RedisDrift:
          // Each master's own rate; the replica keeps true time. Drawn as client drifts are.
          s.redis_drifts_ppm.resize(s.masters);
          for (int64_t& drift : s.redis_drifts_ppm) {
            const int64_t ppm = *rc::gen::inRange<int64_t>(0, 200'001);
            drift = *rc::gen::arbitrary<bool>() ? -ppm : ppm;
          }
          break;
        case FaultKind::CrashAtCall:
          for (uint32_t i = count(model.max_faults); i > 0; --i)
            w.call_faults.push_back(
                {client(), *rc::gen::inRange<uint32_t>(1, model.max_call + 1), lock::CallFault::Kind::Crash, {}});
          break;
        case FaultKind::PauseAtCall:
          for (uint32_t i = count(model.max_faults); i > 0; --i)
            w.call_faults.push_back({client(), *rc::gen::inRange<uint32_t>(1, model.max_call + 1),
                                     lock::CallFault::Kind::Pause, ms_in(short_pause_ms, pause_ms)});
          break;
      }
    };
    // Swarm: a kind is on or off for the whole run; shrinking turns kinds off.
    // When every kind came out off, one is turned on: a fault model's run
    // always meets some fault (a one-kind model would otherwise run half its
    // scenarios fault-free). Drawn last, so the other scenarios stay as they were.
    bool any_on = false;
    for (FaultKind kind : model.kinds) {
      if (model.swarm && !*rc::gen::arbitrary<bool>()) continue;
      any_on = any_on || kind != FaultKind::ClientRestart;
      add_faults(kind);
    }
    std::vector<FaultKind> drawable;
    for (FaultKind kind : model.kinds)
      if (kind != FaultKind::ClientRestart) drawable.push_back(kind);
    if (!any_on && !drawable.empty()) add_faults(drawable[*rc::gen::inRange<size_t>(0, drawable.size())]);
    // Faults apply in time order; a stable order also keeps the printed plan readable.
    std::stable_sort(s.faults.faults.begin(), s.faults.faults.end(),
                     [](const sim::Fault& a, const sim::Fault& b) { return a.at < b.at; });
    normalize(s);
    return s;
  });
}

std::vector<FaultKind> kinds_in(const Scenario& s) {
  std::vector<FaultKind> found;
  auto add = [&](FaultKind k) {
    if (std::find(found.begin(), found.end(), k) == found.end()) found.push_back(k);
  };
  const auto& plan = s.faults.faults;
  for (size_t i = 0; i < plan.size(); ++i) {
    const sim::Fault& f = plan[i];
    const bool client = client_index(f.node).has_value();
    switch (f.kind) {
      case sim::FaultKind::Crash: {
        if (client) {
          add(FaultKind::ClientCrash);
          break;
        }
        const bool restarted =
            std::any_of(plan.begin() + static_cast<std::ptrdiff_t>(i), plan.end(),
                        [&](const sim::Fault& r) { return r.kind == sim::FaultKind::Restart && r.node == f.node; });
        add(restarted ? FaultKind::RedisRestart : FaultKind::MasterCrash);
        break;
      }
      case sim::FaultKind::Restart:
        if (client) add(FaultKind::ClientRestart);
        break;
      case sim::FaultKind::Pause: add(FaultKind::Pause); break;
      case sim::FaultKind::ClockJump: add(FaultKind::ClockJump); break;
      case sim::FaultKind::Cut:
      case sim::FaultKind::Heal: add(FaultKind::Cut); break;
      case sim::FaultKind::Reset: add(FaultKind::Reset); break;
    }
  }
  const lock::WorkloadParams& w = s.workload;
  if (!w.slow_work.empty()) add(FaultKind::SlowWork);
  if (s.latency.spike_probability > 0) add(FaultKind::DelaySpikes);
  if (std::any_of(w.clock_offsets.begin(), w.clock_offsets.end(), [](Duration d) { return d.ns != 0; }))
    add(FaultKind::ClockSkew);
  if (std::any_of(w.drifts_ppm.begin(), w.drifts_ppm.end(), [](int64_t d) { return d != 0; }))
    add(FaultKind::ClockDrift);
  if (std::any_of(s.redis_drifts_ppm.begin(), s.redis_drifts_ppm.end(), [](int64_t d) { return d != 0; }))
    add(FaultKind::RedisDrift);
  for (const auto& c : w.call_faults)
    add(c.kind == lock::CallFault::Kind::Crash ? FaultKind::CrashAtCall : FaultKind::PauseAtCall);
  std::vector<FaultKind> ordered;
  for (FaultKind k : kAllFaultKinds)
    if (std::find(found.begin(), found.end(), k) != found.end()) ordered.push_back(k);
  return ordered;
}

}  // namespace locksim::props
