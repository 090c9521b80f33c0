#include "locksim/props/outlived_holder.hpp"

#include <fmt/format.h>

#include "locksim/props/scenario.hpp"

namespace locksim::props {

namespace {

using lock::HistoryEvent;
using sim::Instant;

std::string_view what_call(lock::Purpose p) {
  switch (p) {
    case lock::Purpose::Acquire: return "acquire";
    case lock::Purpose::Release: return "release";
    case lock::Purpose::Renew: return "renewal";
    case lock::Purpose::Resource: return "write";
    case lock::Purpose::Other: break;
  }
  return "call";
}

// The holder's call that a fault held in flight across its crash (sent before, held past it).
const HistoryEvent* held_across(const lock::History& h, uint32_t holder, Instant crash) {
  const HistoryEvent* held = nullptr;
  for (const HistoryEvent& e : h.events())
    if (e.client == holder && e.step == lock::Step::CallDelayed && e.at <= crash &&
        e.at + sim::Duration{e.status} > crash)
      held = &e;
  return held;
}

// "release (its call 9), sent before it died and held in flight 4.918s by call=A:9:delay:4.918s".
std::string held_call(const lock::SimulationConfig& cfg, const HistoryEvent& e) {
  const lock::CallFault::On on =
      e.purpose == lock::Purpose::Resource ? lock::CallFault::On::Write : lock::CallFault::On::Call;
  std::string fault;
  for (const lock::CallFault& f : cfg.workload.call_faults)
    if (f.client == e.client && f.call == static_cast<uint32_t>(e.token) && f.on == on &&
        f.kind == lock::CallFault::Kind::Delay)
      fault = " by " + to_string(f);
  return fmt::format("{} (its {} {}), sent before it died and held in flight {}{}", what_call(e.purpose),
                     on == lock::CallFault::On::Write ? "write" : "call", e.token,
                     sim::format_duration(sim::Duration{e.status}), fault);
}

}  // namespace

std::string why_lock_outlived_holder(const lock::History& h, const lock::SimulationConfig& cfg, uint32_t holder,
                                     Instant crash, Instant until) {
  const lock::LockInstance* last = nullptr;
  for (const lock::LockInstance& i : h.ledger().instances())
    if (i.owner == holder && i.key == cfg.lock.key && !i.copy && i.granted <= crash) last = &i;
  if (!last || last->node != lock::kDatabaseNode) return "it: it has no expiry, and only its owner's release frees it";
  const HistoryEvent* held = held_across(h, holder, crash);
  const std::string rule = "it: a database frees a dead client's row lock only when its transaction ends";
  const std::string who = h.client_name(holder);
  if (last->end == lock::InstanceEnd::Released && last->ended_by == holder && last->ended > crash)
    return fmt::format("{}, and {}'s ended with its {}, which reached the database only at {}", rule, who,
                       held ? held_call(cfg, *held) : "own request, sent before it died",
                       sim::format_instant(last->ended));
  const std::string noticed = fmt::format(
      "{}: when the database notices the client gone, {} after its connection's close, which comes behind what "
      "the client had sent{}",
      rule, sim::format_duration(cfg.database.dead_client_detection),
      held ? fmt::format(" ({}'s {})", who, held_call(cfg, *held)) : "");
  if (!last->live() && last->ended > crash)
    return fmt::format("{}; here at {}", noticed, sim::format_instant(last->ended));
  return fmt::format("{}; here not by {}", noticed, sim::format_instant(until));
}

}  // namespace locksim::props
