#include "locksim/props/mechanism_aims.hpp"

#include <algorithm>
#include <iterator>
#include <map>

#include "locksim/lock/simulation.hpp"
#include "locksim/props/assumptions.hpp"
#include "locksim/sim/random.hpp"

namespace locksim::props {

namespace {

using lock::HistoryEvent;
using lock::Purpose;
using lock::Step;

bool model_draws(const FaultModel& model, FaultFamily kind) {
  return std::find(model.kinds.begin(), model.kinds.end(), kind) != model.kinds.end();
}

int64_t lease_ms_of(const Scenario& s) { return std::max<int64_t>(s.lock.lease.ms(), 1); }

// A uniform whole number of milliseconds in [lo, hi].
Duration aim_ms(sim::Rng& rng, int64_t lo, int64_t hi) { return sim::milliseconds(rng.uniform(lo, std::max(lo, hi))); }

// entered-with-no-validity-left: the holder's acquire takes the whole lease. A pause of
// the holder that falls after Redis granted its acquire and before the reply reached it,
// longer than the lease: it enters when it resumes, after its lease.
std::optional<Scenario> pause_after_grant(const Scenario& drawn, const lock::History& probe, sim::Rng& rng) {
  const std::vector<GrantedAcquire> acquires = granted_acquires(probe);
  if (acquires.empty()) return std::nullopt;
  const GrantedAcquire& a = acquires[rng.below(acquires.size())];
  // Halfway into the reply's flight, on a whole microsecond: the scenario prints it exactly.
  const int64_t half_us = (a.acquired - a.granted).ns / 2000;
  if (half_us < 1) return std::nullopt;
  const sim::Instant at{(a.granted.ns / 1000 + half_us) * 1000};
  const int64_t lease = lease_ms_of(drawn);
  Scenario s = drawn;
  s.faults.faults.push_back({sim::FaultKind::Pause, lock::client_name(a.client), "", at,
                             aim_ms(rng, lease + std::max<int64_t>(1, lease / 20), 2 * lease)});
  return s;
}

// delayed-write: a write sent while holding reaches the resource after the next holder's.
// One write of a holder held in flight (call=A:writeN:delay:D) past its call's timeout: the
// holder gives up on it and releases, the next holder acquires and writes, and then it
// lands. Which write: one that, in the drawn scenario's own run, another client's write
// follows; D: the call timeout, plus how long after it that write came, plus 50 ms to one
// lease (whole milliseconds, so that the scenario prints it exactly).
std::optional<Scenario> delay_holders_write(const Scenario& drawn, const lock::History& probe, sim::Rng& rng) {
  struct HeldWrite {
    uint32_t client, number;
    Duration until_next;
  };
  std::vector<HeldWrite> writes;
  std::map<uint32_t, uint32_t> written;
  const std::vector<HistoryEvent>& events = probe.events();
  auto is_write = [](const HistoryEvent& e) { return e.step == Step::WriteAccepted || e.step == Step::WriteRejected; };
  for (size_t i = 0; i < events.size(); ++i) {
    if (!is_write(events[i]) || events[i].client == lock::kNoClient) continue;
    const uint32_t number = ++written[events[i].client];
    for (size_t j = i + 1; j < events.size(); ++j)
      if (is_write(events[j]) && events[j].client != events[i].client) {
        writes.push_back({events[i].client, number, events[j].at - events[i].at});
        break;
      }
  }
  if (writes.empty()) return std::nullopt;
  const HeldWrite& w = writes[rng.below(writes.size())];
  Scenario s = drawn;
  const int64_t lease = lease_ms_of(s);
  const Duration held = sim::milliseconds((s.lock.call_timeout + w.until_next).ms() + 1) + aim_ms(rng, 50, lease);
  s.workload.call_faults.push_back(
      lock::CallFault{w.client, w.number, lock::CallFault::Kind::Delay, held, lock::CallFault::On::Write});
  return s;
}

// client-clock-skew: a client clock running slow stretches the work it times, a section of
// most of the lease, past the lease; where the model can turn renewal off (its explicit
// lease), half the aims do, since a renewed lease outlasts any section.
std::optional<Scenario> slow_clock_long_section(const FaultModel& model, const Scenario& drawn, sim::Rng& rng) {
  Scenario s = drawn;
  lock::WorkloadParams& w = s.workload;
  const uint32_t c = static_cast<uint32_t>(rng.below(w.clients));
  w.clock_offsets.resize(w.clients);
  w.drifts_ppm.resize(w.clients);
  w.drifts_ppm[c] = -rng.uniform(100'000, 200'000);
  const int64_t lease = lease_ms_of(s);
  const uint32_t iteration = static_cast<uint32_t>(rng.below(std::max<uint32_t>(1, w.iterations)));
  w.slow_work.push_back({c, iteration, aim_ms(rng, lease * 8 / 10, lease)});
  if (model.explicit_lease_mode && s.lock.explicit_lease.ns == 0 && rng.below(2) == 0) s.lock.explicit_lease = s.lock.lease;
  return s;
}

// lease-expired-delayed: slow replies eat the lease of a section that fits it. Moderate
// delay spikes (in 10..30 % of messages, a scale of 20..80 ms, capped at a quarter to half
// a lease) and a section of 80..95 % of the lease; renewal turned off where the model can
// (its explicit lease) in half the aims, since a renewed lease outlasts any section.
std::optional<Scenario> spikes_on_a_full_section(const FaultModel& model, const Scenario& drawn, sim::Rng& rng) {
  Scenario s = drawn;
  lock::WorkloadParams& w = s.workload;
  const int64_t lease = lease_ms_of(s);
  s.latency.spike_probability = static_cast<double>(rng.uniform(10, 30)) / 100.0;
  s.latency.spike_scale = aim_ms(rng, 20, 80);
  s.latency.spike_alpha = 1.5;
  s.latency.spike_cap = aim_ms(rng, std::max<int64_t>(1, lease / 4), std::max<int64_t>(1, lease / 2));
  const uint32_t c = static_cast<uint32_t>(rng.below(w.clients));
  const uint32_t iteration = static_cast<uint32_t>(rng.below(std::max<uint32_t>(1, w.iterations)));
  w.slow_work.push_back({c, iteration, aim_ms(rng, lease * 8 / 10, lease * 95 / 100)});
  if (model.explicit_lease_mode && s.lock.explicit_lease.ns == 0 && rng.below(2) == 0) s.lock.explicit_lease = s.lock.lease;
  return s;
}

}  // namespace

const std::vector<MechanismAim>& mechanism_aims() {
  static const std::vector<MechanismAim> aims = {
      {Cause::NoValidityLeft,
       "a pause of the holder, longer than the lease, between Redis granting its acquire and the reply reaching it",
       {FaultFamily::Pause},
       true},
      {Cause::DelayedWrite,
       "a delay of one write of a holder to the resource that another client's write follows (the call timeout, "
       "plus how long after it that write came, plus 50 ms to one lease)",
       {FaultFamily::DelayAtCall},
       true},
      {Cause::ClientClockSkew,
       "a client clock running 10-20 % slow, and a section of that client of 80-100 % of the lease",
       {FaultFamily::ClockDrift, FaultFamily::SlowWork},
       false},
      {Cause::LeaseDelayed,
       "delay spikes (in 10-30 % of messages at a scale of 20-80 ms, capped at a quarter to half a lease) and a section of 80-95 % of the lease",
       {FaultFamily::DelaySpikes, FaultFamily::SlowWork},
       false},
  };
  return aims;
}

const MechanismAim* mechanism_aim(Cause cause) {
  for (const MechanismAim& aim : mechanism_aims())
    if (aim.cause == cause) return &aim;
  return nullptr;
}

bool aimable(const MechanismAim& aim, const FaultModel& model) {
  if (!std::all_of(aim.kinds.begin(), aim.kinds.end(), [&](FaultFamily k) { return model_draws(model, k); }))
    return false;
  const Assumptions& a = model.assumed;
  switch (aim.cause) {
    case Cause::NoValidityLeft: return !a.max_pause || *a.max_pause > model.base.lock.lease;
    // The held write must outlast its call's timeout (so that the holder releases) inside the delay bound.
    case Cause::DelayedWrite:
      return model.base.workload.write_resource && (!a.max_delay || *a.max_delay > model.base.lock.call_timeout);
    case Cause::ClientClockSkew: return !a.sane_client_clock;
    default: return true;
  }
}

std::vector<GrantedAcquire> granted_acquires(const lock::History& h) {
  // Per client, the instants an acquire command of its armed an instance it owns on a node
  // serving clients (its grant, or a re-arm by its acquire: SETNX then EXPIRE), from the
  // ledger: a losing write over another's instance, a queue's bookkeeping or a replica's
  // copy is no grant.
  const lock::Ledger& ledger = h.ledger();
  std::map<uint32_t, std::vector<sim::Instant>> armed;
  for (const lock::LockFact& f : ledger.facts()) {
    if ((f.kind != lock::FactKind::Granted && f.kind != lock::FactKind::Rearmed) || f.purpose != Purpose::Acquire)
      continue;
    const lock::LockInstance& i = ledger.instance(f.instance);
    if (i.owner == f.client && ledger.serving(i.node, f.at)) armed[f.client].push_back(f.at);
  }
  for (auto& [client, at] : armed) std::sort(at.begin(), at.end());
  std::vector<GrantedAcquire> out;
  std::map<uint32_t, sim::Instant> started;  // per client: when its outermost acquire began
  for (const HistoryEvent& e : h.events()) {
    if (e.client == lock::kNoClient || e.depth != 0) continue;
    if (e.step == Step::AcquireStart) started[e.client] = e.at;
    if (e.step != Step::Acquired) continue;
    const auto s = started.find(e.client);
    const auto a = armed.find(e.client);
    if (s == started.end() || a == armed.end()) continue;
    // Its acquire's last arm: at or before the instant it heard it had acquired.
    const auto last = std::upper_bound(a->second.begin(), a->second.end(), e.at);
    if (last != a->second.begin() && s->second <= *std::prev(last) && *std::prev(last) < e.at)
      out.push_back({e.client, *std::prev(last), e.at});
    started.erase(s);
  }
  return out;
}

std::optional<Scenario> aimed_scenario(const MechanismAim& aim, const FaultModel& model, const Scenario& drawn,
                                       const lock::History* probe, uint64_t key) {
  sim::Rng rng(key);
  std::optional<Scenario> s;
  switch (aim.cause) {
    case Cause::NoValidityLeft:
      if (probe) s = pause_after_grant(drawn, *probe, rng);
      break;
    case Cause::DelayedWrite:
      if (probe) s = delay_holders_write(drawn, *probe, rng);
      break;
    case Cause::ClientClockSkew: s = slow_clock_long_section(model, drawn, rng); break;
    case Cause::LeaseDelayed: s = spikes_on_a_full_section(model, drawn, rng); break;
    default: break;
  }
  if (!s) return std::nullopt;
  // Faults apply in time order, as drawn ones do.
  std::stable_sort(s->faults.faults.begin(), s->faults.faults.end(),
                   [](const sim::Fault& x, const sim::Fault& y) { return x.at < y.at; });
  normalize(*s);
  // Clamped into the assumptions (a pause to pause<=D, a spike's cap to delay<=D, ...).
  Scenario inside = held_inside(*s, model.assumed);
  if (!broken_assumptions(inside, model.assumed).empty()) return std::nullopt;
  return inside;
}

}  // namespace locksim::props
