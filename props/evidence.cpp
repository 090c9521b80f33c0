#include "locksim/props/evidence.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "locksim/base/assert.hpp"
#include "locksim/lock/simulation.hpp"
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

// What a fault must have met, besides a phase, to have bitten: a fault that strikes what
// the lock does not use tests nothing.
enum class Need : uint8_t {
  Nothing,       // the phase alone (a client's own crash or pause, a call fault, slow work)
  UsesNode,      // the phase's client calls `node` (kNoNode: any) at some time of the run: a server's fault
  CallInFlight,  // a call of the phase's client to `node` (kNoNode: any) in flight meanwhile: a cut
  SpikedCall,    // a call of the phase's client that a delay spike held, in flight meanwhile
  WallRead,      // the phase's client's wall clock decided something about the lock meanwhile: an offset, a jump
  ClockRead,     // its wall or monotonic clock did (lock::decides): a drift of its rate
};

// One fault's reach: a client (or every client) over an interval of true time, and what
// it must have met there to bite.
struct Reach {
  FaultFamily kind;
  uint32_t client = kAnyClient;
  sim::Instant from, to;
  Need need = Need::Nothing;
  sim::NodeId node = sim::kNoNode;
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

// The node a fault names, as the run's calls record it: kNoNode for every node ("*"), and
// one no call went to for a name the run does not know.
constexpr sim::NodeId kUnknownNode = sim::kNoNode - 1;
sim::NodeId node_of(const lock::History& history, const std::string& name) {
  if (name.empty() || name == "*") return sim::kNoNode;
  const sim::NodeId id = history.touches().node_named(name);
  return id == sim::kNoNode ? kUnknownNode : id;
}

// When a cut of `f` ends: after its span, or at the heal of that link (else the run's end).
sim::Instant cut_end(const std::vector<sim::Fault>& plan, size_t i, sim::Instant end) {
  const sim::Fault& f = plan[i];
  if (f.amount.ns > 0) return f.at + f.amount;
  for (size_t j = i + 1; j < plan.size(); ++j)
    if (plan[j].kind == sim::FaultKind::Heal && plan[j].node == f.node && plan[j].peer == f.peer) return plan[j].at;
  return end;
}

// The reaches of the plan's faults (crashes, pauses, cuts, resets, jumps): a client's own
// strike that client; a server's strike the clients that call it; a link's, the calls on it.
void plan_reaches(const Scenario& s, const lock::History& history, sim::Instant end, std::vector<Reach>& out,
                  std::vector<std::pair<uint32_t, sim::Instant>>& planned) {
  const auto& plan = s.faults.faults;
  for (size_t i = 0; i < plan.size(); ++i) {
    const sim::Fault& f = plan[i];
    const std::optional<uint32_t> c = client_index(f.node);
    const sim::NodeId node = node_of(history, f.node);
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
        out.push_back({back ? FaultFamily::RedisRestart : FaultFamily::MasterCrash, kAnyClient, f.at,
                       back.value_or(end), Need::UsesNode, node});
        break;
      }
      case sim::FaultKind::Pause:
        if (c) planned.emplace_back(*c, f.at);
        out.push_back({FaultFamily::Pause, c.value_or(kAnyClient), f.at, f.at + f.amount,
                       c ? Need::Nothing : Need::UsesNode, node});
        break;
      case sim::FaultKind::Cut:
      case sim::FaultKind::Reset: {
        // The link's client end, and the server it leads to (a link between servers: the
        // clients that call either end).
        const std::optional<uint32_t> peer_client = client_index(f.peer);
        const std::optional<uint32_t> client = c ? c : peer_client;
        const sim::NodeId server = c ? node_of(history, f.peer) : peer_client ? node : sim::kNoNode;
        const FaultFamily kind = f.kind == sim::FaultKind::Cut ? FaultFamily::Cut : FaultFamily::Reset;
        const sim::Instant to = f.kind == sim::FaultKind::Cut ? cut_end(plan, i, end) : f.at;
        if (!client) {
          for (const sim::NodeId n : {node, node_of(history, f.peer)})
            out.push_back({kind, kAnyClient, f.at, to, Need::UsesNode, n});
          break;
        }
        // A cut loses what is in flight on the link or sent while it lasts; a reset ends
        // the connection's session (a transaction, a subscription, a WATCH) whether or not
        // a call is in flight, so it bites where the client uses that server at all.
        out.push_back(
            {kind, *client, f.at, to, kind == FaultFamily::Cut ? Need::CallInFlight : Need::UsesNode, server});
        break;
      }
      case sim::FaultKind::ClockJump:
        // A client's jump shows in every later reading of its wall clock; a server's
        // moves the deadlines of the keys it holds then.
        if (c)
          out.push_back({FaultFamily::ClockJump, *c, f.at, end, Need::WallRead});
        else
          out.push_back({FaultFamily::ClockJump, kAnyClient, f.at, f.at, Need::UsesNode, node});
        break;
      case sim::FaultKind::Restart:
      case sim::FaultKind::Heal: break;
    }
  }
}

