// The classifier: takes from the ledger (lock/ledger.hpp) how the lock
// instances of the hold that a violation overran ended, per node (a delete,
// a takeover, an expiry, a server that forgot it, a failover), then asks why
// that end came early or why the holder did not notice: the store's clock
// against true time, the holder's pauses and clock, its renewals, the faults
// of the plan.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "locksim/lock/redis_node.hpp"
#include "locksim/lock/registry.hpp"
#include "locksim/props/check.hpp"
#include "locksim/props/classify.hpp"
#include "locksim/props/classify_faults.hpp"
#include "locksim/props/outlived_holder.hpp"
#include "locksim/props/scenario.hpp"

namespace locksim::props {

using lock::HistoryEvent;
using lock::Purpose;
using lock::Step;

namespace {

// How a holder's instance on one node ended, as the ledger recorded it.
struct Ending {
  enum class Kind : uint8_t { Deleted, Overwritten, Expired, ServerLost, FailedOver } kind;
  const lock::LockInstance* instance = nullptr;
  uint32_t node() const { return instance->node; }
  Instant at() const { return instance->ended; }
};
class Classifier {
 public:
  Classifier(const lock::History& h, const lock::SimulationConfig& cfg) : h_(h), cfg_(cfg), faults_(h, cfg) {}
  Explanation explain(const Violation& v);

 private:
  std::string name(uint32_t c) const { return h_.client_name(c); }
  Instant acquire_start(uint32_t client, Instant before) const;
  std::vector<Ending> endings(uint32_t holder, Instant since, Instant until) const;
  Explanation lapse(uint32_t holder, Instant since, Instant until, uint32_t successor) const;
  Explanation ended(uint32_t holder, const Ending& e, Instant until) const;
  // `until`: when the violation showed (the successor got in, the nested acquire began).
  Explanation expired(uint32_t holder, const Ending& e, Instant until) const;
  // Whether the violation is the client's nested acquire begun at `at` (a reentrancy violation of its).
  bool violation_is_nested_acquire(uint32_t client, Instant at) const {
    return v_ && v_->property == Property::Reentrancy && !v_->clients.empty() && v_->clients.front() == client &&
           std::any_of(h_.events().begin(), h_.events().end(), [&](const HistoryEvent& e) {
             return e.client == client && e.at == at && e.step == Step::AcquireStart && e.depth > 0;
           });
  }
  std::optional<Explanation> dated_early_by_master(uint32_t holder, const lock::LockInstance& i) const;
  std::optional<Explanation> dated_short_by_holder(uint32_t holder, const lock::LockInstance& i) const;
  std::optional<Explanation> dated_before_held(uint32_t holder, const lock::LockInstance& i) const;
  std::optional<Explanation> copy_dated_early(uint32_t holder, const lock::LockInstance& master) const;
  std::string master_dated_early(uint32_t holder, const lock::LockInstance& master, Instant ended) const;
  Explanation overwritten(uint32_t holder, const Ending& e) const;
  // Why the release or renewal of `by` that deleted or changed at `at` the instance `owner` was
  // granted at `granted` was stale: a fault held it in flight from before that grant, or
  // `by`'s own lock had lapsed under it.
  Explanation stale(uint32_t by, uint32_t owner, Instant granted, Instant at) const;
  std::optional<Explanation> released_twice(uint32_t by, uint32_t owner, Instant granted, Instant at) const;
  // The release of `by` that deleted at `at` began before `owner`'s grant at `granted`: its
  // command was slow on the network (no fault held it), and landed stale.
  std::optional<Explanation> landed_late(uint32_t by, uint32_t owner, Instant granted, Instant at) const;
  // Whether every instance of the hold the client entered by `at` had ended (and not been
  // carried on by a failover) before it entered.
  bool entered_lapsed(uint32_t client, Instant at) const;
  Explanation taken_over(uint32_t holder, const lock::LockInstance& i, std::string_view how) const;
  Explanation on_time(uint32_t holder, Instant from, Instant to, std::string_view what) const;
  Explanation worked_past(uint32_t holder, Instant from, Instant to, std::string_view what) const;
  std::optional<Explanation> renewal_came_late(uint32_t holder, Instant from, Instant to,
                                               std::string_view what) const;
  Explanation reentrancy(uint32_t first, const Violation& v) const;
  Explanation fenced(uint32_t first, uint32_t second, const Violation& v) const;
  // On several masters: the client entered by `at` having won fewer votes than a majority.
  // Both named in the sentence when `other` entered short of one too.
  std::optional<Explanation> short_of_quorum(uint32_t client, Instant at, uint32_t other = lock::kNoClient) const;
  std::vector<uint32_t> votes_won(uint32_t client, Instant at) const;
  std::string vote_missing(uint32_t client, uint32_t node, Instant from, Instant at) const;
  // What stretched the instance's life on its store past lease + slack: a backward jump
  // or a slow drift of the store's clock ("" if neither).
  std::string ttl_stretched(const lock::LockInstance& i, Instant until) const;
  // ": <what stretched it>" for the crashed holder's last instance, or "".
  std::string crash_stretch(uint32_t client, const Violation& v) const;
  Explanation overtaken(uint32_t waiter, const Violation& v) const;
  // The holder that died (v.from) came back as the same owner and re-entered the
  // lock its crashed incarnation held (the ledger's re-armed fact, by an acquire), before
  // the waiter gave up: the waiter waited on a live holder. What kept that one inside, if
  // a lost call or a call held in flight did.
  std::optional<Explanation> held_by_restarted(uint32_t holder, uint32_t waiter, const Violation& v) const;
  // Whether the client's last lock instance granted by `at` carries a deadline.
  bool has_expiry(uint32_t client, Instant at) const;
  std::string nested_acquire_blocker(uint32_t client, Instant from, Instant to) const;
  Explanation nested_unanswered(uint32_t client, Instant from, Instant to, const std::string& blocked,
                                bool lapsed) const;
  bool claims_reentrancy() const;
  // Whether the client's nested acquire pending over [from, to] waited on the client's own lock.
  bool waits_on_itself(uint32_t client, Instant from, Instant to) const;
  bool renews() const;
  // The instances the hold begun at `since` was granted: per node, the holder's
  // last grant before it learned it acquired (an earlier attempt's is not the hold's).
  std::vector<const lock::LockInstance*> hold_instances(uint32_t holder, Instant since) const;
  // Whether the holder tried to renew its lease in (after, until].
  bool renewed_within(uint32_t holder, Instant after, Instant until) const;

