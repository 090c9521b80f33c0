#include "locksim/props/classify_faults.hpp"

#include "locksim/lock/registry.hpp"
#include "locksim/lock/schedule.hpp"
#include "locksim/props/scenario.hpp"
#include "locksim/sim/int128.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace locksim::props {

FaultFinder::FaultFinder(const lock::History& h, const lock::SimulationConfig& cfg) : h_(h), cfg_(cfg) {
  const lock::Algorithm* a = lock::find_algorithm(cfg.algorithm);
  uses_redis_ = !(a && a->uses_database);
}

using lock::HistoryEvent;
using lock::Step;

namespace {

Duration overlap(Instant a0, Instant a1, Instant b0, Instant b1) {
  const Instant lo = std::max(a0, b0), hi = std::min(a1, b1);
  return hi > lo ? hi - lo : Duration{};
}

std::string signed_text(Duration d) { return (d.ns < 0 ? "" : "+") + sim::format_duration(d); }

}  // namespace

Instant FaultFinder::hold_end(uint32_t client, Instant t) const {
  Instant last{};
  for (const auto& e : h_.events()) {
    last = std::max(last, e.at);
    if (e.client == client && e.at >= t && (e.step == Step::Leave || e.step == Step::Crashed)) return e.at;
  }
  return last;
}

Instant FaultFinder::hold_end_sooner(uint32_t client, Instant t, Duration by) const {
  for (const auto& e : h_.events())
    if (e.client == client && e.at >= t && (e.step == Step::Leave || e.step == Step::Crashed))
      return e.step == Step::Crashed ? std::min(e.at, planned_leave(client, e) - by) : e.at - by;
  return hold_end(client, t) - by;
}

// A crash repeats the iteration it struck: the iteration of a section is the count of
// the client's outer acquires that ended (released or given up) before it.
std::optional<FaultFinder::Section> FaultFinder::section_ending_after(uint32_t client, Instant t) const {
  Section out;
  uint32_t iteration = 0, iteration_at_enter = 0;
  for (const auto& e : h_.events()) {
    if (e.client != client) continue;
    if (e.at >= t && (e.step == Step::Leave || e.step == Step::Crashed)) {
      out.end = &e;
      break;
    }
    if ((e.step == Step::Released || e.step == Step::AcquireFailed) && e.depth == 0) ++iteration;
    if (e.step == Step::Enter) out.enter = out.work_from = &e, iteration_at_enter = iteration;
    if (out.enter && (e.step == Step::Acquired || e.step == Step::AcquireFailed) && e.depth > 0) out.work_from = &e;
    if (e.step == Step::Leave || e.step == Step::Crashed) out.enter = out.work_from = nullptr;
  }
  if (!out.enter || !out.end) return std::nullopt;
  const lock::WorkloadParams& wl = cfg_.workload;
  const uint32_t identity = client < wl.identities.size() ? wl.identities[client] : client;
  const int64_t drift = client < wl.drifts_ppm.size() ? wl.drifts_ppm[client] : 0;
  const Duration scheduled = lock::ClientSchedule(cfg_.seed, identity, client, wl).work(iteration_at_enter);
  out.work = sim::LocalClock(Duration{}, drift).true_span(scheduled);
  return out;
}

// The work done by the crash is the time since it began less the pauses; the rest was to come.
Instant FaultFinder::planned_leave(uint32_t client, const HistoryEvent& crash) const {
  const auto s = section_ending_after(client, crash.at);
  if (!s || s->end != &crash) return crash.at;
  const Duration done = (crash.at - s->work_from->at) - paused_within(client, s->work_from->at, crash.at);
  return crash.at + std::max(s->work - std::max(done, Duration{}), Duration{});
}

std::optional<Duration> FaultFinder::scheduled_work(uint32_t client, Instant t) const {
  const auto s = section_ending_after(client, t);
  return s ? std::optional{s->work} : std::nullopt;
}

