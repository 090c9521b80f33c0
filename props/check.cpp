#include "locksim/props/check.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "locksim/props/classify.hpp"

namespace locksim::props {

RunEnd run_end(lock::Simulation& sim) {
  RunEnd end;
  end.at = sim.world().now();
  if (const lock::DbNode* db = sim.database()) {
    // The database locks: the lock is the table's row; its expires_at is the
    // deadline the cleanup job enforces, read as a TTL.
    for (const db::Row& row : db->database().rows()) {
      if (row.name != sim.config().lock.key) continue;
      end.key_exists = true;
      end.key_pttl_ms = row.expires_at_ms < 0 ? -1 : std::max<int64_t>(0, row.expires_at_ms - db->local_ms());
    }
    return end;
  }
  const int64_t now_ms = sim.redis().local_ms();
  end.key_pttl_ms = sim.redis().server().peek_pttl(sim.config().lock.key, now_ms);
  end.key_exists = end.key_pttl_ms != -2;
  return end;
}

namespace detail {
std::vector<ClientChange> client_changes(const Context& c) {
  const lock::Ledger& ledger = c.history.ledger();
  std::vector<ClientChange> out;
  for (const lock::LockFact& f : ledger.facts()) {
    const lock::LockInstance& i = ledger.instance(f.instance);
    if (f.client == lock::kNoClient) continue;
    const bool ends = f.kind == lock::FactKind::Ended;
    out.push_back(ClientChange{f.at, f.seq, i.node, f.client, f.purpose, i.key == c.config.lock.key, ends, !ends});
  }
  for (const lock::KeyWrite& w : ledger.writes()) {
    if (w.client == lock::kNoClient) continue;
    const bool ends = w.kind == lock::KeyChange::Kind::Deleted || w.kind == lock::KeyChange::Kind::Expired;
    out.push_back(ClientChange{w.at, w.seq, w.node, w.client, w.purpose, false, ends,
                               w.kind == lock::KeyChange::Kind::Set});
  }
  // One report may make two facts (an overwrite ends one instance and grants the next): in order, ends first.
  std::stable_sort(out.begin(), out.end(), [](const ClientChange& a, const ClientChange& b) { return a.seq < b.seq; });
  return out;
}

std::vector<StepOrChange> steps_and_changes(const Context& c, const std::vector<ClientChange>& changes) {
  std::vector<StepOrChange> out;
  out.reserve(c.history.events().size() + changes.size());
  auto next = changes.begin();
  for (const lock::HistoryEvent& e : c.history.events()) {
    for (; next != changes.end() && next->at <= e.at; ++next) out.push_back(StepOrChange{next->at, next->client, nullptr, &*next});
    const bool key_step = e.step == lock::Step::KeySet || e.step == lock::Step::KeyDeleted ||
                          e.step == lock::Step::KeyExpireChanged || e.step == lock::Step::KeyExpired;
    if (!key_step) out.push_back(StepOrChange{e.at, e.client, &e, nullptr});
  }
  for (; next != changes.end(); ++next) out.push_back(StepOrChange{next->at, next->client, nullptr, &*next});
  return out;
}

std::optional<Violation> variant_error(const Context& c) {
  for (const auto& e : c.history.events()) {
    if (e.step != lock::Step::VariantError) continue;
    return Violation{Property::VariantError,
                     {e.client},
                     c.config.lock.key,
                     e.at,
                     e.at,
                     fmt::format("{}'s variant failed at {}: {}", c.name(e.client), sim::format_instant(e.at), e.text)};
  }
  return std::nullopt;
}
}  // namespace detail

namespace {
// What the run gave the properties to check (exercised.hpp).
void count_exercised(const lock::History& history, Metrics& m) {
  std::vector<bool> holding(history.clients().size(), false);
  for (const auto& e : history.events()) {
    const bool known = e.client < holding.size();
    if (e.step == lock::Step::Acquired && e.depth == 0) {
      ++m.acquisitions;
      if (known) holding[e.client] = true;
    } else if (e.step == lock::Step::AcquireStart && e.depth > 0) {
      ++m.nested_acquisitions;
    } else if ((e.step == lock::Step::Released && e.depth == 0) || e.step == lock::Step::Crashed) {
      if (known) holding[e.client] = false;
    } else if ((e.step == lock::Step::WriteAccepted || e.step == lock::Step::WriteRejected) && known &&
               holding[e.client]) {
      ++m.held_writes;
    }
  }
}
}  // namespace

Verdict check(const lock::History& history, const lock::SimulationConfig& config, const RunEnd& end,
              const CheckOptions& options) {
  detail::Context c{history, config, end, options};
  Verdict v;
  auto add = [&](std::optional<Violation> found) {
    if (found) v.violations.push_back(std::move(*found));
  };
  add(detail::mutual_exclusion(c));
  add(detail::owner_only_release(c));
  add(detail::no_deadlock(c, v.metrics));
  add(detail::fenced_writes(c));
  add(detail::reentrancy(c));
  add(detail::bounded_wait(c, v.metrics));
  detail::expiry_drift(c, v.metrics);
  count_exercised(history, v.metrics);
  std::stable_sort(v.violations.begin(), v.violations.end(),
                   [](const Violation& a, const Violation& b) { return a.from < b.from; });
  for (Violation& each : v.violations) {
    Explanation why = classify(history, config, each);
    each.cause = why.cause;
    each.fault = why.fault;
    each.sentence += ": " + why.sentence;
  }
  // The liveness checks name their own cause (check_zombie.cpp).
  add(detail::no_zombie_lock(c));
  add(detail::no_stalled_wait(c));
  std::stable_sort(v.violations.begin(), v.violations.end(),
                   [](const Violation& a, const Violation& b) { return a.from < b.from; });
  // A failing variant comes first: the other findings may be its consequences.
  if (auto failed = detail::variant_error(c)) v.violations.insert(v.violations.begin(), std::move(*failed));
  return v;
}

}  // namespace locksim::props
