#include "locksim/props/evidence.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "locksim/base/assert.hpp"
#include "locksim/sim/random.hpp"

namespace locksim::props {

std::string_view to_string(Phase p) {
  switch (p) {
    case Phase::Acquiring: return "acquiring";
    case Phase::Waiting: return "waiting";
    case Phase::Holding: return "holding";
    case Phase::Renewing: return "renewing";
    case Phase::Releasing: return "releasing";
  }
  return "?";
}

namespace {

using lock::HistoryEvent;
using lock::Step;

constexpr uint32_t kAnyClient = lock::kNoClient;

// A client in one phase from `from` to `to` (true time, inclusive).
struct Span {
  uint32_t client = 0;
  Phase phase = Phase::Acquiring;
  sim::Instant from, to;
  uint32_t iteration = 0;  // the client's section this span belongs to
};

// One fault's reach: a client (or every client) over an interval of true time.
struct Reach {
  FaultFamily kind;
  uint32_t client = kAnyClient;
  sim::Instant from, to;
};

size_t index_of(FaultFamily k) {
  for (size_t i = 0; i < kFaultFamilyCount; ++i)
    if (kAllFaultFamilies[i] == k) return i;
  LOCKSIM_ASSERT(false, "a fault family missing from kAllFaultFamilies");
  return 0;
}

// Each client's acquires (outermost), holds, renewing holds and releases, as its history records them.
std::vector<Span> spans_of(const lock::History& history, sim::Instant end) {
  struct Open {
    std::optional<sim::Instant> acquiring, holding, releasing;
    bool renewed = false;
    uint32_t iteration = 0;
  };
  std::vector<Open> open;
  std::vector<Span> spans;
  auto close = [&](uint32_t c, std::optional<sim::Instant>& from, Phase phase, sim::Instant at) {
    if (!from) return;
    spans.push_back({c, phase, *from, at, open[c].iteration});
    if (phase == Phase::Holding && open[c].renewed) spans.push_back({c, Phase::Renewing, *from, at, open[c].iteration});
    if (phase == Phase::Holding) open[c].renewed = false;
    from.reset();
  };
  for (const HistoryEvent& e : history.events()) {
    if (e.client == lock::kNoClient) continue;
    if (e.client >= open.size()) open.resize(e.client + 1);
    Open& o = open[e.client];
    const bool outer = e.depth == 0;
    switch (e.step) {
      case Step::AcquireStart:
        if (outer) o.acquiring = e.at;
        break;
      case Step::Acquired:
        if (!outer) break;
        close(e.client, o.acquiring, Phase::Acquiring, e.at);
        o.holding = e.at;
        break;
      case Step::AcquireFailed:
        if (!outer) break;
        close(e.client, o.acquiring, Phase::Acquiring, e.at);
        ++o.iteration;
        break;
      case Step::Renewed:
      case Step::RenewFailed: o.renewed = true; break;
      case Step::ReleaseStart:
        if (!outer) break;
        close(e.client, o.holding, Phase::Holding, e.at);
        o.releasing = e.at;
        break;
      case Step::Released:
        if (!outer) break;
        close(e.client, o.releasing, Phase::Releasing, e.at);
        ++o.iteration;
        break;
      case Step::Crashed:
        close(e.client, o.acquiring, Phase::Acquiring, e.at);
        close(e.client, o.holding, Phase::Holding, e.at);
        close(e.client, o.releasing, Phase::Releasing, e.at);
        break;
      default: break;
    }
  }
  for (uint32_t c = 0; c < open.size(); ++c) {
    close(c, open[c].acquiring, Phase::Acquiring, end);
    close(c, open[c].holding, Phase::Holding, end);
    close(c, open[c].releasing, Phase::Releasing, end);
  }
  // Waiting: the part of an acquire during which another client held the lock.
  std::vector<Span> waiting;
  for (const Span& a : spans) {
    if (a.phase != Phase::Acquiring) continue;
    for (const Span& h : spans) {
      if (h.phase != Phase::Holding || h.client == a.client) continue;
      const sim::Instant from = std::max(a.from, h.from), to = std::min(a.to, h.to);
      if (from < to) waiting.push_back({a.client, Phase::Waiting, from, to, a.iteration});
    }
  }
  spans.insert(spans.end(), waiting.begin(), waiting.end());
  return spans;
}

// Where each fault of the scenario reached.
std::vector<Reach> reaches_of(const Scenario& s, const lock::History& history, sim::Instant end,
                              const std::vector<Span>& spans) {
  std::vector<Reach> out;
  const sim::Instant start{};
  const auto& plan = s.faults.faults;
  std::vector<std::pair<uint32_t, sim::Instant>> planned;  // client faults the plan made (not call faults)
  for (size_t i = 0; i < plan.size(); ++i) {
    const sim::Fault& f = plan[i];
    const std::optional<uint32_t> c = client_index(f.node);
    switch (f.kind) {
      case sim::FaultKind::Crash: {
        if (c) {
          planned.emplace_back(*c, f.at);
          out.push_back({FaultFamily::ClientCrash, *c, f.at, f.at});
          for (size_t j = i + 1; j < plan.size(); ++j)
            if (plan[j].node == f.node && plan[j].kind == sim::FaultKind::Restart) {
              out.push_back({FaultFamily::ClientRestart, *c, f.at, f.at});
              break;
            }
          break;
        }
        std::optional<sim::Instant> back;
        for (size_t j = i + 1; j < plan.size() && !back; ++j)
          if (plan[j].node == f.node && plan[j].kind == sim::FaultKind::Restart) back = plan[j].at;
        out.push_back({back ? FaultFamily::RedisRestart : FaultFamily::MasterCrash, kAnyClient, f.at, back.value_or(end)});
        break;
      }
      case sim::FaultKind::Pause:
        if (c) planned.emplace_back(*c, f.at);
        out.push_back({FaultFamily::Pause, c.value_or(kAnyClient), f.at, f.at + f.amount});
        break;
      case sim::FaultKind::Cut:
        out.push_back({FaultFamily::Cut, c.value_or(kAnyClient), f.at, f.at + f.amount});
        break;
      case sim::FaultKind::Reset: out.push_back({FaultFamily::Reset, c.value_or(kAnyClient), f.at, f.at}); break;
      case sim::FaultKind::ClockJump:
        out.push_back({FaultFamily::ClockJump, c.value_or(kAnyClient), f.at, f.at});
        break;
      case sim::FaultKind::Restart:
      case sim::FaultKind::Heal: break;
    }
  }
  const lock::WorkloadParams& w = s.workload;
  for (const lock::SlowWork& sw : w.slow_work)
    for (const Span& sp : spans)
      if (sp.client == sw.client && sp.iteration == sw.iteration && sp.phase == Phase::Holding)
        out.push_back({FaultFamily::SlowWork, sw.client, sp.from, sp.to});
  if (s.latency.spike_probability > 0) out.push_back({FaultFamily::DelaySpikes, kAnyClient, start, end});
  for (uint32_t c = 0; c < w.clock_offsets.size(); ++c)
    if (w.clock_offsets[c].ns != 0) out.push_back({FaultFamily::ClockSkew, c, start, end});
  for (uint32_t c = 0; c < w.drifts_ppm.size(); ++c)
    if (w.drifts_ppm[c] != 0) out.push_back({FaultFamily::ClockDrift, c, start, end});
  if (std::any_of(s.redis_drifts_ppm.begin(), s.redis_drifts_ppm.end(), [](int64_t d) { return d != 0; }))
    out.push_back({FaultFamily::RedisDrift, kAnyClient, start, end});
  // A call fault struck where the history shows a crash or pause of its client that the plan did not make.
  std::vector<std::optional<sim::Instant>> paused_at;
  for (const HistoryEvent& e : history.events()) {
    if (e.client == lock::kNoClient) continue;
    if (e.client >= paused_at.size()) paused_at.resize(e.client + 1);
    const bool by_plan = std::find(planned.begin(), planned.end(), std::pair{e.client, e.at}) != planned.end();
    if (e.step == Step::Crashed && !by_plan)
      out.push_back({FaultFamily::CrashAtCall, e.client, e.at, e.at});
    else if (e.step == Step::Paused)
      paused_at[e.client] = by_plan ? std::nullopt : std::optional{e.at};
    else if (e.step == Step::CallLost)
      out.push_back({FaultFamily::LostAtCall, e.client, e.at, e.at});
    else if (e.step == Step::CallDelayed)  // its client waits for it (and sends behind it) while it is held
      out.push_back({FaultFamily::DelayAtCall, e.client, e.at, e.at + Duration{e.status}});
    else if (e.step == Step::Resumed && paused_at[e.client]) {
      out.push_back({FaultFamily::PauseAtCall, e.client, *paused_at[e.client], e.at});
      paused_at[e.client].reset();
    }
  }
  return out;
}

}  // namespace

bool RunEvidence::any_drawn() const { return std::find(drawn.begin(), drawn.end(), true) != drawn.end(); }
bool RunEvidence::any_bit() const {
  return std::any_of(phases.begin(), phases.end(), [](uint8_t p) { return p != 0; });
}

RunEvidence evidence_of(const Scenario& s, const lock::History& history, sim::Instant end) {
  RunEvidence r;
  for (FaultFamily k : kinds_in(s)) r.drawn[index_of(k)] = true;
  const std::vector<Span> spans = spans_of(history, end);
  for (const Reach& reach : reaches_of(s, history, end, spans)) {
    const size_t k = index_of(reach.kind);
    r.drawn[k] = true;
    for (const Span& sp : spans) {
      if (reach.client != kAnyClient && reach.client != sp.client) continue;
      // A fault of some length bites a phase it overlaps for some time (a slow section
      // bites its hold, not the acquire that ends where the hold begins); an instant one
      // bites a phase it falls in.
      const bool bites = reach.from == reach.to ? sp.from <= reach.from && reach.from <= sp.to
                                                : reach.from < sp.to && reach.to > sp.from;
      if (bites) r.phases[k] |= uint8_t(1u << static_cast<unsigned>(sp.phase));
    }
  }
  return r;
}

void Evidence::add(const RunEvidence& r) {
  ++runs;
  runs_with_faults += r.any_drawn() ? 1 : 0;
  runs_bitten += r.any_bit() ? 1 : 0;
  for (size_t k = 0; k < kFaultFamilyCount; ++k) {
    drawn[k] += r.drawn[k] ? 1 : 0;
    bitten[k] += r.phases[k] != 0 ? 1 : 0;
    for (size_t p = 0; p < kPhaseCount; ++p) coverage[k][p] += (r.phases[k] >> p) & 1u;
  }
}

void Evidence::add(const Evidence& e) {
  runs += e.runs;
  runs_with_faults += e.runs_with_faults;
  runs_bitten += e.runs_bitten;
  for (size_t k = 0; k < kFaultFamilyCount; ++k) {
    drawn[k] += e.drawn[k];
    bitten[k] += e.bitten[k];
    for (size_t p = 0; p < kPhaseCount; ++p) coverage[k][p] += e.coverage[k][p];
  }
}

double detection_bound(uint64_t n) {
  if (n == 0) return 1.0;
  // Portable log/exp: the printed bound is the same on every machine.
  return 1.0 - sim::portable_exp(sim::portable_log(0.05) / static_cast<double>(n));
}

uint64_t biting_runs_for(double p) {
  uint64_t n = 1;
  while (detection_bound(n) > p && n < (1u << 30)) ++n;
  return n;
}

}  // namespace locksim::props