Instant FaultFinder::leave_without_pauses(uint32_t client, Instant from, Instant t) const {
  const auto s = section_ending_after(client, t);
  if (!s) {
    const Instant end = hold_end(client, t);
    return end - paused_within(client, from, end);
  }
  // The nested acquires before `t` count as they went, less their pauses; one still
  // waiting at `t` waited on what the lapse let happen, not on the section's plan.
  const Instant nested_to = std::min(s->work_from->at, std::max(t, s->enter->at));
  const Duration nested = (nested_to - s->enter->at) - paused_within(client, s->enter->at, nested_to);
  const Instant entry = s->enter->at - paused_within(client, from, s->enter->at);
  Instant leave = entry + std::max(nested, Duration{}) + s->work;
  if (cfg_.workload.stop_when_lost) leave = std::min(leave, s->end->at - paused_within(client, from, s->end->at));
  return s->end->step == Step::Crashed ? std::min(leave, s->end->at) : leave;
}

Duration FaultFinder::paused_within(uint32_t client, Instant from, Instant to) const {
  Duration total{};
  std::optional<Instant> since;
  for (const auto& e : h_.events()) {
    if (e.client != client) continue;
    if (e.step == Step::Paused) since = e.at;
    if ((e.step == Step::Resumed || e.step == Step::Crashed) && since) {
      total += overlap(*since, e.at, from, to);
      since.reset();
    }
  }
  if (since) total += overlap(*since, to, from, to);
  return total;
}

bool FaultFinder::renewal_enabled(uint32_t client) const {
  if (cfg_.lock.explicit_lease.ns == 0) return true;
  return std::any_of(h_.events().begin(), h_.events().end(), [&](const HistoryEvent& e) {
    return e.client == client &&
           (e.step == Step::Renewed || e.step == Step::RenewFailed || e.purpose == lock::Purpose::Renew);
  });
}

const HistoryEvent* FaultFinder::acquire_start(uint32_t client, Instant from) const {
  const HistoryEvent* start = nullptr;
  for (const auto& e : h_.events()) {
    if (e.at > from) break;
    if (e.client == client && e.step == Step::AcquireStart && e.depth == 0) start = &e;
  }
  return start;
}

const HistoryEvent* FaultFinder::entry_of(uint32_t client, Instant from) const {
  // From the start of the acquire that set the key: a replica applies the set a lag
  // after it, possibly after the client entered.
  const HistoryEvent* start = acquire_start(client, from);
  const Instant since = start ? start->at : from;
  for (const auto& e : h_.events())
    if (e.client == client && e.step == Step::Enter && e.at >= since) return &e;
  return nullptr;
}

bool FaultFinder::entered_after(uint32_t client, Instant from, Instant to) const {
  const HistoryEvent* entry = entry_of(client, from);
  return entry && entry->at > to;
}

std::optional<Duration> FaultFinder::acquire_took(uint32_t client, Instant from) const {
  const HistoryEvent* start = acquire_start(client, from);
  const HistoryEvent* entry = entry_of(client, from);
  if (!start || !entry) return std::nullopt;
  return entry->local - start->local;
}

bool FaultFinder::clock_misled(uint32_t client, Instant from, Instant to) const {
  const lock::WorkloadParams& w = cfg_.workload;
  const bool skewed = (client < w.drifts_ppm.size() && w.drifts_ppm[client] != 0) || !clock_of(client, to).empty();
  if (!skewed) return false;
  if (entered_after(client, from, to)) {
    // It entered after its lease: its clock misled it only if, by that clock, the
    // acquire took less than the lease (a lock that checks validity would enter). An
    // offset moves the clock's readings, not their differences: only a pace off true
    // time, or a jump while the acquire ran, makes the acquire look shorter than it was.
    const HistoryEvent* start = acquire_start(client, from);
    const HistoryEvent* entry = entry_of(client, from);
    if (!start || !entry) return false;
    const bool paced = client < w.drifts_ppm.size() && w.drifts_ppm[client] != 0;
    const bool jumped = std::any_of(cfg_.faults.faults.begin(), cfg_.faults.faults.end(), [&](const sim::Fault& f) {
      return f.kind == sim::FaultKind::ClockJump && f.node == name(client) && f.at >= start->at && f.at <= entry->at;
    });
    return (paced || jumped) && entry->local - start->local < cfg_.lock.lease;
  }
  // The work is timed by the clock's pace: a slow clock stretches it in true time.
  // A jump moves the clock's reading, not its pace: it stretches no work.
  const int64_t ppm = client < w.drifts_ppm.size() ? w.drifts_ppm[client] : 0;
  if (ppm >= 0) return false;
  const HistoryEvent* entered = nullptr;
  for (const auto& e : h_.events()) {
    if (e.at > to) break;
    if (e.client == client && e.step == Step::Enter) entered = &e;
  }
  if (!entered) return false;
  for (const auto& e : h_.events()) {
    if (e.client != client || e.at < to || (e.step != Step::Leave && e.step != Step::Crashed)) continue;
    const Duration real = e.at - entered->at;
    const Duration local{real.ns + static_cast<int64_t>(static_cast<sim::int128>(real.ns) * ppm / 1'000'000)};
    return real > local + sim::milliseconds(5) && (entered->at - from) + local < cfg_.lock.lease;
  }
  return false;
}

