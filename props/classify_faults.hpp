#pragma once
// The classifier's questions about one run's faults and clocks: was the
// holder paused in this window, whose clock was off, which fault of the plan
// struck this node then. Answers that name a fault give it as the scenario
// writes it ("pause B @2s for 800ms", "slow=A:0:1.5s"), or "" when none did.
#include <optional>
#include <utility>
#include <string>

#include "locksim/lock/history.hpp"
#include "locksim/lock/simulation.hpp"

namespace locksim::props {

using sim::Duration;
using sim::Instant;

class FaultFinder {
 public:
  FaultFinder(const lock::History& h, const lock::SimulationConfig& cfg);

  // When the holder's critical section that is open at `t` ended (leave or crash), or the last event.
  Instant hold_end(uint32_t client, Instant t) const;
  // When that section would have ended had the client lost `by` less time before it: a
  // leave comes that much sooner; a crash strikes at its instant, unless the section's
  // work (the schedule's) would have ended before it.
  Instant hold_end_sooner(uint32_t client, Instant t, Duration by) const;
  // When the section open at `t` (or entered after it) would have ended had the client
  // not been paused since `from`: the schedule's work for it, begun as soon as the pauses
  // before it allowed. A pause within the work does not lengthen it (the work is a
  // sleep by the client's clock) unless it covered the work's end.
  Instant leave_without_pauses(uint32_t client, Instant from, Instant t) const;
  // The schedule's work for that section, in true time; nothing if it has none.
  std::optional<Duration> scheduled_work(uint32_t client, Instant t) const;
  // How long the client was paused within [from, to].
  Duration paused_within(uint32_t client, Instant from, Instant to) const;
  // Whether the client's lease was being renewed: it renewed (or tried to), or the
  // configuration leaves renewal on (an explicit lease turns the built-in watchdog off;
  // a variant may renew whatever the scenario's explicit lease says).
  bool renewal_enabled(uint32_t client) const;
  // Whether the client entered the critical section of the hold that `from` belongs
  // to (a set or re-arm of its key, at `from`) only after `to`.
  bool entered_after(uint32_t client, Instant from, Instant to) const;
  // How long the acquire of the hold that `from` belongs to took by the client's own
  // clock, from its start to the entry (nothing if it never entered).
  std::optional<Duration> acquire_took(uint32_t client, Instant from) const;
  // Whether the holder's own clock told it that less time had passed than had.
  bool clock_misled(uint32_t client, Instant from, Instant to) const;
  // A backward jump of the client's clock within [from, to] that struck while a nested
  // acquire of its was waiting, a wait that read that clock after the jump (so it was
  // timed by it, and the jump stretched it: HistoryEvent::wall_read_in_wait), or nullptr.
  const sim::Fault* jump_back_while_waiting(uint32_t client, Instant from, Instant to) const;
  // Whether a command of the client within [from, to] ran while the client concluded it had not (a lost reply).
  bool reply_timed_out(uint32_t client, Instant from, Instant to) const;

  std::string pause_of(uint32_t client, Instant from, Instant to) const;
  std::string renewal_blocker(uint32_t client, Instant from, Instant to) const;
  // The client's first call a fault held in flight (call=A:N:delay:D) sent within [from, to]
  // ("" if none): its writes to the resource too if asked, and only one still held at `held_past` if given.
  std::string held_call(uint32_t client, Instant from, Instant to, bool writes_too,
                        std::optional<Instant> held_past = std::nullopt) const;
  // Whether the client's renewals were already stopped when its first pause within [from, to]
  // began: a cut of its link on then, or a call of its a fault held in flight (call=A:N:delay:D)
  // sent by then and still held at `to` (the renewals queue behind it on the FIFO connection).
  bool renewals_stopped_before_pause(uint32_t client, Instant from, Instant to) const;
  std::string work_fault(uint32_t client, Instant from) const;
  std::string redis_jump(const std::string& node, Instant from, Instant to) const;
  std::string redis_drift(uint32_t node) const;
  // A backward jump of the master's clock before `before` (its replica then gets deadlines already past).
  std::string master_jump_back(Instant before) const;
  // What set the master's clock behind true time before `before`: a backward jump, or a slow drift
  // ("redis-drift=redis:-190000"); "" if neither. A deadline it wrote reads early on a sane replica.
  std::string master_clock_behind(Instant before) const;  // "redis-drift=redis:+50000" when that node's clock runs fast
  std::string reset_of(uint32_t client, Instant from, Instant to) const;
  std::string clock_of(uint32_t client, Instant before) const;
  // How far ahead of true time the client's clock read at its last event at or before `at`.
  Duration clock_error(uint32_t client, Instant at) const;
  std::string server_crash(const std::string& node, Instant at) const;
  // The crash that kept Redis node `server` (the ledger's index) down at some instant
  // of [from, to] (crashed and not yet restarted), as the plan writes it; "" if it was up.
  std::string down_within(uint32_t server, Instant from, Instant to) const;
  // Whether Redis node `server` restarted within [after, until] (a restart fault crashes and restarts at once).
  bool restarted_within(uint32_t server, Instant after, Instant until) const;
  // The same for any Redis node of the deployment.
  std::string any_down_within(Instant from, Instant to) const;
  std::string any_server_crash(Instant before) const;
  std::string crash_of(uint32_t client, Instant at) const;
  // A command of the client within [from, to] whose request or reply a fault lost
  // ("call=A:5:reply-lost"), of any purpose or of `purpose`; "" if none.
  std::string lost_call(uint32_t client, Instant from, Instant to,
                        std::optional<lock::Purpose> purpose = std::nullopt) const;
  // The history's step for that lost call (CallLost: status 0 the request, 1 the reply), or nullptr.
  const lock::HistoryEvent* lost_call_step(uint32_t client, Instant from, Instant to,
                                           std::optional<lock::Purpose> purpose = std::nullopt) const;
  // The nested acquire of the client that was pending at `at`: its start, and when it got
  // in or gave up (or the run's last event, if neither); nothing if none was pending.
  std::optional<std::pair<Instant, Instant>> nested_wait_at(uint32_t client, Instant at) const;
  // Whether an acquire command of the client within [from, to] met the client's own live
  // lock instance and changed nothing of it (the history's OwnLockRefused fact).
  bool own_lock_refused(uint32_t client, Instant from, Instant to) const;

 private:
  std::string name(uint32_t c) const { return lock::client_name(c); }
  // The client's outermost acquire start at or before `from`, and the entry that followed it.
  const lock::HistoryEvent* acquire_start(uint32_t client, Instant from) const;
  const lock::HistoryEvent* entry_of(uint32_t client, Instant from) const;
  // The section that ends (leave or crash) at the client's first such event at or after
  // `t`: its entry, when its work began (after any nested acquires), and the schedule's
  // work for it in true time. Nothing when the client has no such section.
  struct Section {
    const lock::HistoryEvent* enter = nullptr;
    const lock::HistoryEvent* work_from = nullptr;
    const lock::HistoryEvent* end = nullptr;
    Duration work;
  };
  std::optional<Section> section_ending_after(uint32_t client, Instant t) const;
  // When the section a crash cut short would have left, by the schedule's work for it.
  Instant planned_leave(uint32_t client, const lock::HistoryEvent& crash) const;
  const lock::History& h_;
  const lock::SimulationConfig& cfg_;
  bool uses_redis_ = true;  // a database lock never calls the Redis nodes of its world: their crashes refuse nothing
};

}  // namespace locksim::props
