// fenced-writes: the protected resource accepts writes in strictly increasing
// hold order — a write from a hold that a newer holder has already written
// after is stale and must be rejected (that is what a fencing token buys).
// reentrancy: the owner can acquire again while holding, and an inner release
// never frees the lock under the outer hold.
#include <fmt/format.h>

#include <optional>
#include <utility>

#include "locksim/props/check.hpp"

namespace locksim::props::detail {

using lock::Step;

namespace {

// When a hold was granted, as an order of holds. With a fencing token, the
// write that issued the token (an INCR of a counter, the ledger's write of
// that value by the acquire), in the order the store reported it: the
// token's order is the order of holds, across a Redis restart too (a counter
// that starts over is then caught). Without a token, the grant of the
// holder's instance (the ledger's). A client learns late when its reply is
// delayed or it is paused: that order is not the order of holds.
using HoldOrder = std::pair<Instant, size_t>;

// When the client's acquire that ended at event `acquired` set out.
Instant acquire_start(const Context& c, size_t acquired) {
  const lock::HistoryEvent& a = c.history.events()[acquired];
  for (size_t i = acquired; i-- > 0;) {
    const lock::HistoryEvent& e = c.history.events()[i];
    if (e.client == a.client && e.step == Step::AcquireStart && e.depth == 0) return e.at;
  }
  return Instant{};
}

HoldOrder granted_at(const Context& c, size_t acquired) {
  const lock::HistoryEvent& a = c.history.events()[acquired];
  if (a.token >= 0) {
    const std::string token = std::to_string(a.token);
    const Instant from = acquire_start(c, acquired);
    const lock::Ledger& ledger = c.history.ledger();
    std::optional<HoldOrder> issued;
    auto consider = [&](Instant at, uint64_t seq, uint32_t client, lock::Purpose purpose, const std::string& value) {
      if (client != a.client || purpose != lock::Purpose::Acquire || at < from || at > a.at || value != token) return;
      if (!issued || HoldOrder{at, seq} > *issued) issued = HoldOrder{at, seq};
    };
    for (const lock::KeyWrite& w : ledger.writes())
      if (w.kind == lock::KeyChange::Kind::Set) consider(w.at, w.seq, w.client, w.purpose, w.value);
    // A script may keep the token in the lock's own value.
    for (const lock::LockFact& f : ledger.facts())
      if (f.kind == lock::FactKind::Granted || f.kind == lock::FactKind::Rearmed) consider(f.at, f.seq, f.client, f.purpose, f.value);
    return issued.value_or(HoldOrder{a.at, acquired});
  }
  const lock::LockInstance* last = nullptr;
  for (const lock::LockInstance* i : c.history.ledger().granted_to(a.client))
    if (i->key == c.config.lock.key && i->granted <= a.at) last = i;
  if (!last) return {a.at, acquired};
  return {last->granted, last->id};
}

}  // namespace

std::optional<Violation> fenced_writes(const Context& c) {
  const HoldOrder kNoHold{Instant::never(), ~size_t{0}};
  std::vector<HoldOrder> hold_of(c.history.clients().size(), kNoHold);
  std::vector<Instant> hold_since(c.history.clients().size());
  HoldOrder newest_written{};
  bool written = false;
  uint32_t newest_writer = lock::kNoClient;
  Instant newest_at;
  const auto& events = c.history.events();
  for (size_t i = 0; i < events.size(); ++i) {
    const lock::HistoryEvent& e = events[i];
    if (e.client >= hold_of.size()) continue;
    if (e.step == Step::Acquired && e.depth == 0) {
      hold_of[e.client] = granted_at(c, i);
      hold_since[e.client] = e.at;
    }
    if (e.step != Step::WriteAccepted || hold_of[e.client] == kNoHold) continue;
    const HoldOrder hold = hold_of[e.client];
    if (written && hold < newest_written) {
      return Violation{
          Property::FencedWrites,
          {e.client, newest_writer},
          c.config.lock.key,
          hold_since[e.client],
          e.at,
          fmt::format("the store accepted {}'s stale write at {} after {}'s newer write at {}", c.name(e.client),
                      sim::format_instant(e.at), c.name(newest_writer), sim::format_instant(newest_at))};
    }
    newest_written = hold;
    written = true;
    newest_writer = e.client;
    newest_at = e.at;
  }
  return std::nullopt;
}

// Whether every instance `client`'s outer hold (its acquire ran from `outer.first` to
// `outer.second`; an instance granted in it may have lapsed before it ended) had lapsed before
// `by`: expired at the deadline it was given, or taken or deleted by another client. A nested acquire after that met a lock
// that was no longer its own, and what follows (it took a fresh lock its inner release then
// freed, or it gave up on another's) is the lapsed lease's failure, mutual exclusion's, not the
// nesting's: reentrancy promises nothing about a hold that is already gone. A hold the store
// ended early or lost (a clock jump, a restart without persistence, a failover) did not lapse:
// what the nesting then does shows the store's fault, under reentrancy, by its cause.
bool outer_hold_lost_before(const Context& c, uint32_t client, std::pair<Instant, Instant> outer, Instant by) {
  const auto [outer_start, outer_at] = outer;
  // A lock that refused its own holder's nested acquire failed at nesting, whatever the lease did after.
  for (const lock::HistoryEvent& e : c.history.events())
    if (e.step == Step::OwnLockRefused && e.client == client && e.at >= outer_at && e.at <= by) return false;
  const lock::Ledger& ledger = c.history.ledger();
  bool held_any = false;
  for (const lock::LockInstance* i : ledger.granted_to(client)) {
    if (i->key != c.config.lock.key || i->copy || i->granted > outer_at) continue;
    if (!i->live() && i->ended <= outer_start) continue;
    held_any = true;
    const lock::LockInstance* last = i;  // a failover's promoted copy carries the hold on
    while (last->end == lock::InstanceEnd::HandedOver && last->successor < ledger.instances().size())
      last = &ledger.instances()[last->successor];
    if (last->live() || last->ended >= by) return false;
    // An expiry before the deadline it was given (a jumped or drifting store clock) is the store's doing.
    const bool lapsed = (last->end == lock::InstanceEnd::Expired && !last->expired_early()) ||
                        ((last->end == lock::InstanceEnd::Overwritten || last->end == lock::InstanceEnd::ReleasedByOther) &&
                         last->ended_by != client);
    if (!lapsed) return false;
  }
  return held_any;
}

std::optional<Violation> reentrancy(const Context& c) {
  // An inner release (ReleaseStart at depth > 0, until Released) that ended its own instance.
  const size_t clients = c.history.clients().size();
  std::vector<std::vector<std::pair<Instant, Instant>>> inner(clients);
  std::vector<std::optional<Instant>> open(clients);
  // The client's last outermost acquire (from its start to its grant), and each inner release's.
  std::vector<std::pair<Instant, Instant>> outer_at(clients, {Instant::never(), Instant::never()});
  std::vector<std::vector<std::pair<Instant, Instant>>> outer_of_inner(clients);
  std::optional<Violation> found;
  std::vector<std::optional<Instant>> nested_start(clients);
  for (const auto& e : c.history.events()) {
    if (e.client >= clients) continue;
    if (e.step == Step::AcquireStart && e.depth == 0) outer_at[e.client].first = e.at;
    if (e.step == Step::Acquired && e.depth == 0) outer_at[e.client].second = e.at;
    if (e.step == Step::ReleaseStart) open[e.client] = e.depth > 0 ? std::optional<Instant>(e.at) : std::nullopt;
    if (e.step == Step::Released && open[e.client]) {
      inner[e.client].push_back({*open[e.client], e.at});
      outer_of_inner[e.client].push_back(outer_at[e.client]);
      open[e.client].reset();
    }
    if (e.step == Step::AcquireStart && e.depth > 0) nested_start[e.client] = e.at;
    if (e.step == Step::AcquireFailed && e.depth > 0 && !found) {
      Instant from = nested_start[e.client].value_or(e.at);
      if (outer_hold_lost_before(c, e.client, outer_at[e.client], e.at)) continue;
      found = Violation{Property::Reentrancy,
                        {e.client},
                        c.config.lock.key,
                        from,
                        e.at,
                        // What it waited on, if anything, is the cause's to say (a down Redis refuses).
                        fmt::format("{} could not take again the lock it holds: its nested acquire gave up after {}",
                                    c.name(e.client), sim::format_span(e.at - from))};
    }
  }
  for (uint32_t client = 0; client < open.size(); ++client)
    if (open[client]) {
      inner[client].push_back({*open[client], c.end.at});
      outer_of_inner[client].push_back(outer_at[client]);
    }
  const lock::Ledger& ledger = c.history.ledger();
  for (const lock::LockInstance& i : ledger.instances()) {
    if (i.end != lock::InstanceEnd::Released || i.ended_by >= inner.size() || i.key != c.config.lock.key) continue;
    // A replica's copy ends when the master's delete reaches it, a lag later: by then the
    // client may be in another hold's inner release. Only what clients are served counts.
    if (i.copy) continue;
    if (found && found->from <= i.ended) continue;
    for (size_t w = 0; w < inner[i.ended_by].size(); ++w) {
      const auto& [from, to] = inner[i.ended_by][w];
      if (i.ended < from || i.ended > to) continue;
      if (outer_hold_lost_before(c, i.ended_by, outer_of_inner[i.ended_by][w], i.granted)) continue;
      found = Violation{
          Property::Reentrancy,
          {i.ended_by},
          c.config.lock.key,
          i.ended,
          i.ended,
          fmt::format("{}'s inner release deleted the lock while its outer hold went on", c.name(i.ended_by))};
      break;
    }
  }
  return found;
}

}  // namespace locksim::props::detail