const sim::Fault* FaultFinder::jump_back_while_waiting(uint32_t client, Instant from, Instant to) const {
  for (const sim::Fault& f : cfg_.faults.faults) {
    if (f.kind != sim::FaultKind::ClockJump || f.node != name(client) || f.amount.ns >= 0 || f.at < from || f.at > to)
      continue;
    // A nested acquire started and not yet answered when the jump struck, which read the
    // wall clock after it (a wait timed on the monotonic clock never does: no jump moves it).
    bool waiting = false;
    for (const auto& e : h_.events()) {
      if (e.client != client || e.depth == 0) continue;
      if (e.step == Step::AcquireStart) {
        if (e.at > f.at) break;
        waiting = true;
      }
      if (e.step == Step::Acquired || e.step == Step::AcquireFailed) {
        if (waiting && e.at >= f.at) {
          if (e.wall_read_in_wait != Instant::never() && e.wall_read_in_wait >= f.at) return &f;
          break;
        }
        waiting = false;
      }
    }
  }
  return nullptr;
}

bool FaultFinder::reply_timed_out(uint32_t client, Instant from, Instant to) const {
  // A command that ran while its client concluded it had not: an acquire that
  // was granted the lock though the client never recorded the win, or a
  // release that ended its instance though the client recorded none (the
  // ledger's facts, on a node serving clients: a replica's copy is not the
  // command's own effect). Only a lost or late reply does that.
  const lock::Ledger& ledger = h_.ledger();
  const auto& events = h_.events();
  for (const lock::LockFact& f : ledger.facts()) {
    if (f.client != client || f.at < from || f.at > to) continue;
    const lock::LockInstance& i = ledger.instance(f.instance);
    if (i.key != cfg_.lock.key || !ledger.serving(i.node, f.at)) continue;
    const bool set = f.kind == lock::FactKind::Granted && f.purpose == lock::Purpose::Acquire;
    const bool deleted = f.kind == lock::FactKind::Ended && f.purpose == lock::Purpose::Release;
    if (!set && !deleted) continue;
    // The client's next step after it.
    for (const HistoryEvent& n : events) {
      if (n.at < f.at || n.client != client) continue;
      if (set && n.step == Step::AcquireFailed) return true;
      if (deleted && n.step == Step::Released) {
        if (!n.own_lock) return true;
        break;
      }
      if (n.step == Step::Acquired || n.step == Step::Crashed) break;
    }
  }
  return false;
}

std::string FaultFinder::pause_of(uint32_t client, Instant from, Instant to) const {
  for (const auto& f : cfg_.faults.faults)
    if (f.kind == sim::FaultKind::Pause && f.node == name(client) && overlap(f.at, f.at + f.amount, from, to).ns > 0)
      return sim::to_string(f);
  for (const auto& f : cfg_.workload.call_faults)
    if (f.client == client && f.kind == lock::CallFault::Kind::Pause)
      return fmt::format("call={}:{}:pause:{}", name(client), f.call, sim::format_duration(f.pause));
  return "";
}

std::string FaultFinder::held_call(uint32_t client, Instant from, Instant to, bool writes_too,
                                   std::optional<Instant> held_past) const {
  for (const auto& e : h_.events()) {
    if (e.at > to) break;
    if (e.client != client || e.step != Step::CallDelayed || e.at < from) continue;
    const bool write = e.purpose == lock::Purpose::Resource;
    if ((write && !writes_too) || (held_past && e.at + Duration{e.status} <= *held_past)) continue;
    return to_string(lock::CallFault{client, static_cast<uint32_t>(e.token), lock::CallFault::Kind::Delay,
                                     Duration{e.status}, write ? lock::CallFault::On::Write : lock::CallFault::On::Call});
  }
  return "";
}

