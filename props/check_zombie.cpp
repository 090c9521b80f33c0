// The liveness properties (docs/failures.md, F24 and F25):
// no-zombie-lock: nothing keeps the lock alive while no client holds it. A renewal
//   that goes on re-arming the key after its holder stopped holding it (Redisson's
//   renewal that outlives a timed-out unlock) keeps everyone out while nobody works.
// no-stalled-wait: a waiter is not kept waiting while the lock is free. A waiter
//   that reached Redis and was refused while the lock was free, and again at least
//   the bound later with the lock free all along, waits on something that is not the
//   lock (a fair-lock queue stalled behind a waiter that is gone).
// The bound of both is the lease plus the deadlock slack, as no-deadlock's: the time a
// correct lock needs to get over a holder or a waiter that died.
//
// Whether the lock is held is the ledger's (its instances on the node that serves the
// lock: the master, the replica once promoted), never rebuilt from key changes;
// which clients hold it is what they said (Acquired, Released).
// A lock on several masters (Redlock) or in the database is not followed here.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "locksim/lock/registry.hpp"
#include "locksim/props/check.hpp"
#include "locksim/props/classify_faults.hpp"
#include "locksim/props/scenario.hpp"

namespace locksim::props::detail {

using lock::Step;

namespace {

Duration liveness_bound(const Context& c) { return c.config.lock.lease + c.options.deadlock_slack; }

std::string in_ms(Duration d) { return sim::format_duration(sim::milliseconds(d.ns / 1'000'000)); }

bool followed(const Context& c) {
  if (c.config.masters != 1) return false;
  const lock::Algorithm* a = lock::find_algorithm(c.config.algorithm);
  return !(a && a->uses_database);
}

// When the lock key was held on the node that served clients, as the ledger
// saw it: each instance's life (lives()) cut to the time its node served
// (a replica's copy serves from its promotion, the master until then). Expiry
// is the store's true instant, not when a lazy expiry was noticed.
class ServedLock {
 public:
  explicit ServedLock(const Context& c) {
    const lock::Ledger& ledger = c.history.ledger();
    const std::optional<Instant> promoted = ledger.promoted_at();
    for (const lock::LockInstance& i : ledger.instances()) {
      if (i.key != c.config.lock.key) continue;
      for (Window w : lives(c, i)) {
        if (ledger.has_replica() && i.node == ledger.replica())
          w.from = std::max(w.from, promoted.value_or(Instant::never()));
        else if (ledger.has_replica() && promoted)
          w.to = std::min(w.to, *promoted);
        if (w.from < w.to) windows_.push_back(w);
      }
    }
    std::sort(windows_.begin(), windows_.end(), [](const Window& a, const Window& b) { return a.from < b.from; });
  }
  bool held(Instant t) const { return serving_instance(t) != lock::kNoInstance; }
  // The instance that served the lock at `t`, or kNoInstance.
  uint32_t serving_instance(Instant t) const {
    for (const Window& w : windows_) {
      if (w.from > t) break;
      if (t < w.to) return w.instance;
    }
    return lock::kNoInstance;
  }
  // Every instant at which the key came or went.
  std::vector<Instant> edges() const {
    std::vector<Instant> out;
    for (const Window& w : windows_) out.push_back(w.from), out.push_back(w.to);
    return out;
  }

