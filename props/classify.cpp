// The classifier: follows the lock instance that a violation overran, per
// Redis node, to the event that ended it (a delete, an overwrite, an expiry,
// a server that forgot it, a failover), then asks why that event came early
// or why the holder did not notice: Redis's clock against true time, the
// holder's pauses and clock, its renewals, the faults of the plan.
#include <fmt/format.h>

#include <algorithm>

#include "locksim/lock/redis_node.hpp"
#include "locksim/props/check.hpp"
#include "locksim/props/classify.hpp"
#include "locksim/props/classify_faults.hpp"

namespace locksim::props {

using lock::HistoryEvent;
using lock::Purpose;
using lock::Step;

namespace {

// How a holder's instance on one node ended.
struct Ending {
  enum class Kind : uint8_t { Deleted, Overwritten, Expired, ServerLost, FailedOver } kind;
  uint32_t node = 0;
  const HistoryEvent* event = nullptr;    // the effect or server event that ended it
  const HistoryEvent* refresh = nullptr;  // the holder's last set or re-arm of it (for expiry)
};

class Classifier {
 public:
  Classifier(const lock::History& h, const lock::SimulationConfig& cfg) : h_(h), cfg_(cfg), faults_(h, cfg) {}
  Explanation explain(const Violation& v);

 private:
  std::string name(uint32_t c) const { return h_.client_name(c); }
  bool lock_key(const HistoryEvent& e) const { return e.key == cfg_.lock.key; }
  Instant acquire_start(uint32_t client, Instant before) const;
  std::vector<Ending> endings(uint32_t holder, Instant since, Instant until) const;
  Explanation lapse(uint32_t holder, Instant since, Instant until, uint32_t successor) const;
  Explanation ended(uint32_t holder, const Ending& e) const;
  Explanation expired(uint32_t holder, const Ending& e) const;
  Explanation overwritten(uint32_t holder, const Ending& e) const;
  Explanation on_time(uint32_t holder, Instant from, Instant to, std::string_view what) const;
  Explanation reentrancy(uint32_t first, const Violation& v) const;
  bool renews() const;
  // Per node: when the acquire begun at `since` set the key it then learned it won
  // (its last set there before it acquired); `since` where there is none.
  std::vector<Instant> winning_sets(uint32_t holder, Instant since, size_t nodes) const;
  // Whether the holder tried to renew its lease in (after, until].
  bool renewed_within(uint32_t holder, Instant after, Instant until) const;