std::string FaultFinder::renewal_blocker(uint32_t client, Instant from, Instant to) const {
  // A renewal whose reply was lost was sent before the re-arm it made (`from`, at most a call timeout later).
  if (std::string lost = lost_call(client, from - cfg_.lock.call_timeout, to, lock::Purpose::Renew); !lost.empty())
    return lost;
  // A call a fault held in flight past the lease's end: a renewal, or any request ahead
  // of the renewals on the client's FIFO connection (they wait behind it).
  if (std::string held = held_call(client, from - cfg_.lock.call_timeout, to, false, to); !held.empty()) return held;
  const std::string me = name(client);
  // The cut that kept the renewals out longest (a permanent one: all of it); a reset
  // only drops the connection for a reconnect, so it stopped them only where no cut did.
  const sim::Fault* cut = nullptr;
  Duration longest{};
  for (const auto& f : cfg_.faults.faults) {
    if (f.kind != sim::FaultKind::Cut || !(f.node == me || f.peer == me)) continue;
    const Duration covered = f.amount.ns != 0 ? overlap(f.at, f.at + f.amount, from, to)
                             : f.at <= to     ? to - f.at + sim::milliseconds(1)
                                              : Duration{};
    if (covered > longest) cut = &f, longest = covered;
  }
  // On one Redis, an outage (its crash to its restart or the failover) keeps every renewal
  // out as a cut does: the one of the two that covered more of the lease stopped them.
  if (uses_redis_ && cfg_.masters <= 1) {
    std::optional<std::pair<Instant, uint32_t>> down;  // since, which node
    std::string outage_crash;
    Duration outage{};
    auto close = [&](Instant until) {
      if (const Duration d = overlap(down->first, until, from, to); d > outage) {
        outage = d;
        outage_crash = server_crash(h_.ledger().node_name(down->second), down->first);
      }
      down.reset();
    };
    for (const auto& e : h_.events()) {
      if (e.at > to) break;
      if (e.step == Step::ServerCrashed && !down) down = std::pair{e.at, e.server};
      if ((e.step == Step::ServerRestarted || e.step == Step::ReplicaPromoted) && down) close(e.at);
    }
    if (down) close(to);
    if (outage > longest && !outage_crash.empty()) return outage_crash;
  }
  if (cut) return sim::to_string(*cut);
  for (const auto& f : cfg_.faults.faults)
    if (f.kind == sim::FaultKind::Reset && (f.node == me || f.peer == me) && f.at >= from && f.at <= to)
      return sim::to_string(f);
  for (const auto& f : cfg_.faults.faults)
    if (uses_redis_ && f.kind == sim::FaultKind::Crash && !client_index(f.node) && f.at >= from && f.at <= to)
      return server_crash(f.node, to);
  if (reply_timed_out(client, from, to) && cfg_.latency.spike_probability > 0)
    return fmt::format("delay spikes: spikes={}:{}:{}:{}", cfg_.latency.spike_probability,
                       sim::format_duration(cfg_.latency.spike_scale), cfg_.latency.spike_alpha,
                       sim::format_duration(cfg_.latency.spike_cap));
  return "";
}

bool FaultFinder::renewals_stopped_before_pause(uint32_t client, Instant from, Instant to) const {
  const HistoryEvent* pause = nullptr;
  for (const auto& e : h_.events()) {
    if (e.at > to) break;
    if (e.client == client && e.step == Step::Paused && e.at >= from && !pause) pause = &e;
  }
  if (!pause) return false;
  const std::string me = name(client);
  const bool cut = std::any_of(cfg_.faults.faults.begin(), cfg_.faults.faults.end(), [&](const sim::Fault& f) {
    return f.kind == sim::FaultKind::Cut && (f.node == me || f.peer == me) && f.at <= pause->at &&
           (f.amount.ns == 0 || f.at + f.amount > pause->at);
  });
  // On one Redis, a Redis down from when the pause began to the lease's end refused every
  // renewal, frozen or not.
  if (cut || (cfg_.masters <= 1 && !any_down_within(pause->at, pause->at).empty() &&
              !any_down_within(to, to).empty()))
    return true;
  // A call held from before the pause to the lease's end: every renewal, frozen or not, waited behind it.
  return !held_call(client, from - cfg_.lock.call_timeout, pause->at, false, to).empty();
}