 private:
  struct Window {
    Instant from, to;
    uint32_t instance;
  };
  // When the instance held the lock. A key with a TTL holds it from its grant to its end.
  // A timestamp lock (no TTL; its holder declared a deadline) is free by its own rule
  // once its stamp has passed, key or no key: each write of a stamp (the grant, a
  // re-arm) holds it for a lease, the stamp the lock writes (now + lease).
  static std::vector<Window> lives(const Context& c, const lock::LockInstance& i) {
    const bool stamped = i.deadline == Instant::never() && i.holder_deadline != Instant::never();
    if (!stamped) return {Window{i.granted, i.over(), i.id}};
    std::vector<Window> out;
    for (const lock::LockFact* f : c.history.ledger().facts_of(i.id)) {
      if (f->kind == lock::FactKind::Ended || f->kind == lock::FactKind::Visible) continue;
      const Window w{f->at, std::min(i.over(), f->at + c.config.lock.lease), i.id};
      if (!out.empty() && w.from <= out.back().to)
        out.back().to = std::max(out.back().to, w.to);
      else if (w.from < w.to)
        out.push_back(w);
    }
    return out;
  }
  std::vector<Window> windows_;
};

// What left a client's renewal running after its last release at or before `at`: the
// fault that kept its unlock from an answer (a lost request or reply aimed at it, a
// cut, a reset), as the scenario writes it, and a sentence that says so.
struct FailedRelease {
  std::string fault;  // "" if no fault of the plan explains it
  std::string why;    // "" if the client never released
};
FailedRelease failed_release(const Context& c, uint32_t client, Instant at) {
  const lock::HistoryEvent* start = nullptr;
  const lock::HistoryEvent* end = nullptr;
  for (const auto& e : c.history.events()) {
    if (e.at > at) break;
    if (e.client != client || e.depth != 0) continue;
    if (e.step == Step::ReleaseStart) start = &e, end = nullptr;
    if (e.step == Step::Released && start) end = &e;
  }
  if (!start) return {};
  const Instant to = end ? end->at : at;
  for (const auto& e : c.history.events()) {
    if (e.at > to) break;
    if (e.at < start->at || e.client != client || e.step != Step::CallLost || e.purpose != lock::Purpose::Release)
      continue;
    const bool reply = e.status != 0;
    const lock::CallFault lost{client, static_cast<uint32_t>(e.token),
                               reply ? lock::CallFault::Kind::ReplyLost : lock::CallFault::Kind::RequestLost, {}};
    return {to_string(lost), fmt::format("{}'s release got no answer (its {})", c.name(client),
                                         reply ? "reply was lost" : "request was lost: it never ran")};
  }
  const std::string blocker = FaultFinder(c.history, c.config).renewal_blocker(client, start->at, to);
  return {blocker, fmt::format("{}'s release {}", c.name(client), end && end->own_lock ? "reported success" : "failed")};
}

// Every command that kept an instance of the lock key alive, by the ledger: a
// re-arm of the caller's own instance (a renewal, whichever task sent it: a
// variant's renewal that outlives its unlock goes on while its client acquires
// again, with the acquire's purpose), and a renewal's re-arm of another's
// instance or its re-creation of a key that had gone.
struct KeptAlive {
  Instant at;
  uint32_t client;
  uint32_t instance;
};
std::vector<KeptAlive> kept_alive(const Context& c) {
  std::vector<KeptAlive> out;
  const lock::Ledger& ledger = c.history.ledger();
  for (const lock::LockFact& f : ledger.facts()) {
    if (ledger.instance(f.instance).key != c.config.lock.key) continue;
    const bool renewal = f.purpose == lock::Purpose::Renew;
    if (f.kind == lock::FactKind::Rearmed ||
        (renewal && (f.kind == lock::FactKind::RearmedByOther || f.kind == lock::FactKind::Granted)))
      out.push_back({f.at, f.client, f.instance});
  }
  std::stable_sort(out.begin(), out.end(), [](const KeptAlive& a, const KeptAlive& b) { return a.at < b.at; });
  return out;
}

// Whether `k` was its client's acquire taking the key over (a GETSET over its own stale
// stamp, a retry after a reply a crash lost): the acquire in flight then ends in Acquired
// holding that very instance. A renewal that outlived its unlock goes on re-arming while
// its client acquires again, and that acquire, refused, never holds the instance.
bool taken_by_acquire(const Context& c, const KeptAlive& k) {
  for (const auto& e : c.history.events()) {
    if (e.client != k.client || e.at <= k.at || e.depth != 0) continue;
    if (e.step == Step::AcquireFailed || e.step == Step::Crashed || e.step == Step::ReleaseStart) return false;
    if (e.step != Step::Acquired) continue;
    const lock::LockInstance& i = c.history.ledger().instance(k.instance);
    return c.history.ledger().at(i.key, i.node, e.at) == &i;
  }
  return false;
}

// The instants at which something no-zombie-lock follows changed: a client's
// outermost hold began or ended, the key came or went, a command kept it alive.
std::vector<Instant> zombie_instants(const Context& c, const ServedLock& key, const std::vector<KeptAlive>& kept) {
  std::vector<Instant> out = key.edges();
  for (const auto& e : c.history.events())
    if (((e.step == Step::Acquired || e.step == Step::Released) && e.depth == 0) || e.step == Step::Crashed)
      out.push_back(e.at);
  for (const KeptAlive& k : kept) out.push_back(k.at);
  std::erase_if(out, [&](Instant t) { return t > c.end.at; });
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// What else can leave the queue a place nobody waits in, when no waiter died: an acquire
// whose answer a fault lost (the place it took stays; its client queues again behind it),
// and a Redis clock that jumped back (a place's timeout, read on that clock, runs longer).
std::string stranded_places(const Context& c, uint32_t waiter, Instant until) {
  const FaultFinder finder(c.history, c.config);
  std::vector<std::string> what;
  std::map<uint32_t, Instant> waiting_since;
  std::set<std::string> named;
  auto name_fault = [&](const sim::Fault& f) {
    if (named.insert(sim::to_string(f)).second) what.push_back(sim::to_string(f));
  };
  for (const auto& e : c.history.events()) {
    if (e.at > until) break;
    if (e.client == lock::kNoClient || e.depth != 0) continue;
    if (e.step == Step::AcquireStart) waiting_since[e.client] = e.at;
    if (e.step != Step::Acquired && e.step != Step::AcquireFailed) continue;
    waiting_since.erase(e.client);
  }
  for (uint32_t client = 0; client < c.history.clients().size(); ++client) {
    const std::string lost = finder.lost_call(client, Instant{}, until, lock::Purpose::Acquire);
    if (lost.empty() || !named.insert(lost).second) continue;
    // The waiter's own lost acquire: the place it took is ahead of the one it asks from now.
    what.push_back(client == waiter ? fmt::format("its own place, taken by an acquire whose answer was lost: {}", lost)
                                    : lost);
  }
  for (const sim::Fault& f : c.config.faults.faults) {
    if (f.at > until) continue;
    const bool cut = f.kind == sim::FaultKind::Cut || f.kind == sim::FaultKind::Reset;
    const bool cut_waiter = cut && std::any_of(waiting_since.begin(), waiting_since.end(), [&](const auto& w) {
      return (f.node == c.name(w.first) || f.peer == c.name(w.first)) && f.at >= w.second;
    });
    const bool jumped_back = f.kind == sim::FaultKind::ClockJump && f.amount.ns < 0 && !client_index(f.node);
    if (cut_waiter || jumped_back) name_fault(f);
  }
  std::string out;
  for (const std::string& w : what) out += (out.empty() ? "" : "; ") + w;
  return out;
}

// A stretch in which the lock was held while no client held it, and whose renewal kept it.
struct IdleStretch {
  std::optional<Instant> since;
  uint32_t rearmed_by = lock::kNoClient;
  Instant rearmed_at;
  uint32_t rearms = 0;  // commands of rearmed_by's in it: a second one is a renewal that lives on
};

// Over the bound; or, at the run's end, still held and re-armed twice since its client
// stopped holding it (a renewal in flight at the release re-arms once; one that lives
// on keeps the lock for as long as its process lives).
std::optional<Violation> judge_stretch(const Context& c, const IdleStretch& s, Instant end, bool run_end) {
  if (!s.since || s.rearmed_by == lock::kNoClient) return std::nullopt;
  const Instant since = *s.since;
  if (end - since < liveness_bound(c) && !(run_end && s.rearms >= 2)) return std::nullopt;
  const FailedRelease release = failed_release(c, s.rearmed_by, since);
  const std::string who = c.name(s.rearmed_by);
  return Violation{
      Property::NoZombieLock,
      {s.rearmed_by},
      c.config.lock.key,
      since,
      end,
      fmt::format("the lock stayed held from {} {} {} while no client held it ({}{}): {}'s renewal re-armed it at {}, "
                  "after {} stopped holding it, {} time{} in all{}",
                  sim::format_instant(since), run_end ? "until the run ended at" : "to", sim::format_instant(end),
                  in_ms(end - since),
                  end - since < liveness_bound(c)
                      ? ", and it was still held, and still renewed, when the run ended"
                      : fmt::format(", more than the lease + {} slack", sim::format_duration(c.options.deadlock_slack)),
                  who, sim::format_instant(s.rearmed_at), who, s.rearms, s.rearms == 1 ? "" : "s",
                  release.why.empty() ? std::string()
                                      : fmt::format("; {}{}, so {}'s renewal went on re-arming the lock", release.why,
                                                    release.fault.empty() ? "" : " (" + release.fault + ")", who)),
      Cause::RenewalOutlivedRelease,
      release.fault};
}

// What the clients said, step by step: who holds, who is acquiring (since when), who is dead.
struct ClientStates {
  std::map<uint32_t, bool> holding;       // between its Acquired and its Released (outermost)
  std::map<uint32_t, Instant> acquiring;  // the start of its outermost acquire in flight
  std::set<uint32_t> dead;                // crashed since its last hold: its renewal died with it
  void see(const lock::HistoryEvent& e) {
    const bool outer = e.depth == 0;
    if (e.step == Step::Acquired && outer) holding[e.client] = true, dead.erase(e.client);
    if ((e.step == Step::Released && outer) || e.step == Step::Crashed) holding[e.client] = false;
    if (e.step == Step::AcquireStart && outer) acquiring[e.client] = e.at;
    if (e.step == Step::Crashed) dead.insert(e.client);
    if (((e.step == Step::Acquired || e.step == Step::AcquireFailed) && outer) || e.step == Step::Crashed)
      acquiring.erase(e.client);
  }
  bool nobody_holds() const {
    return std::none_of(holding.begin(), holding.end(), [](const auto& h) { return h.second; });
  }
  // The instance was set by an acquire still in flight (SETNX done, EXPIRE to come): its
  // client holds once it says so. One left from an earlier hold is not (a renewal that
  // outlived its unlock goes on while its owner acquires again).
  bool being_acquired(const lock::LockInstance& i) const {
    auto it = acquiring.find(i.owner);
    return it != acquiring.end() && it->second <= i.granted;
  }
};

}  // namespace

std::optional<Violation> no_zombie_lock(const Context& c) {
  if (!followed(c)) return std::nullopt;
  const ServedLock key(c);
  const std::vector<KeptAlive> kept = kept_alive(c);
  const auto& events = c.history.events();
  size_t next_event = 0, next_kept = 0;
  ClientStates clients;
  IdleStretch stretch;  // the key held while no client holds the lock
  // All that happens at one instant happens together (one command's effects, a script's DEL and SET).
  for (const Instant t : zombie_instants(c, key, kept)) {
    for (; next_event < events.size() && events[next_event].at <= t; ++next_event) clients.see(events[next_event]);
    const uint32_t serving = key.serving_instance(t);
    const bool idle = serving != lock::kNoInstance && clients.nobody_holds() &&
                      !clients.being_acquired(c.history.ledger().instance(serving));
    bool counted = false;  // one command's effects share an instant: one re-arm
    for (; next_kept < kept.size() && kept[next_kept].at <= t; ++next_kept) {
      const KeptAlive& k = kept[next_kept];
      // Kept alive by a client that no longer holds the lock, on the instance that serves it.
      // A renewal a dead client sent before it died may still land: that is no renewal
      // outliving a release (a dead holder's lock is no-deadlock's).
      if (counted || !idle || !stretch.since || serving != k.instance || clients.dead.count(k.client)) continue;
      if (clients.acquiring.count(k.client) && taken_by_acquire(c, k)) continue;
      if (stretch.rearmed_by != lock::kNoClient && stretch.rearmed_by != k.client) continue;
      if (stretch.rearmed_by == lock::kNoClient) stretch.rearmed_at = t;
      stretch.rearmed_by = k.client;
      ++stretch.rearms;
      counted = true;
    }
    if (idle && !stretch.since) stretch.since = t;
    if (!idle && stretch.since) {
      if (auto v = judge_stretch(c, stretch, t, false)) return v;
      stretch = IdleStretch{};
    }
  }
  return judge_stretch(c, stretch, c.end.at, true);
}

namespace {
// `client` waited while the lock was free from `first` to `refused` (seen at `at`), refused all along.
Violation stalled_wait_violation(const Context& c, uint32_t client, Instant at, Instant first, Instant refused,
                  const std::map<uint32_t, Instant>& gone) {
  std::string behind;
  for (const auto& [each, died] : gone)
    if (died <= at)
      behind += fmt::format("{}{} died waiting at {}", behind.empty() ? "" : ", ", c.name(each), sim::format_instant(died));
  const std::string stranded = behind.empty() ? stranded_places(c, client, refused) : "";
  return Violation{
      Property::NoStalledWait,
      {client},
      c.config.lock.key,
      first,
      refused,
      fmt::format("{} waited while the lock was free from {} to {} ({}, more than the lease + {} slack), asking "
                  "and refused all along: {}",
                  c.name(client), sim::format_instant(first), sim::format_instant(refused), in_ms(refused - first),
                  sim::format_duration(c.options.deadlock_slack),
                  !behind.empty() ? "the queue waited for a waiter that was gone (" + behind + ")"
                  : stranded.empty()
                      ? "no waiter ahead of it died, yet the queue did not let it in"
                      : "no waiter ahead of it died; the queue kept a place nobody waited in (" + stranded + ")"),
      Cause::QueueStalled};
}
}  // namespace

std::optional<Violation> no_stalled_wait(const Context& c) {
  if (!followed(c)) return std::nullopt;
  const ServedLock key(c);
  const lock::Ledger& ledger = c.history.ledger();
  bool held = false;
  struct Waiter {
    bool waiting = false;
    std::optional<Instant> refused_free;  // its first command that ran while the lock was free, this stretch
    std::optional<Instant> last_asked;    // its latest such command: a refusal once it still waits after it
  };
  std::map<uint32_t, Waiter> waiters;
  std::map<uint32_t, Instant> gone;  // clients that died while waiting, and when
  const std::vector<ClientChange> changes = client_changes(c);
  for (const StepOrChange& m : steps_and_changes(c, changes)) {
    const bool was_held = std::exchange(held, key.held(m.at));
    if (held && !was_held)
      for (auto& [each, w] : waiters) w.refused_free.reset(), w.last_asked.reset();  // taken: a new stretch
    if (m.client == lock::kNoClient) continue;
    Waiter& w = waiters[m.client];
    const lock::HistoryEvent* e = m.step;
    if (e && e->step == Step::AcquireStart && e->depth == 0) w = Waiter{true, std::nullopt, std::nullopt};
    if (e && e->step == Step::Acquired && e->depth == 0) w = Waiter{};
    if (e && e->step == Step::Crashed) {
      if (w.waiting) gone[m.client] = m.at;
      w = Waiter{};
    }
    // Its command reached the serving node (it changed a key there) while the lock was free.
    const bool ran_here = m.change && ledger.serving(m.change->node, m.at) && m.change->purpose == lock::Purpose::Acquire;
    const bool gave_up = e && e->step == Step::AcquireFailed && e->depth == 0;
    if (!w.waiting || held || !(ran_here || gave_up)) continue;
    // The command before this one was a refusal: the waiter asked again (or gave up) after it.
    // (Effects of one command share its instant: the command that wins is never counted.)
    // A waiter silent for longer than a lease (paused, cut off) may have lost its place
    // by the queue's own rule: the stretch starts again.
    if (ran_here && w.last_asked && m.at - *w.last_asked > c.config.lock.lease) w.refused_free.reset();
    std::optional<Instant> refused;
    if (w.last_asked && (gave_up || m.at > *w.last_asked)) refused = w.last_asked;
    if (ran_here && !w.refused_free) w.refused_free = m.at;
    const std::optional<Instant> first = w.refused_free;
    if (ran_here) w.last_asked = m.at;
    if (gave_up) w = Waiter{};
    if (!refused || !first || *refused - *first < liveness_bound(c)) continue;
    return stalled_wait_violation(c, m.client, m.at, *first, *refused, gone);
  }
  return std::nullopt;
}

}  // namespace locksim::props::detail