  const lock::History& h_;
  const lock::SimulationConfig& cfg_;
  FaultFinder faults_;
};

Explanation make(Cause c, std::string fault, std::string sentence) {
  if (!fault.empty()) sentence += fmt::format(" ({})", fault);
  return Explanation{c, std::move(fault), std::move(sentence)};
}

Instant Classifier::acquire_start(uint32_t client, Instant before) const {
  Instant since{};
  for (const auto& e : h_.events()) {
    if (e.at > before) break;
    if (e.client == client && e.step == Step::AcquireStart && e.depth == 0) since = e.at;
  }
  return since;
}

std::vector<Instant> Classifier::winning_sets(uint32_t holder, Instant since, size_t nodes) const {
  std::vector<Instant> won(nodes, since);
  for (const auto& e : h_.events()) {
    if (e.at < since || e.client != holder) continue;
    if (e.step == Step::KeySet && e.purpose == Purpose::Acquire && lock_key(e) && e.server < nodes)
      won[e.server] = e.at;
    if (e.step == Step::Acquired && e.depth == 0) return won;
  }
  return std::vector<Instant>(nodes, since);
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

// Follows the owner of the lock key on every node; records each end of the
// holder's instances between `since` and `until`.
std::vector<Ending> Classifier::endings(uint32_t holder, Instant since, Instant until) const {
  std::vector<detail::Instance> owner(std::max<size_t>(1, lock::redis_node_names(cfg_).size()));
  std::vector<const HistoryEvent*> refresh(owner.size(), nullptr);
  std::vector<Ending> out;
  const RunEnd end{until};
  const CheckOptions options;
  const detail::Context c{h_, cfg_, end, options};
  const std::vector<Instant> won = winning_sets(holder, since, owner.size());
  bool master_down = false, promoted = false;
  for (const auto& e : h_.events()) {
    if (e.at > until) break;
    if (e.server >= owner.size()) continue;
    const uint32_t n = e.server;
    // A replica's copy only counts once it is promoted (it is followed before, to know what it lacks).
    // An instance set before the set the holder learned it won by is not the hold's:
    // a key an earlier incarnation set, or an earlier attempt whose reply was lost.
    const bool mine = owner[n].owner == holder && owner[n].since >= won[n] && e.at >= since &&
                      (!cfg_.replica || (n == 1) == promoted);
    if (e.step == Step::ServerCrashed && !e.keys_survive) {
      if (cfg_.replica && n == 0) {
        master_down = true;
        continue;
      }  // failover, or a restart, decides
      if (mine) out.push_back({Ending::Kind::ServerLost, n, &e, refresh[n]});
      owner[n] = {};
      continue;
    }
    if (e.step == Step::ServerRestarted && cfg_.replica && n == 0 && master_down) {
      master_down = false;
      if (!e.keys_survive) {
        if (owner[0].owner == holder && e.at >= since) out.push_back({Ending::Kind::ServerLost, 0, &e, refresh[0]});
        owner[0] = {};
      }
      continue;
    }
    if (e.step == Step::ReplicaPromoted) {
      promoted = true;
      if (owner[0].owner == holder && owner[1].owner != holder && e.at >= since)
        out.push_back({Ending::Kind::FailedOver, 1, &e, refresh[0]});
      continue;
    }
    if (!lock_key(e)) continue;
    if (e.step == Step::KeyDeleted && e.client == lock::kNoClient) {  // a crash flushed the node
      if (cfg_.replica && n == 0) continue;                           // failover, or a restart, decides
      if (mine) out.push_back({Ending::Kind::ServerLost, n, &e, refresh[n]});
      owner[n] = {};
      continue;
    }
    if (e.step == Step::KeySet && detail::starts_instance(c, e, owner[n])) {
      if (mine && e.client != holder) out.push_back({Ending::Kind::Overwritten, n, &e, refresh[n]});
      owner[n] = {e.client, e.at};
      refresh[n] = &e;
    } else if ((e.step == Step::KeySet || e.step == Step::KeyExpireChanged) && owner[n].owner == e.client) {
      refresh[n] = &e;
    } else if (e.step == Step::KeyDeleted || e.step == Step::KeyExpired) {
      if (mine && !(e.step == Step::KeyDeleted && e.client == holder))
        out.push_back({e.step == Step::KeyExpired ? Ending::Kind::Expired : Ending::Kind::Deleted, n, &e, refresh[n]});
      owner[n] = {};
    }
  }
  return out;
}

// Why the holder's lease ran out between `from` (its last set or re-arm) and
// `to` (when it ran out) without the holder knowing.
Explanation Classifier::on_time(uint32_t holder, Instant from, Instant to, std::string_view what) const {
  const std::string a = name(holder);
  const Instant left = faults_.hold_end(holder, to);
  const Duration paused = faults_.paused_within(holder, from, to);
  const bool renewing = renews() && faults_.renewal_enabled(holder);
  // A pause explains it when, without it, the holder would have finished in
  // time (or, with renewals, when it froze the renewal for most of the lease);
  // also when the holder entered late: a paused client enters when it resumes,
  // whatever its clock says.
  const bool paused_then = faults_.paused_within(holder, to, to + sim::milliseconds(1)).ns > 0;
  // A renewal a cut had already stopped was not frozen by a later pause.
  const bool renewal_cut_first = renewing && faults_.cut_before_pause(holder, from, to);
  if (paused.ns > 0 && !renewal_cut_first &&
      (renewing ? paused_then || paused * 2 >= to - from : left - faults_.paused_within(holder, from, left) < to))
    return make(Cause::LeasePaused, faults_.pause_of(holder, from, to),
                fmt::format("{}{} at {} while {} was paused", a, what, sim::format_instant(to), a));
  // It entered after its lease was over: its own clock told it the lease was still valid.
  if (faults_.entered_after(holder, from, to) && faults_.clock_misled(holder, from, to))
    return make(Cause::ClientClockSkew, faults_.clock_of(holder, to),
                fmt::format("{}{} at {}, but {}'s clock said its lease was still valid and it entered", a, what,
                            sim::format_instant(to), a));
  if (renewing)
    return make(
        Cause::RenewalStopped, faults_.renewal_blocker(holder, from, to),
        fmt::format("{}'s renewals stopped reaching Redis and {}{} at {}", a, a, what, sim::format_instant(to)));
  if (faults_.clock_misled(holder, from, to))
    return make(Cause::ClientClockSkew, faults_.clock_of(holder, to),
                fmt::format("{}'s clock ran slow: its work looked short to it, but {}{} at {} while it worked", a, a,
                            what, sim::format_instant(to)));
  if (faults_.reply_timed_out(holder, from, to))
    return make(Cause::AmbiguousReply, faults_.work_fault(holder, from),
                fmt::format("{}'s command timed out and {}{} at {} while it waited and worked on", a, a, what,
                            sim::format_instant(to)));
  return make(Cause::LeaseOutworked, faults_.work_fault(holder, from),
              fmt::format("{}{} at {} while {} still worked", a, what, sim::format_instant(to), a));
}

Explanation Classifier::expired(uint32_t holder, const Ending& e) const {
  const HistoryEvent& x = *e.event;
  const std::string key_text = fmt::format("{}'s lock", name(holder));
  if (e.refresh) {
    const HistoryEvent& r = *e.refresh;
    // When the key should have expired, in true time, had Redis's clock kept pace.
    const Instant due = r.at + sim::milliseconds(r.expire_at_ms - lock::unix_ms(r.local));
    // Already due when the replica got it: Redis replicates absolute deadlines, and
    // the master's clock had jumped back.
    if (cfg_.replica && e.node == 1 && r.expire_at_ms >= 0 && due <= r.at + sim::milliseconds(2)) {
      if (std::string jump = faults_.master_jump_back(r.at); !jump.empty())
        return make(Cause::RedisClockJump, jump,
                    fmt::format("redis's clock had jumped back, so {} reached the replica already due and expired "
                                "there at {}",
                                key_text, sim::format_instant(x.at)));
    }
    if (r.expire_at_ms >= 0 && x.at + sim::milliseconds(2) < due) {
      const std::string node = lock::redis_node_name(cfg_, e.node);
      std::string jump = faults_.redis_jump(node, r.at, x.at);
      const std::string early = sim::format_span(due - x.at);
      // A jump or a drift is the cause only when the holder would have left in time
      // had the key lived its whole lease, or would have renewed it meanwhile.
      const bool left_in_time = faults_.hold_end(holder, x.at) <= due || renewed_within(holder, x.at, due);
      if (!jump.empty() && left_in_time)
        return make(Cause::RedisClockJump, jump,
                    fmt::format("{}'s clock jumped, so {} expired at {}, {} before its lease ended", node, key_text,
                                sim::format_instant(x.at), early));
      if (std::string drift = faults_.redis_drift(e.node); !drift.empty() && left_in_time)
        return make(Cause::RedisClockDrift, drift,
                    fmt::format("{}'s clock ran fast, so {} expired at {}, {} early", node, key_text,
                                sim::format_instant(x.at), early));
    }
    // Expiry is lazy: the key may go only when touched; its lease ended at `due`.
    return on_time(holder, r.at, r.expire_at_ms >= 0 ? std::min(x.at, due) : x.at, "'s lease expired");
  }
  return on_time(holder, acquire_start(holder, x.at), x.at, "'s lease expired");
}

// Someone else's acquire replaced the holder's live value.
Explanation Classifier::overwritten(uint32_t holder, const Ending& e) const {
  const HistoryEvent& x = *e.event;
  const std::string a = name(holder), y = name(x.client);
  auto number = [](const std::optional<std::string>& s) {
    return s && !s->empty() && std::all_of(s->begin(), s->end(), [](char ch) { return ch >= '0' && ch <= '9'; });
  };
  if (!number(x.old_value) || !number(x.new_value)) {
    if (std::string reset = faults_.reset_of(x.client, acquire_start(x.client, x.at), x.at); !reset.empty())
      return make(Cause::WatchLost, reset,
                  fmt::format("{}'s connection was reset, its WATCH was lost, and its EXEC overwrote {}'s lock", y, a));
    return make(Cause::TakeoverRace, "", fmt::format("{}'s acquire overwrote {}'s live lock", y, a));
  }
  // A timestamp lock: was the holder's timestamp really past, in true time?
  const Instant set_at = e.refresh ? e.refresh->at : acquire_start(holder, x.at);
  if (x.at + sim::milliseconds(2) < set_at + cfg_.lock.lease) {
    std::string clock = faults_.clock_of(x.client, x.at);
    if (clock.empty()) clock = faults_.clock_of(holder, x.at);
    if (!clock.empty())
      return make(Cause::ClientClockSkew, clock,
                  fmt::format("{} judged {}'s timestamp expired by a skewed clock and took the lock over at {}", y, a,
                              sim::format_instant(x.at)));
    return make(Cause::TakeoverRace, "",
                fmt::format("{} took over {}'s unexpired lock at {}", y, a, sim::format_instant(x.at)));
  }
  return on_time(holder, set_at, set_at + cfg_.lock.lease, "'s timestamp lapsed");
}

Explanation Classifier::ended(uint32_t holder, const Ending& e) const {
  const HistoryEvent& x = *e.event;
  const std::string a = name(holder);
  const std::string node = lock::redis_node_name(cfg_, e.node);
  switch (e.kind) {
    case Ending::Kind::Deleted: {
      const std::string y = name(x.client);
      if (x.purpose == Purpose::Acquire)
        return make(Cause::TakeoverRace, "",
                    fmt::format("{}'s acquire deleted {}'s fresh lock at {}", y, a, sim::format_instant(x.at)));
      Explanation inner = lapse(x.client, acquire_start(x.client, x.at), x.at, holder);
      const Cause c = x.purpose == Purpose::Renew ? Cause::StaleRenewal : Cause::StaleRelease;
      return Explanation{c, inner.fault,
                         fmt::format("{}'s stale {} deleted {}'s lock at {}; {}", y, to_string(x.purpose), a,
                                     sim::format_instant(x.at), inner.sentence)};
    }
    case Ending::Kind::Overwritten: return overwritten(holder, e);
    case Ending::Kind::Expired: return expired(holder, e);
    case Ending::Kind::ServerLost: {
      const std::string fault = faults_.server_crash(node, x.at);
      if (cfg_.masters > 1)
        return make(Cause::RedlockForgotVote, fault,
                    fmt::format("{} restarted without persistence and forgot its vote for {}", node, a));
      return make(Cause::RedisRestartLost, fault,
                  fmt::format("{} restarted without persistence and forgot {}'s lock", node, a));
    }
    case Ending::Kind::FailedOver:
      return make(Cause::FailoverLost, faults_.server_crash(lock::redis_node_name(cfg_, 0), x.at),
                  fmt::format("the master died before replicating {}'s lock; the replica promoted at {} never had it",
                              a, sim::format_instant(x.at)));
  }
  return {};
}

// Why the holder's lock stopped protecting it between since and until, as
// seen on the node where `successor` then got in.
Explanation Classifier::lapse(uint32_t holder, Instant since, Instant until, uint32_t successor) const {
  const std::vector<Ending> all = endings(holder, since, until);
  // The last end the successor's set followed on its node: an earlier instance of the
  // holder's (a key a failover kept, say) ended too, but the holder had set it again.
  const Ending* chosen = nullptr;
  for (const Ending& e : all) {
    for (const auto& x : h_.events()) {
      if (x.at < e.event->at || x.at > until) continue;
      if (x.client == successor && x.server == e.node && x.step == Step::KeySet && lock_key(x)) {
        chosen = &e;
        break;
      }
    }
  }
  if (!chosen && !all.empty()) chosen = &all.front();
  if (chosen) return ended(holder, *chosen);
  if (faults_.reply_timed_out(holder, since, until) || faults_.reply_timed_out(successor, since, until))
    return make(
        Cause::AmbiguousReply, "",
        fmt::format("a command of {} or {} timed out and its effect was misjudged", name(holder), name(successor)));
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
  const Explanation meanwhile =
      got > nested ? lapse(first, acquire_start(first, nested), got, lock::kNoClient) : Explanation{};
  // Paused while its nested acquire was pending: it waited on nothing.
  if (meanwhile.cause == Cause::LeasePaused) return meanwhile;
  if (meanwhile.cause != Cause::Unknown)
    return make(Cause::SelfDeadlock, fmt::format("nested={}", cfg_.workload.nested),
                fmt::format("{}'s nested acquire waited on the lock {} holds until its lease ran out, then took "
                            "a fresh one",
                            name(first), name(first)));
  if (v.from == v.to) return make(Cause::InnerRelease, "", "an inner release freed the lock under the outer hold");
  return make(Cause::SelfDeadlock, fmt::format("nested={}", cfg_.workload.nested),
              fmt::format("{}'s nested acquire waited on the lock {} holds", name(first), name(first)));
}

Explanation Classifier::explain(const Violation& v) {
  const uint32_t first = v.clients.empty() ? lock::kNoClient : v.clients.front();
  const uint32_t second = v.clients.size() > 1 ? v.clients[1] : lock::kNoClient;
  switch (v.property) {
    case Property::MutualExclusion: {
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
      Explanation inner = lapse(second, acquire_start(second, v.to), v.to, first);
      const bool renewal = std::any_of(h_.events().begin(), h_.events().end(), [&](const HistoryEvent& e) {
        return e.at == v.to && e.client == second && lock_key(e) && e.purpose == Purpose::Renew;
      });
      return Explanation{
          renewal ? Cause::StaleRenewal : Cause::StaleRelease, inner.fault,
          fmt::format("{}'s {} was stale: {}", name(second), renewal ? "renewal" : "release", inner.sentence)};
    }
    case Property::FencedWrites: {
      for (const auto& e : h_.events()) {
        if (e.at != v.to || e.client != first || e.step != Step::WriteAccepted || e.token < 0) continue;
        return make(Cause::FenceBackwards, faults_.any_server_crash(v.to),
                    fmt::format("{}'s token {} was accepted though the hold was older: the counter went backwards",
                                name(first), e.token));
      }
      Instant newer = v.to;
      for (const auto& e : h_.events())
        if (e.client == second && e.step == Step::Acquired && e.depth == 0 && e.at > v.from && e.at <= v.to) {
          newer = e.at;
          break;
        }
      Explanation e = lapse(first, acquire_start(first, v.from), newer, second);
      if (e.cause != Cause::Unknown) return e;
      return make(Cause::DelayedWrite, cfg_.latency.spike_probability > 0 ? "delay spikes" : "",
                  fmt::format("{}'s write, sent while it held the lock, reached the store after {}'s", name(first),
                              name(second)));
    }
    case Property::NoDeadlock:
      if (v.clients.size() == 1)
        return make(
            Cause::CrashNoTtl, faults_.crash_of(first, v.from),
            fmt::format("{} crashed at {} holding a key without a TTL", name(first), sim::format_instant(v.from)));
      return make(
          Cause::CrashBlocked, faults_.crash_of(first, v.from),
          fmt::format("{} crashed at {} and its key outlived lease + slack", name(first), sim::format_instant(v.from)));
    case Property::Reentrancy: return reentrancy(first, v);
    case Property::VariantError: break;  // the variant's own error: nothing to classify
    case Property::NoZombieLock:
    case Property::NoStalledWait: break;  // their checks name the cause (check_zombie.cpp)
    case Property::BoundedWait:
      return make(Cause::Overtaken, "",
                  fmt::format("later arrivals kept winning the retry race while {} waited", name(first)));
  }
  return {};
}

}  // namespace

Explanation classify(const lock::History& history, const lock::SimulationConfig& config, const Violation& v) {
  Classifier c(history, config);
  return c.explain(v);
}

}  // namespace locksim::props