std::string FaultFinder::work_fault(uint32_t client, Instant) const {
  for (const auto& s : cfg_.workload.slow_work)
    if (s.client == client)
      return fmt::format("slow={}:{}:{}", name(client), s.iteration, sim::format_duration(s.work));
  if (cfg_.latency.spike_probability > 0) return "delay spikes";
  return "";
}

std::string FaultFinder::redis_jump(const std::string& node, Instant from, Instant to) const {
  for (const auto& f : cfg_.faults.faults)
    if (f.kind == sim::FaultKind::ClockJump && f.node == node && f.amount.ns > 0 &&
        f.at >= from - sim::milliseconds(1) && f.at <= to)
      return sim::to_string(f);
  return "";
}

std::string FaultFinder::master_jump_back(Instant before) const {
  const std::string master = lock::redis_node_name(cfg_, 0);
  for (const auto& f : cfg_.faults.faults)
    if (f.kind == sim::FaultKind::ClockJump && f.node == master && f.amount.ns < 0 && f.at <= before)
      return sim::to_string(f);
  return "";
}

std::string FaultFinder::master_clock_behind(Instant before) const {
  if (std::string jump = master_jump_back(before); !jump.empty()) return jump;
  if (cfg_.redis_drifts_ppm.empty() || cfg_.redis_drifts_ppm[0] >= 0) return "";
  return fmt::format("redis-drift={}:{:+}", lock::redis_node_name(cfg_, 0), cfg_.redis_drifts_ppm[0]);
}

std::string FaultFinder::redis_drift(uint32_t node) const {
  if (node >= cfg_.redis_drifts_ppm.size() || cfg_.redis_drifts_ppm[node] <= 0) return "";
  return fmt::format("redis-drift={}:{:+}", lock::redis_node_name(cfg_, node), cfg_.redis_drifts_ppm[node]);
}

std::string FaultFinder::reset_of(uint32_t client, Instant from, Instant to) const {
  for (const auto& f : cfg_.faults.faults)
    if (f.kind == sim::FaultKind::Reset && (f.node == name(client) || f.peer == name(client)) && f.at >= from &&
        f.at <= to)
      return sim::to_string(f);
  return "";
}

std::string FaultFinder::clock_of(uint32_t client, Instant before) const {
  const lock::WorkloadParams& w = cfg_.workload;
  const Duration offset = client < w.clock_offsets.size() ? w.clock_offsets[client] : Duration{};
  const int64_t drift = client < w.drifts_ppm.size() ? w.drifts_ppm[client] : 0;
  if (offset.ns != 0 || drift != 0) return fmt::format("clock={}:{}:{}", name(client), signed_text(offset), drift);
  for (const auto& f : cfg_.faults.faults)
    if (f.kind == sim::FaultKind::ClockJump && f.node == name(client) && f.at <= before) return sim::to_string(f);
  return "";
}

Duration FaultFinder::clock_error(uint32_t client, Instant at) const {
  Duration error{};
  for (const auto& e : h_.events()) {
    if (e.at > at) break;
    if (e.client == client && e.server == 0 && e.step != Step::KeySet && e.step != Step::KeyDeleted &&
        e.step != Step::KeyExpireChanged && e.step != Step::KeyExpired)
      error = e.local - e.at;
  }
  return error;
}

std::string FaultFinder::server_crash(const std::string& node, Instant at) const {
  const sim::Fault* crash = nullptr;
  for (const auto& f : cfg_.faults.faults)
    if (f.kind == sim::FaultKind::Crash && f.node == node && f.at <= at) crash = &f;
  if (!crash) return "";
  std::string text = sim::to_string(*crash);
  for (const auto& f : cfg_.faults.faults)
    if (f.kind == sim::FaultKind::Restart && f.node == node && f.at >= crash->at)
      return text + "; " + sim::to_string(f);
  return text;
}