// Where each fault of the scenario reached.
std::vector<Reach> reaches_of(const Scenario& s, const lock::History& history, sim::Instant end,
                              const std::vector<Span>& spans) {
  std::vector<Reach> out;
  const sim::Instant start{};
  std::vector<std::pair<uint32_t, sim::Instant>> planned;  // client faults the plan made (not call faults)
  plan_reaches(s, history, end, out, planned);
  const lock::WorkloadParams& w = s.workload;
  for (const lock::SlowWork& sw : w.slow_work)
    for (const Span& sp : spans)
      if (sp.client == sw.client && sp.iteration == sw.iteration && sp.phase == Phase::Holding)
        out.push_back({FaultFamily::SlowWork, sw.client, sp.from, sp.to});
  if (s.latency.spike_probability > 0)
    out.push_back({FaultFamily::DelaySpikes, kAnyClient, start, end, Need::SpikedCall});
  for (uint32_t c = 0; c < w.clock_offsets.size(); ++c)
    if (w.clock_offsets[c].ns != 0) out.push_back({FaultFamily::ClockSkew, c, start, end, Need::WallRead});
  for (uint32_t c = 0; c < w.drifts_ppm.size(); ++c)
    if (w.drifts_ppm[c] != 0) out.push_back({FaultFamily::ClockDrift, c, start, end, Need::ClockRead});
  for (uint32_t i = 0; i < s.redis_drifts_ppm.size(); ++i)
    if (s.redis_drifts_ppm[i] != 0)
      out.push_back({FaultFamily::RedisDrift, kAnyClient, start, end, Need::UsesNode,
                     node_of(history, lock::redis_node_name(s, i))});
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

// Whether a reading of a client's clock decided something about the lock (lock::decides): a
// section timed on the clock only while its holder has an instance with a lease (a deadline
// in the store or in its value), since the clock's rate then decides whether the section
// ends inside it; a section under a lock without one decides nothing the lock keeps.
bool deciding(const lock::Ledger& ledger, const lock::ClockRead& r) {
  if (!lock::decides(r.use)) return false;
  if (r.use != lock::ClockUse::Work) return true;
  for (const lock::LockInstance* i : ledger.granted_to(r.client))
    if (i->granted <= r.at && r.at < i->over() &&
        (i->deadline != sim::Instant::never() || i->holder_deadline != sim::Instant::never()))
      return true;
  return false;
}

// What the clients touched, by client, in time order: their calls and their clock readings.
class Touched {
 public:
  Touched(const lock::History& history, sim::Instant end) {
    // A call its caller never heard the end of died with it (its crash), or lasted the run.
    std::vector<std::vector<sim::Instant>> crashes;
    for (const HistoryEvent& e : history.events()) {
      if (e.step != Step::Crashed || e.client == lock::kNoClient) continue;
      if (e.client >= crashes.size()) crashes.resize(e.client + 1);
      crashes[e.client].push_back(e.at);
    }
    const lock::Touches& t = history.touches();
    for (const lock::CallRecord& call : t.calls()) {
      if (call.client >= calls_.size()) calls_.resize(call.client + 1);
      sim::Instant ended = std::min(call.ended, end);
      if (call.ended == sim::Instant::never() && call.client < crashes.size()) {
        const auto& c = crashes[call.client];
        const auto died = std::lower_bound(c.begin(), c.end(), call.sent);
        if (died != c.end()) ended = std::min(ended, *died);
      }
      calls_[call.client].push_back({call.sent, ended, call.node, call.spiked});
    }
    // Only a reading that decided something about the lock: a wait's pacing decides nothing
    // about a holder, so a clock fault that only moved it did not bite.
    for (const lock::ClockRead& r : t.clock_reads()) {
      if (!deciding(history.ledger(), r)) continue;
      if (r.client >= reads_.size())
        reads_.resize(r.client + 1), wall_reads_.resize(r.client + 1), section_reads_.resize(r.client + 1);
      // A section's timing starts as its acquire ends: it decides the hold's end, not the acquire's.
      (r.use == lock::ClockUse::Work ? section_reads_ : reads_)[r.client].push_back(r.at);
      if (r.clock == lock::ClockKind::Wall) wall_reads_[r.client].push_back(r.at);
    }
  }
  // Whether c ever called `node` (kNoNode: any node).
  bool uses(uint32_t c, sim::NodeId node) const {
    if (c >= calls_.size()) return false;
    return std::any_of(calls_[c].begin(), calls_[c].end(),
                       [&](const Call& k) { return node == sim::kNoNode || k.node == node; });
  }
  // A call of c's (to `node`, kNoNode: any; only spiked ones if `spiked`) in flight at some instant of [from, to].
  bool in_flight(uint32_t c, sim::NodeId node, bool spiked, sim::Instant from, sim::Instant to) const {
    if (c >= calls_.size()) return false;
    return std::any_of(calls_[c].begin(), calls_[c].end(), [&](const Call& k) {
      return (node == sim::kNoNode || k.node == node) && (!spiked || k.spiked) && k.sent <= to && k.ended >= from;
    });
  }
  // A deciding reading of c's clock (its wall clock only, if `wall`) in [from, to].
  bool read(uint32_t c, bool wall, sim::Instant from, sim::Instant to) const {
    return within(wall ? wall_reads_ : reads_, c, from, to);
  }
  // The start of a section of c's timed on its clock in [from, to].
  bool section_timed(uint32_t c, sim::Instant from, sim::Instant to) const {
    return within(section_reads_, c, from, to);
  }

 private:
  static bool within(const std::vector<std::vector<sim::Instant>>& all, uint32_t c, sim::Instant from, sim::Instant to) {
    if (c >= all.size()) return false;
    const auto it = std::lower_bound(all[c].begin(), all[c].end(), from);
    return it != all[c].end() && *it <= to;
  }

  struct Call {
    sim::Instant sent, ended;
    sim::NodeId node;
    bool spiked;
  };
  std::vector<std::vector<Call>> calls_;
  std::vector<std::vector<sim::Instant>> reads_, wall_reads_, section_reads_;  // each in time order (recorded so)
};

// Whether `reach` bit span `sp`: it overlaps the phase (an instant one falls in it) and,
// over that overlap, met what it needs.
bool bites(const Reach& reach, const Span& sp, const Touched& touched) {
  if (reach.client != kAnyClient && reach.client != sp.client) return false;
  // A fault of some length bites a phase it overlaps for some time (a slow section bites
  // its hold, not the acquire that ends where the hold begins); an instant one bites a
  // phase it falls in.
  const bool instant = reach.from == reach.to;
  if (instant ? !(sp.from <= reach.from && reach.from <= sp.to) : !(reach.from < sp.to && reach.to > sp.from))
    return false;
  const sim::Instant from = std::max(reach.from, sp.from), to = std::min(reach.to, sp.to);
  switch (reach.need) {
    case Need::Nothing: return true;
    case Need::UsesNode: return touched.uses(sp.client, reach.node);
    case Need::CallInFlight: return touched.in_flight(sp.client, reach.node, false, from, to);
    case Need::SpikedCall: return touched.in_flight(sp.client, sim::kNoNode, true, from, to);
    case Need::WallRead: return touched.read(sp.client, true, from, to);
    case Need::ClockRead:
      return touched.read(sp.client, false, from, to) ||
             ((sp.phase == Phase::Holding || sp.phase == Phase::Renewing) && touched.section_timed(sp.client, from, to));
  }
  return false;
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
  const Touched touched(history, end);
  for (const Reach& reach : reaches_of(s, history, end, spans)) {
    const size_t k = index_of(reach.kind);
    r.drawn[k] = true;
    for (const Span& sp : spans)
      if (bites(reach, sp, touched)) r.phases[k] |= uint8_t(1u << static_cast<unsigned>(sp.phase));
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