  const lock::History& h_;
  const lock::SimulationConfig& cfg_;
  FaultFinder faults_;
  const Violation* v_ = nullptr;  // the violation being explained
};

Explanation make(Cause c, std::string fault, std::string sentence) {
  if (!fault.empty()) sentence += fmt::format(" ({})", fault);
  return Explanation{c, std::move(fault), std::move(sentence)};
}

// delayed-write, from the history: the stale write that landed at `landed` had been held in
// flight by a fault (call=A:writeN:delay:D), and the newer writer's write reached the store
// while it was held. It may have been sent in an earlier hold than the one the writer is in
// when it lands. Nothing if the history shows no such hold.
std::optional<Explanation> write_held_in_flight(const lock::History& h, const lock::SimulationConfig& cfg,
                                                uint32_t writer, uint32_t newer_writer, Instant landed) {
  const HistoryEvent* held = nullptr;   // the writer's last write a fault held that had landed by then
  const HistoryEvent* stale = nullptr;  // the write that landed at `landed`
  const HistoryEvent* newer = nullptr;  // the newer writer's last write before it
  for (const HistoryEvent& e : h.events()) {
    if (e.at > landed) break;
    if (e.step == Step::CallDelayed && e.client == writer && e.purpose == Purpose::Resource &&
        e.at + Duration{e.status} <= landed)
      held = &e;
    if (e.step == Step::WriteAccepted && e.client == newer_writer && e.at < landed) newer = &e;
    if (e.step == Step::WriteAccepted && e.client == writer && e.at == landed) stale = &e;
  }
  if (!held || !stale || !newer || newer->at <= held->at) return std::nullopt;
  std::string fault;
  for (const lock::CallFault& f : cfg.workload.call_faults)
    if (f.client == writer && f.on == lock::CallFault::On::Write && f.kind == lock::CallFault::Kind::Delay &&
        f.call == static_cast<uint32_t>(held->token))
      fault = props::to_string(f);
  auto token = [](int64_t t) { return t >= 0 ? fmt::format("token {}", t) : std::string("no token"); };
  return make(Cause::DelayedWrite, fault,
              fmt::format("{}'s write ({}), sent at {} from its critical section, was held {} in flight and reached "
                          "the store at {}, after {}'s ({}) at {}",
                          h.client_name(writer), token(stale->token), sim::format_instant(held->at),
                          sim::format_duration(Duration{held->status}), sim::format_instant(landed),
                          h.client_name(newer_writer), token(newer->token), sim::format_instant(newer->at)));
}

Instant Classifier::acquire_start(uint32_t client, Instant before) const {
  Instant since{};
  for (const auto& e : h_.events()) {
    if (e.at > before) break;
    if (e.client == client && e.step == Step::AcquireStart && e.depth == 0) since = e.at;
  }
  return since;
}

std::vector<const lock::LockInstance*> Classifier::hold_instances(uint32_t holder, Instant since) const {
  Instant acquired = Instant::never();
  for (const auto& e : h_.events())
    if (e.at >= since && e.client == holder && e.step == Step::Acquired && e.depth == 0) {
      acquired = e.at;
      break;
    }
  // Per node, the instance the acquire's last grant made, or the one it re-armed: an
  // acquire that finds an instance its holder already owns (left by a crashed incarnation
  // of it, or kept by a release that failed) takes the lock by re-arming that instance.
  std::map<uint32_t, const lock::LockInstance*> per_node;
  const lock::Ledger& ledger = h_.ledger();
  for (const lock::LockFact& f : ledger.facts()) {
    if (f.client != holder || f.at < since || f.at > acquired) continue;
    if (f.kind != lock::FactKind::Granted && !(f.kind == lock::FactKind::Rearmed && f.purpose == Purpose::Acquire))
      continue;
    const lock::LockInstance& i = ledger.instance(f.instance);
    if (i.owner != holder || i.key != cfg_.lock.key || i.copy || !ledger.serving(i.node, f.at)) continue;
    per_node[i.node] = &i;
  }
  // A hold that re-entered an instance the holder already had (a reentrant lock whose
  // earlier win went unheard, its reply lost): the hold carries that instance on.
  for (const lock::LockInstance& i : ledger.instances()) {
    if (i.owner != holder || i.key != cfg_.lock.key || i.copy || !ledger.serving(i.node, i.granted)) continue;
    if (i.granted < since && (i.live() || i.ended >= acquired) && !per_node.count(i.node)) per_node[i.node] = &i;
  }
  std::vector<const lock::LockInstance*> out;
  for (const auto& [node, i] : per_node) out.push_back(i);
  return out;
}

bool Classifier::renewed_within(uint32_t holder, Instant after, Instant until) const {
  return std::any_of(h_.events().begin(), h_.events().end(), [&](const HistoryEvent& e) {
    return e.client == holder && e.at > after && e.at <= until &&
           (e.step == Step::Renewed || e.step == Step::RenewFailed);
  });
}

bool Classifier::renews() const {
  return std::any_of(h_.events().begin(), h_.events().end(), [](const HistoryEvent& e) {
    return e.step == Step::Renewed || e.step == Step::RenewFailed || e.purpose == Purpose::Renew;
  });
}

// Each end of the hold's instances between `since` and `until`, as the
// ledger has them; an instance a failover handed to the promoted replica is
// followed there.
std::vector<Ending> Classifier::endings(uint32_t holder, Instant since, Instant until) const {
  std::vector<Ending> out;
  for (const lock::LockInstance* i : hold_instances(holder, since)) {
    while (i->end == lock::InstanceEnd::HandedOver && i->successor != lock::kNoInstance)
      i = &h_.ledger().instance(i->successor);
    if (i->live() || i->ended > until) continue;
    switch (i->end) {
      case lock::InstanceEnd::ReleasedByOther: out.push_back({Ending::Kind::Deleted, i}); break;
      case lock::InstanceEnd::Overwritten: out.push_back({Ending::Kind::Overwritten, i}); break;
      case lock::InstanceEnd::Expired: out.push_back({Ending::Kind::Expired, i}); break;
      case lock::InstanceEnd::LostWithServer: out.push_back({Ending::Kind::ServerLost, i}); break;
      case lock::InstanceEnd::LostInFailover: out.push_back({Ending::Kind::FailedOver, i}); break;
      default: break;  // released by the holder itself, or still carried on
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Ending& a, const Ending& b) { return a.at() < b.at(); });
  return out;
}

// Why the holder's lease ran out between `from` (its last set or re-arm) and
// `to` (when it ran out) without the holder knowing.
Explanation Classifier::on_time(uint32_t holder, Instant from, Instant to, std::string_view what) const {
  const std::string a = name(holder);
  const Duration paused = faults_.paused_within(holder, from, to);
  const bool renewing = renews() && faults_.renewal_enabled(holder);
  // A pause explains it when, without it, the holder would have left in time: its
  // section, as scheduled, begun once the pauses before it let it (with renewals: when
  // the pause froze the renewal for most of the lease). A pause within work that
  // outlasts the lease anyway is not its cause, however it lines up with the lease's end.
  const bool paused_then = faults_.paused_within(holder, to, to + sim::milliseconds(1)).ns > 0;
  // A renewal a cut, or a call held in flight ahead of it, had already stopped was not frozen by a later pause.
  const bool renewal_stopped_first = renewing && faults_.renewals_stopped_before_pause(holder, from, to);
  // It entered after the lease, and its own clock said the acquire had taken the whole
  // lease: whatever made the acquire slow (a pause, a slow node), a validity check
  // (lease - elapsed - drift > 0, as Redlock prescribes) would have refused to enter.
  if (const auto took = faults_.acquire_took(holder, from);
      took && *took >= cfg_.lock.lease && faults_.entered_after(holder, from, to)) {
    std::string slow = faults_.pause_of(holder, acquire_start(holder, from), to);
    return make(Cause::NoValidityLeft, slow,
                fmt::format("{}'s acquire took {} by its own clock, longer than the {} lease; {}{} at {} and {} "
                            "entered after it with no validity left",
                            a, sim::format_span(*took), sim::format_duration(cfg_.lock.lease), a, what,
                            sim::format_instant(to), a));
  }
  // It was waiting in a nested acquire on the lock it held, and without that wait it
  // would have left in time. A lock that does not claim reentrancy refuses that acquire
  // for as long as the outer lease lives, so nothing else that struck the wait (a pause,
  // a cut, a lost call, a Redis restart) changed how it ended: only renewals a cut
  // stopped, or a clock jump that stretched a wait timed by it (below), outrank it.
  // (A lock that claims reentrancy waits on itself only where the history shows its own lock refused it.)
  if (const auto wait = faults_.nested_wait_at(holder, to);
      wait && waits_on_itself(holder, wait->first, to) &&
      faults_.hold_end_sooner(holder, to, wait->second - wait->first) < to &&
      !(renewing && !faults_.renewal_blocker(holder, wait->first, to).empty()) &&
      !faults_.jump_back_while_waiting(holder, from, to))
    return make(Cause::SelfDeadlock, fmt::format("nested={}", cfg_.workload.nested),
                fmt::format("{}'s nested acquire, from {}, waited on the lock {} holds: {}{} at {} while it waited",
                            a, sim::format_instant(wait->first), a, a, what, sim::format_instant(to)));
  if (paused.ns > 0 && !renewal_stopped_first &&
      (renewing ? paused_then || paused * 2 >= to - from
                : faults_.leave_without_pauses(holder, from, to) < to))
    return make(Cause::LeasePaused, faults_.pause_of(holder, from, to),
                paused_then || faults_.entered_after(holder, from, to)
                    ? fmt::format("{}{} at {} while {} was paused", a, what, sim::format_instant(to), a)
                    : fmt::format("{}{} at {}: {} had been paused {} of it", a, what, sim::format_instant(to), a,
                                  sim::format_span(paused)));
  // It entered after its lease was over: its own clock told it the lease was still valid.
  if (faults_.entered_after(holder, from, to) && faults_.clock_misled(holder, from, to))
    return make(Cause::ClientClockSkew, faults_.clock_of(holder, to),
                fmt::format("{}{} at {}, but {}'s clock said its lease was still valid and it entered", a, what,
                            sim::format_instant(to), a));
  if (renewing && faults_.renewal_blocker(holder, from, to).empty())
    if (auto late = renewal_came_late(holder, from, to, what)) return *late;
  if (renewing)
    return make(
        Cause::RenewalStopped, faults_.renewal_blocker(holder, from, to),
        fmt::format("{}'s renewals stopped reaching Redis and {}{} at {}", a, a, what, sim::format_instant(to)));
  // Its clock jumped back while it waited in a nested acquire: the wait it timed by that
  // clock ran the jump longer, and without that it would have left in time.
  if (const sim::Fault* jump = faults_.jump_back_while_waiting(holder, from, to); jump && faults_.hold_end_sooner(holder, to, -jump->amount) < to)
    return make(Cause::ClientClockSkew, sim::to_string(*jump),
                fmt::format("{}'s clock jumped back {} while its nested acquire waited, so the wait it timed by that "
                            "clock ran that much longer: {}{} at {} while it held",
                            a, sim::format_duration(-jump->amount), a, what, sim::format_instant(to)));
  return worked_past(holder, from, to, what);
}

// A waiter that later arrivals went ahead of, again and again: what kept it from its
// turn, as the history has it. A lock that retries loses the race to whoever asks at the
// right moment; a queue (the database's row lock, fair's list) passes over a waiter whose
// request never reached it or who gave up its place when its calls timed out.
Explanation Classifier::overtaken(uint32_t waiter, const Violation& v) const {
  const std::string w = name(waiter);
  const std::string later = fmt::format("later arrivals got the lock first while {} waited", w);
  // Every call of the wait is the acquire's, whatever it is for (a database lock's BEGIN).
  const Instant began = std::min(v.from, acquire_start(waiter, v.from));
  if (std::string lost = faults_.lost_call(waiter, began, v.to); !lost.empty())
    return make(Cause::Overtaken, lost,
                lost.find("request-lost") != std::string::npos
                    ? fmt::format("{}'s acquire request was lost: it never reached the server, so {} held no place "
                                  "while it waited for an answer, and {}",
                                  w, w, later)
                    : fmt::format("{}'s acquire got no answer: the server had acted on it, unknown to {}, and {}", w,
                                  w, later));
  // A request of the wait a fault held in flight: it reached the server late, or after its
  // call had timed out (a queue may drop a place whose waiter seems gone meanwhile).
  if (std::string held = faults_.held_call(waiter, began, v.to, false); !held.empty())
    return make(Cause::Overtaken, held,
                fmt::format("a request of {}'s acquire was held in flight while it waited, and {}", w, later));
  if (faults_.reply_timed_out(waiter, v.from, v.to) && cfg_.latency.spike_probability > 0)
    return make(Cause::Overtaken, "delay spikes",
                fmt::format("{}'s acquire calls timed out on slow replies, and {}", w, later));
  return make(Cause::Overtaken, "", later);
}

std::optional<Explanation> Classifier::held_by_restarted(uint32_t holder, uint32_t waiter,
                                                        const Violation& v) const {
  const lock::Ledger& ledger = h_.ledger();
  const lock::LockInstance* held = nullptr;
  for (const lock::LockInstance& i : ledger.instances())
    if (i.owner == holder && i.key == cfg_.lock.key && !i.copy && i.granted <= v.from && i.over() > v.from) held = &i;
  if (!held) return std::nullopt;
  // Its next incarnation's: a command its dead one had in flight may still land after the crash.
  Instant restarted = Instant::never();
  for (const HistoryEvent& e : h_.events())
    if (e.client == holder && e.step == Step::Restarted && e.at >= v.from) {
      restarted = e.at;
      break;
    }
  const lock::LockFact* again = nullptr;
  for (const lock::LockFact* f : ledger.facts_of(held->id))
    if (f->kind == lock::FactKind::Rearmed && f->client == holder && f->purpose == Purpose::Acquire &&
        f->at >= restarted && f->at <= v.to) {
      again = f;
      break;
    }
  if (!again) return std::nullopt;
  const std::string a = name(holder);
  const std::string kept = held->live() ? "past the end of the run" : "until " + sim::format_instant(held->ended);
  const std::string head = fmt::format(
      "{} waited on {}'s live incarnation, not a dead one: {}, restarted, re-entered at {} the lock its crashed "
      "incarnation held from {} (the store saw the same owner) and kept it {}",
      name(waiter), a, a, sim::format_instant(again->at), sim::format_instant(held->granted), kept);
  if (const HistoryEvent* lost = faults_.lost_call_step(holder, again->at, v.to))
    return make(lost->status == 0 ? Cause::RequestLost : Cause::AmbiguousReply,
                faults_.lost_call(holder, again->at, v.to),
                fmt::format("{}: the network lost the {} of its {} call at {}, and it waited out the call's timeout",
                            head, lost->status == 0 ? "request" : "reply", lock::to_string(lost->purpose),
                            sim::format_instant(lost->at)));
  if (std::string call = faults_.held_call(holder, again->at, v.to, true); !call.empty())
    return make(Cause::AmbiguousReply, call, fmt::format("{}: a call of its was held in flight", head));
  // A pause of the live incarnation kept it inside while the waiter gave up: said, beside the crash.
  if (const std::string pause = faults_.pause_of(holder, again->at, v.to); !pause.empty())
    return make(Cause::CrashBlocked, faults_.crash_of(holder, v.from),
                fmt::format("{}; {} was paused {} of that time while {} waited ({})", head, a,
                            sim::format_span(faults_.paused_within(holder, again->at, v.to)), name(waiter), pause));
  return make(Cause::CrashBlocked, faults_.crash_of(holder, v.from), head);
}

// Nothing stopped the holder's renewals (no cut, reset, lost call, Redis down or pause),
// yet none was answered between its last re-arm (`from`) and the lease's end: they come
// too rarely. The history dates when the next renewal's request was sent: it went out so
// late that even the quickest message (the latency's base) reached Redis after the lease's
// end. Where no send time is recorded (a real client), its answer must come later than a
// round trip can take (the slowest message both ways, at most the call timeout) when
// messages may be slow, to say it went out after the lease's end rather than being held
// up in flight.
std::optional<Explanation> Classifier::renewal_came_late(uint32_t holder, Instant from, Instant to,
                                                        std::string_view what) const {
  if (renewed_within(holder, from, to)) return std::nullopt;
  const HistoryEvent* next = nullptr;
  for (const auto& e : h_.events())
    if (e.client == holder && e.at > to && (e.step == Step::Renewed || e.step == Step::RenewFailed)) {
      next = &e;
      break;
    }
  if (!next) return std::nullopt;
  const sim::LatencyDist& l = cfg_.latency;
  if (next->sent != Instant::never()) {
    if (next->sent + l.base < to) return std::nullopt;  // sent in time: something held it up
  } else {
    Duration held{};  // the longest a fault held one of the holder's calls in flight
    for (const lock::CallFault& f : cfg_.workload.call_faults)
      if (f.client == holder && f.kind == lock::CallFault::Kind::Delay) held = std::max(held, f.pause);
    const Duration one_way = l.base + l.jitter + (l.spike_probability > 0 ? l.spike_cap : Duration{}) + held;
    const Duration round_trip = std::min(cfg_.lock.call_timeout, one_way + one_way);
    if ((l.spike_probability > 0 || held.ns > 0) && next->at - round_trip <= to) return std::nullopt;
  }
  const std::string a = name(holder);
  return make(Cause::RenewalLate, "",
              fmt::format("{} renewed nothing between its last re-arm at {} and the lease's end: {}{} at {}, and {}'s "
                          "next renewal was {} only at {}{}: renewals came further apart than the {} lease",
                          a, sim::format_instant(from), a, what, sim::format_instant(to), a,
                          next->sent != Instant::never() ? "sent" : "answered",
                          sim::format_instant(next->sent != Instant::never() ? next->sent : next->at),
                          next->step != Step::RenewFailed ? ""
                          : next->status == 0            ? " (refused: the lock was no longer its)"
                                                         : " (failed)",
                          sim::format_duration(cfg_.lock.lease)));
}

// The holder was inside, neither paused nor waiting on itself, when its lease ran out:
// what kept it there past the lease.
Explanation Classifier::worked_past(uint32_t holder, Instant from, Instant to, std::string_view what) const {
  const std::string a = name(holder);
  // Not working but waiting, in a nested acquire on the lock it held, when the lease ran
  // out: its work had not begun, so it did not outlast anything (its length aside).
  if (const auto wait = faults_.nested_wait_at(holder, to); wait && waits_on_itself(holder, wait->first, to))
    return make(Cause::SelfDeadlock, fmt::format("nested={}", cfg_.workload.nested),
                fmt::format("{}'s nested acquire, from {}, waited on the lock {} holds: {}{} at {} while it waited",
                            a, sim::format_instant(wait->first), a, a, what, sim::format_instant(to)));
  if (faults_.clock_misled(holder, from, to))
    return make(Cause::ClientClockSkew, faults_.clock_of(holder, to),
                fmt::format("{}'s clock ran slow: its work looked short to it, but {}{} at {} while it worked", a, a,
                            what, sim::format_instant(to)));
  if (faults_.reply_timed_out(holder, from, to)) {
    const std::string lost = faults_.lost_call(holder, from, to);
    return make(Cause::AmbiguousReply, lost.empty() ? faults_.work_fault(holder, from) : lost,
                fmt::format("{}'s command timed out and {}{} at {} while it waited and worked on", a, a, what,
                            sim::format_instant(to)));
  }
  // Work that fits the lease outlasted it only through slow answers: the acquire's
  // reply, arriving late, left less of the lease; a late reply kept the holder inside.
  // A call of the holder's that a fault held in flight (call=A:N:delay:D) is named before the spikes.
  const std::string held = faults_.held_call(holder, from, to, true);
  // Held while the acquire still waited for it (sent before the holder entered), it took
  // the lease before the work began; held later, it kept the holder inside.
  std::string how = "a call of its, held in flight, kept it inside";
  if (!held.empty()) {
    Instant entered = Instant::never(), sent = Instant::never();
    for (const HistoryEvent& e : h_.events()) {
      if (e.at < from || e.client != holder) continue;
      if (entered == Instant::never() && e.step == Step::Acquired && e.depth == 0) entered = e.at;
      if (sent == Instant::never() && e.step == Step::CallDelayed && e.at <= to) sent = e.at;
    }
    if (sent < entered && entered != Instant::never())
      how = fmt::format("its acquire waited on a call of its held in flight and entered only at {}, {} into the lease",
                        sim::format_instant(entered), sim::format_span(entered - from));
  }
  if (const auto work = faults_.scheduled_work(holder, to);
      work && *work < cfg_.lock.lease && (!held.empty() || cfg_.latency.spike_probability > 0))
    return make(Cause::LeaseDelayed, held.empty() ? "delay spikes" : held,
                fmt::format("{}{} at {} while {} still worked: its {} of work fits the {} lease, but {}", a, what,
                            sim::format_instant(to), a, sim::format_span(*work), sim::format_duration(cfg_.lock.lease),
                            held.empty() ? "slow replies took the rest" : how));
  return make(Cause::LeaseOutworked, faults_.work_fault(holder, from),
              fmt::format("{}{} at {} while {} still worked", a, what, sim::format_instant(to), a));
}

Explanation Classifier::expired(uint32_t holder, const Ending& e, Instant until) const {
  const lock::LockInstance& i = *e.instance;
  const std::string key_text = fmt::format("{}'s lock", name(holder));
  // When it should have expired, in true time, had the store's clock kept pace since it was last armed.
  const Instant due = i.deadline;
  const bool has_ttl = due != Instant::never();
  // Already due when the replica got it: Redis replicates absolute deadlines, and
  // the master's clock had jumped back.
  if (cfg_.replica && e.node() == 1 && has_ttl && due <= i.last_armed + sim::milliseconds(2)) {
    if (std::string jump = faults_.master_jump_back(i.last_armed); !jump.empty())
      return make(Cause::RedisClockJump, jump,
                  fmt::format("redis's clock had jumped back, so {} reached the replica already due and expired "
                              "there at {}",
                              key_text, sim::format_instant(i.ended)));
  }
  if (std::optional<Explanation> dated = dated_early_by_master(holder, i)) return *dated;
  if (has_ttl && i.early > lock::kStoreDeadlineRounding) {
    const std::string node = h_.ledger().node_name(e.node());
    std::string jump = faults_.redis_jump(node, i.last_armed, i.ended);
    const std::string early = sim::format_span(i.early);
    // A jump or a drift is the cause only when the holder would have left in time
    // had the key lived its whole lease, or would have renewed it meanwhile, or when its
    // own nested acquire, begun before that lease's true end, found the key gone: it would
    // have met the holder's own lock (a successor, by contrast, would only have got in later).
    const bool left_in_time = faults_.hold_end(holder, i.ended) <= due || renewed_within(holder, i.ended, due) ||
                              (violation_is_nested_acquire(holder, until) && until < due);
    if (!jump.empty() && left_in_time)
      return make(Cause::RedisClockJump, jump,
                  fmt::format("{}'s clock jumped, so {} expired at {}, {} before its lease ended", node, key_text,
                              sim::format_instant(i.ended), early));
    const std::string drift = faults_.redis_drift(e.node());
    if (!drift.empty() && left_in_time)
      return make(Cause::RedisClockDrift, drift,
                  fmt::format("{}'s clock ran fast, so {} expired at {}, {} early", node, key_text,
                              sim::format_instant(i.ended), early));
    // The store's clock ended it early, but the holder would have outlasted its true end
    // anyway: what kept it there is the cause, judged when it ended (what followed, a
    // nested acquire that took the lock afresh, say, came of that end), and said so.
    if (!jump.empty() || !drift.empty())
      return on_time(holder, i.last_armed, i.ended,
                     fmt::format("'s lease was ended {} early by {}'s clock", early, node));
  }
  if (std::optional<Explanation> dated = dated_short_by_holder(holder, i)) return *dated;
  // Otherwise the lease ran out as it was written, when the store ended the instance
  // (a database's cleanup deletes a row at its next pass, not when its time passes).
  return on_time(holder, i.last_armed, i.ended, "'s lease expired");
}

// A deadline the holder's own clock dated (a database row's expires_at), behind true time:
// the store ended the instance on that deadline, before a lease counted from its last arming
// was over, and before the deadline a clock right then would have dated. Asked of an
// instance the store's clock did not end early (the ledger's `early`) and whose deadline a
// master did not write (a replica's copy until its promotion).
std::optional<Explanation> Classifier::dated_short_by_holder(uint32_t holder, const lock::LockInstance& i) const {
  const lock::Ledger& ledger = h_.ledger();
  const Instant due = i.deadline;
  if (due == Instant::never() || i.early.ns > 0 || i.ended >= i.last_armed + cfg_.lock.lease) return std::nullopt;
  if (ledger.has_replica() && i.node == ledger.replica() &&
      (!ledger.promoted_at() || i.last_armed < *ledger.promoted_at()))
    return std::nullopt;
  const Duration behind = -faults_.clock_error(holder, i.last_armed);
  const std::string clock = faults_.clock_of(holder, i.last_armed);
  if (behind.ns <= 0 || i.ended >= due + behind || clock.empty()) return dated_before_held(holder, i);
  const std::string a = name(holder);
  const std::string took = i.last_armed == i.granted ? "took" : "re-armed";
  const std::string dated =
      due <= i.last_armed
          ? fmt::format("dated {}'s lock's deadline {} before {} {} it at {}", a, sim::format_span(i.last_armed - due),
                        a, took, sim::format_instant(i.last_armed))
          : fmt::format("dated {}'s lock's deadline at {}, {} short of a lease counted from when {} {} it at {}", a,
                        sim::format_instant(due), sim::format_span(i.last_armed + cfg_.lock.lease - due), a, took,
                        sim::format_instant(i.last_armed));
  return make(Cause::ClientClockSkew, clock,
              fmt::format("{}'s clock, {} behind true time, {}: the store ended it at {}, {} into a {} lease, while "
                          "{} held it; a clock right then would have dated it past that",
                          a, sim::format_span(behind), dated, sim::format_instant(i.ended),
                          sim::format_span(i.ended - i.last_armed), sim::format_duration(cfg_.lock.lease), a));
}

// The acquire's command that made the instance, its deadline dated when it was sent (a
// database row's expires_at), waited in flight: a fault held it, or held a call of the
// holder's ahead of it on its FIFO connection (call=A:N:delay:D, in flight when the acquire
// began and landed by the grant). It reached the store that much nearer its end; without
// the wait the holder would have entered that much sooner and left before the store ended
// it. Asked of what dated_short_by_holder asks.
std::optional<Explanation> Classifier::dated_before_held(uint32_t holder, const lock::LockInstance& i) const {
  const HistoryEvent* held = nullptr;
  const Instant since = acquire_start(holder, i.granted);
  Duration by{};  // how long the hold kept the acquire's command from the store
  for (const HistoryEvent& e : h_.events()) {
    if (e.at > i.granted) break;
    const Instant landed = e.at + Duration{e.status};
    if (e.client != holder || e.step != Step::CallDelayed || e.purpose == Purpose::Resource || landed < since ||
        landed > i.granted)
      continue;
    held = &e;
    by = landed - std::max(e.at, since);
  }
  if (!held || by.ns <= 0 || faults_.hold_end_sooner(holder, i.granted, by) >= i.ended) return std::nullopt;
  const std::string a = name(holder);
  return make(Cause::LeaseDelayed,
              to_string(lock::CallFault{holder, static_cast<uint32_t>(held->token), lock::CallFault::Kind::Delay,
                                        Duration{held->status}, lock::CallFault::On::Call}),
              fmt::format("{}'s acquire command, its deadline dated as it was sent, {} and reached the store at "
                          "{}: the store ended {}'s lock at {}, {} into a {} lease, while {} held it; without the "
                          "wait {} would have left before",
                          a,
                          held->at >= since
                              ? fmt::format("was held {} in flight", sim::format_span(by))
                              : fmt::format("waited {} in flight behind a call of {}'s held from {}",
                                            sim::format_span(by), a, sim::format_instant(held->at)),
                          sim::format_instant(i.granted), a, sim::format_instant(i.ended),
                          sim::format_span(i.ended - i.granted), sim::format_duration(cfg_.lock.lease), a, a));
}

// A promoted replica's copy carries the absolute deadline the master's clock wrote (Redis
// replicates deadlines, not TTLs): a master clock behind true time (drifting slow, jumped
// back) dated it before the end of the lease the master granted, and the replica, its
// clock right, ended it that much early. The cause when the holder would have left, or
// renewed, by the deadline the master's own instance had.
std::optional<Explanation> Classifier::dated_early_by_master(uint32_t holder, const lock::LockInstance& i) const {
  const lock::Ledger& ledger = h_.ledger();
  // Only a deadline the copy still has from the master: one the holder armed on the promoted
  // replica since was dated by the replica's own clock.
  if (!ledger.has_replica() || i.node != ledger.replica() || i.deadline == Instant::never() ||
      !ledger.promoted_at() || i.last_armed >= *ledger.promoted_at())
    return std::nullopt;
  const lock::LockInstance* master = nullptr;
  for (const lock::LockInstance& m : ledger.instances())
    if (m.end == lock::InstanceEnd::HandedOver && m.successor == i.id) master = &m;
  if (!master) return std::nullopt;
  const std::string clock = master_dated_early(holder, *master, i.ended);
  if (clock.empty()) return std::nullopt;
  return make(clock.starts_with("redis-drift") ? Cause::RedisClockDrift : Cause::RedisClockJump, clock,
              fmt::format("{}'s clock, behind true time, wrote {}'s deadline; the replica promoted at {} carried it "
                          "and ended {}'s lock at {}, {} before the lease {} granted ran out",
                          ledger.node_name(master->node), name(holder), sim::format_instant(*ledger.promoted_at()),
                          name(holder), sim::format_instant(i.ended), sim::format_span(master->deadline - i.ended),
                          ledger.node_name(master->node)));
}

// The master's instance that a failover lost: the replica had a copy of it, made after its
// grant, but that copy had ended before the promotion, on a deadline the master's clock,
// behind true time, dated early: it expired there, or a re-arm the master replicated
// (PEXPIREAT, an absolute time) came already past and deleted it. Without that, the copy
// would have lived to the promotion (the master's own deadline was later) and carried the
// hold on.
std::optional<Explanation> Classifier::copy_dated_early(uint32_t holder, const lock::LockInstance& master) const {
  const lock::Ledger& ledger = h_.ledger();
  if (!ledger.has_replica() || !ledger.promoted_at() || master.deadline <= *ledger.promoted_at()) return std::nullopt;
  const lock::LockInstance* copy = nullptr;
  for (const lock::LockInstance& c : ledger.instances())
    if (c.node == ledger.replica() && c.key == master.key && c.owner == master.owner && c.granted >= master.granted &&
        c.ended < *ledger.promoted_at() &&
        (c.end == lock::InstanceEnd::Expired ||
         (c.end == lock::InstanceEnd::Released && c.ended_purpose != Purpose::Release)))
      copy = &c;
  if (!copy) return std::nullopt;
  const std::string clock = master_dated_early(holder, master, copy->ended);
  if (clock.empty()) return std::nullopt;
  const std::string m = ledger.node_name(master.node), r = ledger.node_name(copy->node);
  return make(clock.starts_with("redis-drift") ? Cause::RedisClockDrift : Cause::RedisClockJump, clock,
              fmt::format("{}'s clock, behind true time, dated {}'s deadline already past when {} got it: its copy there "
                          "ended at {}, {} before the lease {} granted ran out, so {}, promoted at {}, had no "
                          "copy of {}'s lock to carry on",
                          m, name(holder), r, sim::format_instant(copy->ended),
                          sim::format_span(master.deadline - copy->ended), m, r,
                          sim::format_instant(*ledger.promoted_at()), name(holder)));
}

// The fault that set the master's clock behind when its deadline for `master` reached the
// replica, whose copy then ended at `ended`, before that deadline; "" if none did or if the
// holder would not have left, or renewed, by the master's deadline anyway.
std::string Classifier::master_dated_early(uint32_t holder, const lock::LockInstance& master, Instant ended) const {
  if (master.deadline == Instant::never() || ended + sim::milliseconds(2) >= master.deadline) return "";
  const bool left_in_time =
      faults_.hold_end(holder, ended) <= master.deadline || renewed_within(holder, ended, master.deadline);
  return left_in_time ? faults_.master_clock_behind(ended) : "";
}

// Someone else's acquire took over the holder's live instance.
Explanation Classifier::overwritten(uint32_t holder, const Ending& e) const {
  const lock::LockInstance& i = *e.instance;
  const std::string a = name(holder), y = name(i.ended_by);
  if (i.holder_deadline == Instant::never()) {
    const Instant began = acquire_start(i.ended_by, i.ended);
    // Its acquire began on the old master and its write ran on the promoted replica: whatever it
    // watched or read there, the replica's connection never had it, whatever else happened to
    // its own connection. The failover did that: a mechanism of its own, which a deployment
    // without failover rules out (asked first, so that a reset beside it never takes its name).
    const lock::Ledger& ledger = h_.ledger();
    if (ledger.has_replica() && i.node == ledger.replica() && ledger.promoted_at() && began < *ledger.promoted_at())
      return make(Cause::WatchLostInFailover, faults_.server_crash(ledger.node_name(0), *ledger.promoted_at()),
                  fmt::format("{}'s acquire began on the master that died; its EXEC ran unwatched on the replica "
                              "promoted at {} and overwrote {}'s lock",
                              y, sim::format_instant(*ledger.promoted_at()), a));
    if (std::string reset = faults_.reset_of(i.ended_by, began, i.ended); !reset.empty())
      return make(Cause::WatchLost, reset,
                  fmt::format("{}'s connection was reset, its WATCH was lost, and its EXEC overwrote {}'s lock", y, a));
    // The node restarted while its acquire ran: the connection it watched on went with it,
    // and its EXEC ran unwatched on the next one.
    if (faults_.restarted_within(i.node, began, i.ended))
      return make(Cause::WatchLost, faults_.server_crash(h_.ledger().node_name(i.node), i.ended),
                  fmt::format("{} restarted while {}'s acquire ran: its WATCH went with the connection, and its EXEC "
                              "ran unwatched and overwrote {}'s lock",
                              h_.ledger().node_name(i.node), y, a));
    return make(Cause::TakeoverRace, "", fmt::format("{}'s acquire overwrote {}'s live lock", y, a));
  }
  // A timestamp lock: had the holder's own deadline passed, in true time?
  return taken_over(holder, i, "took over");
}

// A timestamp lock taken over at i.ended by another client's acquire: by its
// own rule (the holder's deadline, in true time) it had lapsed, or the taker
// misjudged it by a skewed clock, or it raced.
Explanation Classifier::taken_over(uint32_t holder, const lock::LockInstance& i, std::string_view how) const {
  const std::string a = name(holder), y = name(i.ended_by);
  if (i.ended + sim::milliseconds(2) < i.holder_deadline) {
    // The holder's clock wrote the timestamp and the taker's read it: either may be off.
    // When the reader's error alone falls short of how early it judged, the writer's
    // made up the rest: it is how far the two disagree that counts, so name both.
    const std::string reader = faults_.clock_of(i.ended_by, i.ended), writer = faults_.clock_of(holder, i.ended);
    const bool both = !reader.empty() && !writer.empty() &&
                      faults_.clock_error(i.ended_by, i.ended) + sim::milliseconds(2) < i.holder_deadline - i.ended;
    if (both)
      return make(Cause::ClientClockSkew, reader + "; " + writer,
                  fmt::format("{} judged {}'s timestamp expired at {}, {} before it was: {}'s clock wrote it and "
                              "{}'s read it, and the two disagree by more than that; {} {} the lock",
                              y, a, sim::format_instant(i.ended), sim::format_span(i.holder_deadline - i.ended), a,
                              y, y, how));
    if (const std::string clock = reader.empty() ? writer : reader; !clock.empty())
      return make(Cause::ClientClockSkew, clock,
                  fmt::format("{} judged {}'s timestamp expired by a skewed clock and {} the lock at {}", y, a, how,
                              sim::format_instant(i.ended)));
    return make(Cause::TakeoverRace, "",
                fmt::format("{} {} {}'s unexpired lock at {}", y, how, a, sim::format_instant(i.ended)));
  }
  // Its lease ran from the stamp it wrote, which its acquire computed before it won (and
  // kept through a GET and a GETSET): a pause or a slow reply in between ate the lease.
  const Instant stamped = i.holder_deadline - cfg_.lock.lease;
  const Instant from = stamped < i.last_armed ? std::max(stamped, acquire_start(holder, i.last_armed)) : i.last_armed;
  return on_time(holder, from, i.holder_deadline, "'s timestamp lapsed");
}

// How the holder's instance ended (`until`: when the violation showed).
Explanation Classifier::ended(uint32_t holder, const Ending& e, Instant until) const {
  const lock::LockInstance& i = *e.instance;
  const std::string a = name(holder);
  const std::string node = h_.ledger().node_name(e.node());
  switch (e.kind) {
    case Ending::Kind::Deleted: {
      const std::string y = name(i.ended_by);
      if (i.ended_purpose == Purpose::Acquire) {
        // A timestamp lock's waiter deletes what it judged expired (del-setnx).
        if (i.holder_deadline != Instant::never()) return taken_over(holder, i, "deleted");
        return make(Cause::TakeoverRace, "",
                    fmt::format("{}'s acquire deleted {}'s fresh lock at {}", y, a, sim::format_instant(i.ended)));
      }
      Explanation inner = stale(i.ended_by, holder, i.granted, i.ended);
      const Cause c = i.ended_purpose == Purpose::Renew ? Cause::StaleRenewal : Cause::StaleRelease;
      return Explanation{c, inner.fault,
                         fmt::format("{}'s stale {} deleted {}'s lock at {}; {}", y, to_string(i.ended_purpose), a,
                                     sim::format_instant(i.ended), inner.sentence)};
    }
    case Ending::Kind::Overwritten: return overwritten(holder, e);
    case Ending::Kind::Expired: return expired(holder, e, until);
    case Ending::Kind::ServerLost: {
      if (e.node() == lock::kDatabaseNode)
        return on_time(holder, i.last_armed, i.ended, "'s transaction was ended by the database");
      const std::string fault = faults_.server_crash(node, i.ended);
      // Still down when the violation showed: nothing was forgotten and served again;
      // the lock's calls to that node failed (the deployment's to rule out: redis-up).
      if (!faults_.restarted_within(e.node(), i.ended, until))
        return make(Cause::RedisDown, fault,
                    fmt::format("{} crashed and had not come back: {}'s lock went with it and every call to {} "
                                "failed",
                                node, a, node));
      if (cfg_.masters > 1)
        return make(Cause::RedlockForgotVote, fault,
                    fmt::format("{} crashed without persistence and forgot its vote for {}", node, a));
      return make(Cause::RedisRestartLost, fault,
                  fmt::format("{} crashed without persistence and forgot {}'s lock", node, a));
    }
    case Ending::Kind::FailedOver:
      if (std::optional<Explanation> dated = copy_dated_early(holder, i)) return *dated;
      return make(Cause::FailoverLost, faults_.server_crash(h_.ledger().node_name(0), i.ended),
                  fmt::format("the master died before replicating {}'s lock; the replica promoted at {} never had it",
                              a, sim::format_instant(*h_.ledger().promoted_at())));
  }
  return {};
}

// A release or renewal sent while its client still held, or had just left, that a fault
// held in flight (call=A:N:delay:D) until after another client was granted the lock: it was
// not sent stale, it landed stale. Otherwise the sender's own lock had lapsed under it.
Explanation Classifier::stale(uint32_t by, uint32_t owner, Instant granted, Instant at) const {
  const HistoryEvent* held = nullptr;
  for (const HistoryEvent& e : h_.events()) {
    if (e.at > at) break;
    if (e.client == by && e.step == Step::CallDelayed &&
        (e.purpose == Purpose::Release || e.purpose == Purpose::Renew) && e.at < granted &&
        e.at + Duration{e.status} <= at)
      held = &e;
  }
  const std::string b = name(by);
  const std::string what = held && held->purpose == Purpose::Renew ? "renewal" : "release";
  if (!held) {
    if (std::optional<Explanation> again = released_twice(by, owner, granted, at)) return *again;
    if (std::optional<Explanation> late = landed_late(by, owner, granted, at)) return *late;
    return lapse(by, acquire_start(by, at), at, owner);
  }
  return make(Cause::StaleRelease,
              to_string(lock::CallFault{by, static_cast<uint32_t>(held->token), lock::CallFault::Kind::Delay,
                                        Duration{held->status}, lock::CallFault::On::Call}),
              fmt::format("{}'s {} sent its call {} at {}, before {} acquired at {}; a fault held that call {} in "
                          "flight (what the {} sent after it waited behind it), and it reached the store only at {}",
                          b, what, held->token, sim::format_instant(held->at), name(owner),
                          sim::format_instant(granted), sim::format_span(Duration{held->status}), what,
                          sim::format_instant(at)));
}

// One release of `by` that had already deleted `by`'s own lock went on, its answer not
// heard in time, to delete at `at` the lock `owner` was granted at `granted` since (a
// release that retries by key after a timeout): what kept the first answer from it.
std::optional<Explanation> Classifier::released_twice(uint32_t by, uint32_t owner, Instant granted,
                                                      Instant at) const {
  const HistoryEvent* start = nullptr;
  for (const HistoryEvent& e : h_.events()) {
    if (e.at > at) break;
    if (e.client != by || e.depth != 0) continue;
    if (e.step == Step::ReleaseStart) start = &e;
    if (e.step == Step::Released && e.at < at) start = nullptr;
  }
  if (!start || start->at >= granted) return std::nullopt;
  // A call of the release, sent before the grant, heard only when its call timed out.
  const lock::CallRecord* call = nullptr;
  for (const lock::CallRecord& c : h_.touches().calls())
    if (c.client == by && c.sent >= start->at && c.sent < granted && c.ended != Instant::never() &&
        c.ended - c.sent >= cfg_.lock.call_timeout && !call)
      call = &c;
  if (!call) return std::nullopt;
  const lock::LockInstance* own = nullptr;  // the holder's own lock, if that release deleted it first
  for (const lock::LockInstance& i : h_.ledger().instances())
    if (i.owner == by && i.key == cfg_.lock.key && !i.copy && i.end == lock::InstanceEnd::Released &&
        i.ended_by == by && i.ended >= start->at && i.ended <= granted)
      own = &i;
  std::string fault = faults_.lost_call(by, start->at, at, Purpose::Release);
  if (fault.empty()) fault = faults_.held_call(by, start->at, at, false);
  if (fault.empty() && call->spiked) fault = "delay spikes";
  const std::string b = name(by);
  const std::string first =
      own ? fmt::format("{}'s release deleted {}'s own lock at {}, but its answer did not come before its call timed "
                        "out",
                        b, b, sim::format_instant(own->ended))
          : fmt::format("{}'s release, begun at {}, got no answer to its call sent at {} before the call timed out",
                        b, sim::format_instant(start->at), sim::format_instant(call->sent));
  return make(Cause::StaleRelease, fault,
              fmt::format("{}; the same release went on and deleted at {} the lock {} had acquired at {} since", first,
                          sim::format_instant(at), name(owner), sim::format_instant(granted)));
}

std::optional<Explanation> Classifier::landed_late(uint32_t by, uint32_t owner, Instant granted,
                                                   Instant at) const {
  const HistoryEvent* start = nullptr;
  Instant crashed = Instant::never();
  for (const HistoryEvent& e : h_.events()) {
    if (e.at > at) break;
    if (e.client != by) continue;
    if (e.step == Step::ReleaseStart && e.depth == 0) start = &e, crashed = Instant::never();
    if (e.step == Step::Released && e.depth == 0 && e.at < at) start = nullptr;
    if (e.step == Step::Crashed && start) crashed = e.at;
  }
  // Only a release whose own key change is the deletion at `at`, begun before the grant.
  const auto& facts = h_.ledger().facts();
  const bool deleted_then = std::any_of(facts.begin(), facts.end(), [&](const lock::LockFact& f) {
    return f.at == at && f.client == by && f.kind == lock::FactKind::Ended && f.purpose == Purpose::Release;
  });
  if (!start || start->at >= granted || !deleted_then || cfg_.latency.spike_probability <= 0) return std::nullopt;
  // The command that deleted: the release's last call sent by then (by its incarnation, if it
  // crashed). Sent before the grant, and slower than the latency's base and jitter allow.
  const Instant sent_by = crashed != Instant::never() ? crashed : at;
  const lock::CallRecord* call = nullptr;
  for (const lock::CallRecord& c : h_.touches().calls())
    if (c.client == by && c.sent >= start->at && c.sent <= sent_by) call = &c;
  const sim::LatencyDist& l = cfg_.latency;
  if (!call || call->sent >= granted || at - call->sent <= l.base + l.jitter) return std::nullopt;
  const std::string b = name(by);
  return make(Cause::StaleRelease, "delay spikes",
              fmt::format("{}'s release, begun at {} before {} acquired at {}, reached the store only at {}{}: a "
                          "slow message of the network held it",
                          b, sim::format_instant(start->at), name(owner), sim::format_instant(granted),
                          sim::format_instant(at),
                          crashed != Instant::never()
                              ? fmt::format(", after {} had crashed at {}", b, sim::format_instant(crashed))
                              : std::string()));
}

bool Classifier::entered_lapsed(uint32_t client, Instant at) const {
  if (client == lock::kNoClient) return false;
  Instant entered = Instant::never();
  for (const HistoryEvent& e : h_.events()) {
    if (e.at > at) break;
    if (e.client == client && e.step == Step::Acquired && e.depth == 0) entered = e.at;
  }
  if (entered == Instant::never()) return false;
  const std::vector<const lock::LockInstance*> held = hold_instances(client, acquire_start(client, entered));
  return !held.empty() && std::all_of(held.begin(), held.end(), [&](const lock::LockInstance* i) {
    return !i->live() && i->end != lock::InstanceEnd::HandedOver && i->ended < entered;
  });
}

// Why the holder's lock stopped protecting it between since and until, as
// seen on the node where `successor` then got in.
Explanation Classifier::lapse(uint32_t holder, Instant since, Instant until, uint32_t successor) const {
  const std::vector<Ending> all = endings(holder, since, until);
  // The last end the successor's set followed on its node: an earlier instance of the
  // holder's (a key a failover kept, say) ended too, but the holder had set it again.
  const Ending* chosen = nullptr;
  for (const Ending& e : all)
    for (const lock::LockInstance& x : h_.ledger().instances())
      if (x.owner == successor && x.node == e.node() && x.key == cfg_.lock.key && x.granted >= e.at() &&
          x.granted <= until) {
        chosen = &e;
        break;
      }
  // On several masters the successor got in on its own quorum: the last of the holder's
  // ends on those nodes let it in (an end on a node it did without decided nothing).
  // With no successor to ask, the hold lapsed when too few of its instances were left
  // for a quorum: the end that broke the majority.
  const size_t held_on = hold_instances(holder, since).size(), quorum = cfg_.masters / 2 + 1;
  if (cfg_.masters > 1 && !chosen && held_on >= quorum && all.size() > held_on - quorum)
    chosen = &all[held_on - quorum];
  if (!chosen && !all.empty()) chosen = &all.front();
  if (chosen) return ended(holder, *chosen, until);
  if (faults_.reply_timed_out(holder, since, until) || faults_.reply_timed_out(successor, since, until)) {
    const std::string lost = faults_.lost_call(holder, since, until);
    return make(
        Cause::AmbiguousReply, lost.empty() ? faults_.lost_call(successor, since, until) : lost,
        fmt::format("a command of {} or {} timed out and its effect was misjudged", name(holder), name(successor)));
  }
  return make(Cause::Unknown, "", fmt::format("{}'s lock was never seen to end", name(holder)));
}

// Why a nested acquire met someone else's lock or took a fresh one: the outer
// lease had lapsed (and how), or the nested acquire waited on the lock its own hold kept.
Explanation Classifier::reentrancy(uint32_t first, const Violation& v) const {
  // A nested acquire that met someone else's lock, or took a fresh one, came after the outer lease lapsed.
  Instant nested = v.from;
  for (const auto& e : h_.events())
    if (e.at <= v.from && e.client == first && e.step == Step::AcquireStart && e.depth > 0) nested = e.at;
  Explanation outer = lapse(first, acquire_start(first, nested), nested, lock::kNoClient);
  if (outer.cause != Cause::Unknown) return outer;
  // A nested acquire that got in only once the outer lock was gone had waited on itself.
  Instant got = nested;
  for (const auto& e : h_.events())
    if (e.at >= nested && e.client == first && e.step == Step::Acquired && e.depth > 0) {
      got = e.at;
      break;
    }
  // Until it got in, or gave up (v.to): what became of the outer instance meanwhile.
  const Instant until = std::max(got, v.to);
  const Explanation meanwhile =
      until > nested ? lapse(first, acquire_start(first, nested), until, lock::kNoClient) : Explanation{};
  // A lock that does not claim reentrancy refuses its holder's nested acquire for as long
  // as the outer lease lives: whatever else happened while it waited (a pause, a cut that
  // stopped the renewals, a clock), it waited on itself, unless a Redis that was down
  // refused it. So does a lock that claims reentrancy but whose own lock refused the
  // nested acquire (the history's fact): it is judged on its claim. One that let its
  // holder straight back in: what became of the outer lease while the nested acquire was
  // pending is the cause.
  const bool reentrant = !waits_on_itself(first, nested, until);
  // Paused while its nested acquire was pending: it waited on nothing.
  if (reentrant && meanwhile.cause == Cause::LeasePaused) return meanwhile;
  // The store lost the outer instance: the nested acquire found no lock to re-enter, nor a store to ask.
  // So did any other mechanism that ended the outer lease while the nested acquire was
  // pending (renewals a cut stopped, a clock): only a lease that simply ran out while
  // the nested acquire waited is the lock waiting on itself.
  if (reentrant && meanwhile.cause != Cause::Unknown && meanwhile.cause != Cause::LeaseOutworked &&
      meanwhile.cause != Cause::LeaseDelayed &&
      meanwhile.cause != Cause::SelfDeadlock)
    return meanwhile;
  // Refused, not waiting: a store that was down while the nested acquire ran (one that
  // kept its keys, say) failed its calls; nothing waited on itself. A lock that does not
  // claim reentrancy refuses that acquire while its lease lives anyway: an outage decides
  // only if it was still on when the wait ended.
  // A call held in flight when the nested acquire began (call=A:N:delay:D): the acquire's
  // calls waited behind it on the client's FIFO connection, whatever else struck meanwhile.
  if (const std::string held = faults_.held_call(first, nested - cfg_.lock.call_timeout, nested, false, nested);
      reentrant && !held.empty())
    return make(Cause::AmbiguousReply, held,
                fmt::format("{}'s nested acquire got no answer in time: its calls waited behind a call of {}'s "
                            "held in flight",
                            name(first), name(first)));
  const Instant down_from = reentrant ? nested : std::max(nested, until - sim::milliseconds(1));
  if (const std::string down = faults_.any_down_within(down_from, until); !down.empty())
    return make(Cause::RedisDown, down,
                fmt::format("{}'s nested acquire met a Redis that was down: its calls failed", name(first)));
  // A lock that lets its holder straight back in: if its nested acquire still waited,
  // something kept the answer from it (a lost request or reply, a cut).
  if (const std::string blocked = reentrant ? nested_acquire_blocker(first, nested, until) : ""; !blocked.empty())
    return nested_unanswered(first, nested, until, blocked, meanwhile.cause != Cause::Unknown);
  if (meanwhile.cause != Cause::Unknown)
    return make(Cause::SelfDeadlock, fmt::format("nested={}", cfg_.workload.nested),
                fmt::format("{}'s nested acquire waited on the lock {} holds until its lease ran out, then took "
                            "a fresh one",
                            name(first), name(first)));
  if (v.from == v.to) return make(Cause::InnerRelease, "", "an inner release freed the lock under the outer hold");
  return make(Cause::SelfDeadlock, fmt::format("nested={}", cfg_.workload.nested),
              fmt::format("{}'s nested acquire waited on the lock {} holds", name(first), name(first)));
}

// A nested acquire of a lock that lets its holder back in got no answer over [from, to]:
// `blocked` is what kept it. A request the network lost never ran (the history's CallLost
// step, status 0): nothing was ambiguous, the client waited out the call's timeout for an
// answer that could not come. A lost reply or a cut leaves it not knowing what ran.
Explanation Classifier::nested_unanswered(uint32_t client, Instant from, Instant to, const std::string& blocked,
                                          bool lapsed) const {
  const std::string a = name(client);
  const std::string then = lapsed ? fmt::format(", and {}'s lease ran out meanwhile", a)
                                  : ", and it waited for one until it gave up";
  const HistoryEvent* lost = faults_.lost_call_step(client, from, to);
  if (lost && lost->status == 0 && blocked == faults_.lost_call(client, from, to))
    return make(Cause::RequestLost, blocked,
                fmt::format("{}'s nested acquire sent a request the network lost: the server never ran it, and {} "
                            "waited out the call's timeout for its answer{}",
                            a, a, lapsed ? fmt::format(" while {}'s lease ran out", a) : ", then gave up"));
  return make(Cause::AmbiguousReply, blocked, fmt::format("{}'s nested acquire got no answer{}", a, then));
}

std::vector<uint32_t> Classifier::votes_won(uint32_t client, Instant at) const {
  // Every vote its acquire won, whether it lasted or not (a majority won and lost since
  // is a lapse: the ends decide), but not one it gave back itself (an earlier attempt's).
  std::vector<uint32_t> won;
  for (const lock::LockInstance* i : hold_instances(client, acquire_start(client, at)))
    if (i->granted <= at && !(i->end == lock::InstanceEnd::Released && i->ended <= at)) won.push_back(i->node);
  return won;
}

// What a master whose vote the client did not win was doing while its acquire ran, by the
// ledger and the plan: holding someone else's lock, down, or cut off from the client.
std::string Classifier::vote_missing(uint32_t client, uint32_t node, Instant from, Instant at) const {
  const lock::Ledger& ledger = h_.ledger();
  const std::string n = ledger.node_name(node);
  if (const lock::LockInstance* other = ledger.at(cfg_.lock.key, node, at); other && other->owner != client)
    return fmt::format("{} held {}'s", n, name(other->owner));
  for (const sim::Fault& f : cfg_.faults.faults)
    if (f.kind == sim::FaultKind::Cut &&
        ((f.node == name(client) && f.peer == n) || (f.node == n && f.peer == name(client))) && f.at <= at &&
        (f.amount.ns == 0 || f.at + f.amount > from))
      return fmt::format("{} was cut off from it ({})", n, sim::to_string(f));
  if (std::string down = faults_.down_within(node, from, at); !down.empty())
    return fmt::format("{} was down ({})", n, down);
  return fmt::format("{} gave it none", n);
}

std::optional<Explanation> Classifier::short_of_quorum(uint32_t client, Instant at, uint32_t other) const {
  if (cfg_.masters < 2 || client == lock::kNoClient) return std::nullopt;
  const size_t quorum = cfg_.masters / 2 + 1;
  const std::vector<uint32_t> won = votes_won(client, at);
  if (won.size() >= quorum) return std::nullopt;
  const lock::Ledger& ledger = h_.ledger();
  auto names = [&](const std::vector<uint32_t>& nodes) {
    std::vector<std::string> out;
    for (uint32_t n : nodes) out.push_back(ledger.node_name(n));
    return nodes.empty() ? std::string() : fmt::format(" ({})", fmt::join(out, ", "));
  };
  std::vector<std::string> missing;
  for (uint32_t node = 0; node < cfg_.masters; ++node)
    if (std::find(won.begin(), won.end(), node) == won.end())
      missing.push_back(vote_missing(client, node, acquire_start(client, at), at));
  std::string sentence = fmt::format("{} entered having won the lock on {} of the {} masters{}, short of the {} a "
                                     "majority needs, at {}: {}",
                                     name(client), won.size(), cfg_.masters, names(won), quorum,
                                     sim::format_instant(at), fmt::join(missing, "; "));
  if (other != lock::kNoClient && other != client) {
    const std::vector<uint32_t> theirs = votes_won(other, at);
    if (theirs.size() < quorum)
      sentence += fmt::format("; {} too had entered on {} of them{}", name(other), theirs.size(), names(theirs));
  }
  return make(Cause::NoQuorum, "", sentence);
}

std::string Classifier::ttl_stretched(const lock::LockInstance& i, Instant until) const {
  const std::string node = h_.ledger().node_name(i.node);
  for (const auto& f : cfg_.faults.faults)
    if (f.kind == sim::FaultKind::ClockJump && f.node == node && f.amount.ns < 0 && f.at >= i.last_armed &&
        f.at <= until)
      return fmt::format("{}'s clock jumped back ({}), stretching the key's life", node, sim::to_string(f));
  if (i.node < cfg_.redis_drifts_ppm.size() && cfg_.redis_drifts_ppm[i.node] < 0)
    return fmt::format("{}'s clock ran slow (redis-drift={}:{:+}), stretching the key's life", node, node,
                       cfg_.redis_drifts_ppm[i.node]);
  return "";
}

std::string Classifier::crash_stretch(uint32_t client, const Violation& v) const {
  const lock::LockInstance* last = nullptr;
  for (const lock::LockInstance& i : h_.ledger().instances())
    if (i.owner == client && i.key == cfg_.lock.key && !i.copy && i.granted <= v.from) last = &i;
  if (!last || last->deadline == Instant::never()) return "";
  if (const std::string why = ttl_stretched(*last, v.to); !why.empty()) return ": " + why;
  // A deadline the holder's own clock dated (a database row's expires_at), ahead of true time.
  const Instant fair_end = last->last_armed + cfg_.lock.lease;
  const Duration ahead = faults_.clock_error(client, last->last_armed);
  std::string clock = faults_.clock_of(client, last->last_armed);
  for (const sim::Fault& f : cfg_.faults.faults)  // an offset and the jumps beside it: all moved that clock
    if (f.kind == sim::FaultKind::ClockJump && f.node == name(client) && f.at <= last->last_armed &&
        clock.find(sim::to_string(f)) == std::string::npos)
      clock += "; " + sim::to_string(f);
  if (last->deadline <= fair_end + sim::milliseconds(2) || ahead.ns <= 0 || clock.empty()) return "";
  return fmt::format(": {}'s clock, {} ahead of true time, dated its lock's deadline at {}, {} past a lease "
                     "counted from when it took it at {} ({})",
                     name(client), sim::format_span(ahead), sim::format_instant(last->deadline),
                     sim::format_span(last->deadline - fair_end), sim::format_instant(last->last_armed), clock);
}

bool Classifier::has_expiry(uint32_t client, Instant at) const {
  const lock::LockInstance* last = nullptr;
  for (const lock::LockInstance& i : h_.ledger().instances())
    if (i.owner == client && i.key == cfg_.lock.key && i.granted <= at) last = &i;
  return !last || last->deadline != Instant::never();
}

bool Classifier::claims_reentrancy() const {
  const lock::Algorithm* a = lock::find_algorithm(cfg_.algorithm);
  if (!a) return false;
  const auto claims = lock::claims_of(*a);
  return std::find(claims.begin(), claims.end(), "reentrancy") != claims.end();
}

// A lock that does not claim reentrancy refuses its holder's nested acquire for as long as
// the outer lease lives. One that claims it is judged on its claim: its nested acquire
// waited on itself when the history shows an acquire command of that wait meeting the
// client's own live instance and changing nothing (OwnLockRefused); otherwise it was let
// straight back in, or its requests never got an answer.
bool Classifier::waits_on_itself(uint32_t client, Instant from, Instant to) const {
  return !claims_reentrancy() || faults_.own_lock_refused(client, from, to);
}

// What kept a nested acquire of a lock that lets its holder back in from its answer
// within [from, to]: a lost request or reply, a cut or reset of its client; "" if nothing did.
std::string Classifier::nested_acquire_blocker(uint32_t client, Instant from, Instant to) const {
  if (std::string lost = faults_.lost_call(client, from, to); !lost.empty()) return lost;
  return faults_.renewal_blocker(client, from, to);
}

// Why the stale writer's write (first) reached the store after the newer writer's (second).
Explanation Classifier::fenced(uint32_t first, uint32_t second, const Violation& v) const {
  for (const auto& e : h_.events()) {
    if (e.at != v.to || e.client != first || e.step != Step::WriteAccepted || e.token < 0) continue;
    return make(Cause::FenceBackwards, faults_.any_server_crash(v.to),
                fmt::format("{}'s token {} was accepted though the hold was older: the counter went backwards",
                            name(first), e.token));
  }
  // When the newer writer entered the hold it wrote from: its last entry before its
  // last write before the stale one (it may have entered before the stale writer did,
  // when the stale writer's hold, older by its grant, entered late).
  Instant newer_write = v.to;
  for (const auto& e : h_.events())
    if (e.client == second && e.step == Step::WriteAccepted && e.at < v.to) newer_write = e.at;
  Instant newer = v.to;
  for (const auto& e : h_.events())
    if (e.client == second && e.step == Step::Acquired && e.depth == 0 && e.at <= newer_write) newer = e.at;
  // A write held in flight while the newer one landed: without the hold it would have
  // landed first (whatever else ended the hold), and its call's timeout is the hold's
  // doing, not an ambiguity of its own.
  if (std::optional<Explanation> held = write_held_in_flight(h_, cfg_, first, second, v.to)) return *held;
  if (std::optional<Explanation> q = short_of_quorum(second, newer, first)) return *q;
  Explanation e = lapse(first, acquire_start(first, v.from), newer, second);
  if (e.cause != Cause::Unknown) return e;
  return make(Cause::DelayedWrite, cfg_.latency.spike_probability > 0 ? "delay spikes" : "",
              fmt::format("{}'s write, sent while it held the lock, reached the store after {}'s", name(first),
                          name(second)));
}

Explanation Classifier::explain(const Violation& v) {
  v_ = &v;
  const uint32_t first = v.clients.empty() ? lock::kNoClient : v.clients.front();
  const uint32_t second = v.clients.size() > 1 ? v.clients[1] : lock::kNoClient;
  switch (v.property) {
    case Property::MutualExclusion: {
      // One of them never won a majority of the masters: whatever became of its votes
      // since (a master that crashed, a vote that expired), it had no lock to lose.
      for (uint32_t c : {second, first})
        if (std::optional<Explanation> q = short_of_quorum(c, v.from, c == second ? first : second)) return *q;
      // The second entered after every instance of its own hold had ended: it entered on a
      // lapsed lock, and how the first's lock ended since let nobody in.
      if (entered_lapsed(second, v.from)) {
        Explanation late = lapse(second, acquire_start(second, v.from), v.from, lock::kNoClient);
        if (late.cause != Cause::Unknown) return late;
      }
      Explanation e = lapse(first, acquire_start(first, v.from), v.from, second);
      // The first still held: then the second entered on a lock that had already lapsed.
      if (e.cause == Cause::Unknown) {
        Explanation late = lapse(second, acquire_start(second, v.from), v.from, lock::kNoClient);
        if (late.cause != Cause::Unknown) return late;
      }
      return e;
    }
    case Property::OwnerOnlyRelease: {
      // clients = {owner, the one whose release or renewal touched its lock}
      Instant granted = v.to;  // the owner's instance it touched: the last granted by then
      for (const lock::LockInstance& i : h_.ledger().instances())
        if (i.owner == first && i.key == cfg_.lock.key && !i.copy && i.granted <= v.to) granted = i.granted;
      Explanation inner = stale(second, first, granted, v.to);
      const auto& facts = h_.ledger().facts();
      const bool renewal = std::any_of(facts.begin(), facts.end(), [&](const lock::LockFact& f) {
        return f.at == v.to && f.client == second && f.purpose == Purpose::Renew;
      });
      return Explanation{
          renewal ? Cause::StaleRenewal : Cause::StaleRelease, inner.fault,
          fmt::format("{}'s {} was stale: {}", name(second), renewal ? "renewal" : "release", inner.sentence)};
    }
    case Property::FencedWrites: return fenced(first, second, v);
    case Property::NoDeadlock:
      if (v.clients.size() == 1)
        return make(
            Cause::CrashNoTtl, faults_.crash_of(first, v.from),
            "only its owner's release would free it");
      if (std::optional<Explanation> live = held_by_restarted(first, second, v)) return *live;
      return make(Cause::CrashBlocked, faults_.crash_of(first, v.from),
                  fmt::format("{} crashed at {} and its lock outlived {}{}", name(first), sim::format_instant(v.from),
                              has_expiry(first, v.from) ? "lease + slack"
                                                        : why_lock_outlived_holder(h_, cfg_, first, v.from, v.to),
                              crash_stretch(first, v)));
    case Property::Reentrancy: return reentrancy(first, v);
    case Property::VariantError: break;  // the variant's own error: nothing to classify
    case Property::NoZombieLock:
    case Property::NoStalledWait: break;  // their checks name the cause (check_zombie.cpp)
    case Property::BoundedWait: return overtaken(first, v);
  }
  return {};
}

}  // namespace

Explanation classify(const lock::History& history, const lock::SimulationConfig& config, const Violation& v) {
  Classifier c(history, config);
  return c.explain(v);
}

}  // namespace locksim::props