std::string FaultFinder::down_within(uint32_t server, Instant from, Instant to) const {
  std::optional<Instant> down_since;
  for (const auto& e : h_.events()) {
    if (e.at > to) break;
    if ((e.step != Step::ServerCrashed && e.step != Step::ServerRestarted) || e.server != server) continue;
    if (e.step == Step::ServerCrashed) down_since = e.at;
    if (e.step != Step::ServerRestarted || !down_since) continue;
    if (e.at >= from) break;  // it was down when the window opened, or went down in it
    down_since.reset();
  }
  if (!down_since) return "";
  const std::string node = h_.ledger().node_name(server);
  const std::string crash = server_crash(node, to);
  return crash.empty() ? node + " crashed" : crash;
}

bool FaultFinder::restarted_within(uint32_t server, Instant after, Instant until) const {
  return std::any_of(h_.events().begin(), h_.events().end(), [&](const HistoryEvent& e) {
    return e.step == Step::ServerRestarted && e.server == server && e.at >= after && e.at <= until;
  });
}

std::string FaultFinder::any_down_within(Instant from, Instant to) const {
  if (!uses_redis_) return "";
  // Once the replica serves, the old master's death no longer refuses anyone.
  if (const auto promoted = h_.ledger().promoted_at(); cfg_.replica && promoted && *promoted <= from) return "";
  for (uint32_t s = 0; s < cfg_.masters; ++s)
    if (std::string crash = down_within(s, from, to); !crash.empty()) return crash;
  return "";
}

std::string FaultFinder::any_server_crash(Instant before) const {
  if (!uses_redis_) return "";
  for (const auto& e : h_.events()) {
    if (e.at > before) break;
    if (e.step == Step::ServerCrashed && !e.keys_survive)
      return server_crash(lock::redis_node_name(cfg_, e.server), e.at);
  }
  return "";
}

std::string FaultFinder::crash_of(uint32_t client, Instant at) const {
  for (const auto& f : cfg_.faults.faults)
    if (f.kind == sim::FaultKind::Crash && f.node == name(client) && f.at <= at && at - f.at < sim::milliseconds(1))
      return sim::to_string(f);
  for (const auto& f : cfg_.workload.call_faults)
    if (f.client == client && f.kind == lock::CallFault::Kind::Crash)
      return fmt::format("call={}:{}:crash", name(client), f.call);
  return "";
}

const HistoryEvent* FaultFinder::lost_call_step(uint32_t client, Instant from, Instant to,
                                               std::optional<lock::Purpose> purpose) const {
  for (const auto& e : h_.events()) {
    if (e.at > to) break;
    if (e.at < from || e.client != client || e.step != Step::CallLost || (purpose && e.purpose != *purpose)) continue;
    return &e;
  }
  return nullptr;
}

std::string FaultFinder::lost_call(uint32_t client, Instant from, Instant to,
                                   std::optional<lock::Purpose> purpose) const {
  const HistoryEvent* e = lost_call_step(client, from, to, purpose);
  if (!e) return "";
  return to_string(lock::CallFault{client, static_cast<uint32_t>(e->token),
                                   e->status ? lock::CallFault::Kind::ReplyLost : lock::CallFault::Kind::RequestLost,
                                   {}});
}

std::optional<std::pair<Instant, Instant>> FaultFinder::nested_wait_at(uint32_t client, Instant at) const {
  std::optional<Instant> start;
  for (const auto& e : h_.events()) {
    if (e.client != client || e.depth == 0) continue;
    const bool ends = e.step == Step::Acquired || e.step == Step::AcquireFailed;
    if (e.step == Step::AcquireStart && e.at <= at) start = e.at;
    if (ends && start && e.at < at) start.reset();
    if (ends && start && e.at >= at) return std::pair{*start, e.at};
  }
  if (!start) return std::nullopt;
  return std::pair{*start, h_.events().empty() ? at : std::max(at, h_.events().back().at)};
}

bool FaultFinder::own_lock_refused(uint32_t client, Instant from, Instant to) const {
  for (const auto& e : h_.events()) {
    if (e.at > to) break;
    if (e.at >= from && e.client == client && e.step == Step::OwnLockRefused && e.key == cfg_.lock.key) return true;
  }
  return false;
}

}  // namespace locksim::props
