// no-deadlock: no lock key is left without a TTL by a dead client, and after
// the holder dies a waiting client gets the lock within lease + slack.
// bounded-wait: a waiter is not overtaken by more than a few later arrivals
// (a pause or a cut takes the waiter out of line: it arrives again after it).
// Also the metrics: the unavailability window after a holder dies (F11) and
// the longest wait (F20).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <utility>

#include "locksim/lock/redis_node.hpp"
#include "locksim/props/check.hpp"
#include "locksim/props/scenario.hpp"

namespace locksim::props::detail {

using lock::Step;

namespace {

// Each death of a client while it owned the lock key's instance, and when
// that instance ended (or the run did), from the ledger.
struct OrphanedLock {
  uint32_t holder;
  Instant died, freed;
  bool freed_before_end;
  bool expires = false;  // it has a deadline: a TTL, or the lock's own (a timestamp lock's, which others take over)
};

std::vector<OrphanedLock> orphans(const Context& c) {
  std::vector<OrphanedLock> out;
  const lock::Ledger& ledger = c.history.ledger();
  // Followed on the first node that serves (with several masters, each has its own copy).
  for (const auto& e : c.history.events()) {
    if (e.step != Step::Crashed) continue;
    const lock::LockInstance* held = nullptr;
    for (const lock::LockInstance& i : ledger.instances()) {
      if (i.owner != e.client || i.key != c.config.lock.key || i.granted > e.at || i.over() <= e.at || i.copy) continue;
      if (i.node != 0 && i.node != lock::kDatabaseNode && !(ledger.has_replica() && i.node == ledger.replica()))
        continue;
      if (!ledger.serving(i.node, e.at)) continue;
      held = &i;
    }
    if (!held || (!out.empty() && out.back().holder == e.client && out.back().freed > e.at)) continue;
    // A failover hands it on: it is freed when the copy goes.
    const lock::LockInstance* last = held;
    while (last->end == lock::InstanceEnd::HandedOver && last->successor != lock::kNoInstance)
      last = &ledger.instance(last->successor);
    const bool expires = last->deadline != Instant::never() || last->holder_deadline != Instant::never();
    // Still live at the end: it frees at its deadline, if it has one, even past the end of the run (the window is what it
    // costs, F11).
    const Instant deadline = last->deadline != Instant::never() ? last->deadline : last->holder_deadline;
    const Instant freed = std::max(last->live() ? deadline : last->ended, e.at);
    out.push_back(OrphanedLock{e.client, e.at, freed == Instant::never() ? c.end.at : freed,
                               freed != Instant::never() && freed <= c.end.at, expires});
  }
  return out;
}

}  // namespace

std::optional<Violation> no_deadlock(const Context& c, Metrics& m) {
  const Duration bound = c.config.lock.lease + c.options.deadlock_slack;
  std::optional<Violation> found;
  for (const OrphanedLock& o : orphans(c)) {
    m.unavailability = std::max(m.unavailability, o.freed - o.died);
    if (found) continue;
    if (!o.freed_before_end && !o.expires && c.end.key_exists && c.end.key_pttl_ms == -1) {
      found = Violation{Property::NoDeadlock,
                        {o.holder},
                        c.config.lock.key,
                        o.died,
                        c.end.at,
                        fmt::format("{} died at {} holding {}, which has no expiry: it stays forever",
                                    c.name(o.holder), sim::format_instant(o.died), c.config.lock.key)};
      continue;
    }
    // A waiter that gave up long after the holder died.
    std::vector<std::optional<Instant>> waiting(c.history.clients().size());
    for (const auto& e : c.history.events()) {
      if (e.client >= waiting.size()) continue;
      if (e.step == Step::AcquireStart && e.depth == 0) waiting[e.client] = e.at;
      if (e.step == Step::Acquired) waiting[e.client].reset();
      if (e.step == Step::AcquireFailed && e.depth == 0 && waiting[e.client] && e.client != o.holder) {
        Instant since = std::max(*waiting[e.client], o.died);
        if (e.at > o.died && e.at <= o.freed && e.at - since > bound) {
          found = Violation{Property::NoDeadlock,
                            {o.holder, e.client},
                            c.config.lock.key,
                            o.died,
                            e.at,
                            fmt::format("{} gave up after waiting {} for the lock {} died holding", c.name(e.client),
                                        sim::format_span(e.at - since), c.name(o.holder))};
          break;
        }
      }
    }
  }
  return found;
}

namespace {

// When a client was out of line: paused (stop-the-world), cut off from
// Redis, or Redis was down or its clock jumped ahead. Such a client is not waiting: nothing of it
// reaches the queue, and a fair lock drops its ticket once its heartbeat lapses.
std::vector<std::vector<std::pair<Instant, Instant>>> out_of_line(const Context& c) {
  std::vector<std::vector<std::pair<Instant, Instant>>> out(c.history.clients().size());
  std::vector<std::optional<Instant>> paused(out.size());
  for (const auto& e : c.history.events()) {
    if (e.client >= out.size()) continue;
    if (e.step == Step::Paused) paused[e.client] = e.at;
    if ((e.step == Step::Resumed || e.step == Step::Crashed) && paused[e.client]) {
      out[e.client].push_back({*paused[e.client], e.at});
      paused[e.client].reset();
    }
  }
  for (uint32_t client = 0; client < out.size(); ++client)
    if (paused[client]) out[client].push_back({*paused[client], c.end.at});
  // While Redis is down nobody is in line, and a restart starts a new line
  // (the old one is forgotten, or its heartbeats lapsed meanwhile).
  std::optional<Instant> down;
  for (const auto& e : c.history.events()) {
    if (e.step == Step::ServerCrashed && !down) down = e.at;
    if (e.step == Step::ServerRestarted && down) {
      for (auto& client : out) client.push_back({*down, e.at});
      down.reset();
    }
  }
  if (down)
    for (auto& client : out) client.push_back({*down, c.end.at});
  // Redis's clock jumping ahead expires the queue's heartbeats at once: a new line too.
  const std::vector<std::string> servers = lock::redis_node_names(c.config);
  for (const sim::Fault& f : c.config.faults.faults)
    if (f.kind == sim::FaultKind::ClockJump && f.amount.ns > 0 &&
        std::find(servers.begin(), servers.end(), f.node) != servers.end())
      for (auto& client : out) client.push_back({f.at, f.at});
  for (const sim::Fault& f : c.config.faults.faults) {
    if (f.kind != sim::FaultKind::Cut) continue;
    auto client = client_index(f.node);
    if (!client || *client >= out.size()) continue;
    const Instant healed = f.amount.ns > 0 ? f.at + f.amount : c.end.at;
    out[*client].push_back({f.at, healed});
  }
  return out;
}

// A queue (the fair lock's ticket) is joined by an acquire's change to
// another key before any to the lock key: the waiter arrives when Redis gives
// it its place, not when it set out (a delayed or paused request arrives
// late; a replica's copy of its earlier write is no arrival). A queue's waiter whose requests had no effect at all
// never got back in line (they were lost, and it waited for their timeout): it arrives at the end. Spin locks keep no
// place in line: they arrive when they start.
Instant arrival(const Context& c, const std::vector<ClientChange>& changes, uint32_t client, Instant from, Instant to,
                bool queue) {
  const lock::Ledger& ledger = c.history.ledger();
  for (const ClientChange& k : changes) {
    // A replica's copy of an earlier write is no new arrival, until the replica serves.
    if (ledger.has_replica() && k.node == ledger.replica() && !ledger.serving(k.node, k.at)) continue;
    if (k.at < from || k.client != client || k.purpose != lock::Purpose::Acquire) continue;
    if (k.at > to) break;
    return k.on_lock ? from : k.at;
  }
  return queue ? to : from;
}

// Whether the lock keeps a queue: a waiter's acquire wrote another key
// before the lock's (a fencing counter drawn once the lock is won is no queue).
bool keeps_queue(const Context& c, const std::vector<ClientChange>& changes) {
  std::vector<bool> waiting(c.history.clients().size(), false);
  for (const StepOrChange& m : steps_and_changes(c, changes)) {
    if (m.client >= waiting.size()) continue;
    if (const lock::HistoryEvent* e = m.step) {
      if (e->step == Step::AcquireStart && e->depth == 0) waiting[m.client] = true;
      if (e->step == Step::Acquired || e->step == Step::AcquireFailed) waiting[m.client] = false;
      continue;
    }
    if (m.change->purpose != lock::Purpose::Acquire || !m.change->sets || !waiting[m.client]) continue;
    if (!m.change->on_lock) return true;
    waiting[m.client] = false;
  }
  return false;
}

}  // namespace

std::optional<Violation> bounded_wait(const Context& c, Metrics& m) {
  struct Wait {
    uint32_t client;
    Instant from, to;
    bool acquired;
  };
  std::vector<Wait> waits;
  std::vector<std::optional<Instant>> open(c.history.clients().size());
  for (const auto& e : c.history.events()) {
    if (e.client >= open.size() || (e.depth != 0 && e.step == Step::AcquireStart)) continue;
    if (e.step == Step::AcquireStart) open[e.client] = e.at;
    bool ended = (e.step == Step::Acquired && e.depth == 0) || (e.step == Step::AcquireFailed && e.depth == 0) ||
                 e.step == Step::Crashed;
    if (ended && open[e.client]) {
      waits.push_back(Wait{e.client, *open[e.client], e.at, e.step == Step::Acquired});
      open[e.client].reset();
    }
  }
  // A wait counts from when the waiter was last back in line, and then from
  // when it took its place in the queue, if the lock keeps one.
  const auto away = out_of_line(c);
  const std::vector<ClientChange> changes = client_changes(c);
  const bool queue = keeps_queue(c, changes);
  for (Wait& w : waits) {
    for (const auto& [from, to] : away[w.client])
      if (from < w.to && to > w.from) w.from = std::min(to, w.to);
    w.from = arrival(c, changes, w.client, w.from, w.to, queue);
  }
  std::optional<Violation> found;
  for (const Wait& w : waits) {
    m.longest_wait = std::max(m.longest_wait, w.to - w.from);
    uint32_t overtakes = 0;
    std::set<uint32_t> overtakers;
    for (const Wait& o : waits)
      if (o.client != w.client && o.acquired && o.from > w.from && o.to < w.to) ++overtakes, overtakers.insert(o.client);
    m.max_overtakes = std::max(m.max_overtakes, overtakes);
    if (!found && overtakes > c.options.max_overtakes) {
      // Counted in acquires: one client that comes back for the lock again and again overtakes each time.
      std::vector<std::string> names;
      for (uint32_t o : overtakers) names.push_back(c.name(o));
      found = Violation{Property::BoundedWait,
                        {w.client},
                        c.config.lock.key,
                        w.from,
                        w.to,
                        fmt::format("{} waited {} while clients that came later got the lock first {} times ({})",
                                    c.name(w.client), sim::format_span(w.to - w.from), overtakes,
                                    fmt::join(names, ", "))};
    }
  }
  return found;
}

// F06: a losing acquire's write moved the holder's deadline (a timestamp in
// the value): the ledger's foreign rewrites by acquires, the values before and after.
void expiry_drift(const Context& c, Metrics& m) {
  const lock::Ledger& ledger = c.history.ledger();
  std::vector<std::string> value(ledger.instances().size());
  for (const lock::LockFact& f : ledger.facts()) {
    if (f.kind == lock::FactKind::Ended) continue;
    std::string before = std::exchange(value[f.instance], f.value);
    if (f.kind != lock::FactKind::RearmedByOther || f.purpose != lock::Purpose::Acquire) continue;
    try {
      int64_t drift_ms = std::stoll(f.value) - std::stoll(before);
      if (drift_ms < 0) drift_ms = -drift_ms;
      m.expiry_drift = std::max(m.expiry_drift, sim::milliseconds(drift_ms));
    } catch (...) {
      // Values that are not timestamps: no drift to measure.
    }
  }
}

}  // namespace locksim::props::detail
