// mutual-exclusion: at no instant of true time do two clients both believe
// they hold the lock. A critical section runs from Enter to Leave; a crash
// ends it, a pause does not (the paused client still believes it holds).
#include <fmt/format.h>

#include <algorithm>

#include "props/check.hpp"

namespace locksim::props::detail {

using lock::Step;

namespace {

struct Hold {
  uint32_t client;
  Instant from, to;
};

std::vector<Hold> holds(const Context& c) {
  std::vector<Hold> out;
  std::vector<std::optional<Instant>> open(c.history.clients().size());
  for (const auto& e : c.history.events()) {
    if (e.client >= open.size()) continue;
    if (e.step == Step::Enter) {
      open[e.client] = e.at;
    } else if ((e.step == Step::Leave || e.step == Step::Crashed) && open[e.client]) {
      out.push_back(Hold{e.client, *open[e.client], e.at});
      open[e.client].reset();
    }
  }
  for (uint32_t client = 0; client < open.size(); ++client)
    if (open[client]) out.push_back(Hold{client, *open[client], c.end.at});
  std::stable_sort(out.begin(), out.end(), [](const Hold& a, const Hold& b) { return a.from < b.from; });
  return out;
}

// Whether the client's connection to Redis was reset during the acquire that
// led to this hold: connection state (WATCH) does not survive the reconnect.
bool reset_while_acquiring(const Context& c, const Hold& hold) {
  Instant started = hold.from;
  for (const auto& e : c.history.events()) {
    if (e.at > hold.from) break;
    if (e.client == hold.client && e.step == Step::AcquireStart && e.a == 0) started = e.at;
  }
  const std::string name = c.name(hold.client);
  for (const sim::Fault& f : c.config.faults.faults)
    if (f.kind == sim::FaultKind::Reset && f.node == name && f.at >= started && f.at <= hold.from) return true;
  return false;
}

// Why the second client got in while the first still held: the fate of the
// first one's lock instance, read from the key effects before the second's entry.
std::string cause(const Context& c, const Hold& first, const Hold& second) {
  const std::string a = c.name(first.client), b = c.name(second.client);
  // From the first client's acquire on: a pause that held back its reply
  // counts too (it may enter with a lease that is already gone).
  Instant since = first.from;
  for (const auto& e : c.history.events()) {
    if (e.at > first.from) break;
    if (e.client == first.client && e.step == Step::AcquireStart && e.a == 0) since = e.at;
  }
  bool paused = false, renew_failed = false, server_lost = false, failed_over = false;
  uint32_t lost_server = 0;
  for (const auto& e : c.history.events()) {
    if (e.at < since || e.at > second.from) continue;
    if (e.step == Step::ServerCrashed && e.a == 0) lost_server = e.server;
    if (e.step == Step::ReplicaPromoted) failed_over = true;
    if (e.step == Step::ServerCrashed && e.a == 0) server_lost = true;
    if (e.client == first.client && e.step == Step::Paused) paused = true;
    if (e.client == first.client && e.step == Step::RenewFailed) renew_failed = true;
  }
  // The last thing that happened to the first holder's lock (a value it set)
  // before the second client entered.
  std::vector<std::string> values;
  const lock::HistoryEvent* fate = nullptr;
  for (const auto& e : c.history.events()) {
    if (e.at > second.from) break;
    if (!c.is_lock_key(e)) continue;
    if (e.step == Step::KeySet && e.client == first.client && e.new_value) values.push_back(*e.new_value);
    const bool theirs = e.old_value && std::find(values.begin(), values.end(), *e.old_value) != values.end();
    if (e.at < since || !theirs) continue;
    if (e.step == Step::KeyDeleted || e.step == Step::KeyExpired || (e.step == Step::KeySet && e.client == second.client))
      fate = &e;
  }
  const std::string span = sim::format_span(first.to - first.from);
  if (fate && fate->step == Step::KeyDeleted && fate->client != first.client && fate->client != lock::kNoClient)
    return fmt::format("{}'s {} deleted {}'s lock", c.name(fate->client),
                       fate->purpose == lock::Purpose::Release ? "release" : "acquire", a);
  if (fate && fate->step == Step::KeySet && reset_while_acquiring(c, second))
    return fmt::format("a connection reset dropped {}'s WATCH; on reconnect its transaction ran unwatched and "
                       "overwrote {}'s lock",
                       b, a);
  if (fate && fate->step == Step::KeySet)
    return fmt::format("{} judged {}'s timestamp expired by its own clock and took the lock over", b, a);
  if (failed_over)
    return fmt::format("the master died before replicating {}'s lock, and the promoted replica did not have it", a);
  if (server_lost && c.config.masters > 1)
    return fmt::format("{} restarted without persistence and forgot its part of {}'s majority",
                       lock::redis_node_name(c.config, lost_server), a);
  if (server_lost) return fmt::format("Redis restarted without persistence and forgot {}'s lock", a);
  if (paused) return fmt::format("{}'s lease expired while {} was paused", a, a);
  if (renew_failed) return fmt::format("{}'s renewals failed and its lease expired while it worked", a);
  if (fate && (fate->step == Step::KeyExpired || fate->step == Step::KeyDeleted))
    return fmt::format("{}'s lease expired during its {} critical section", a, span);
  return fmt::format("the lock key was lost while {} held it (server restart or expiry)", a);
}

}  // namespace

std::optional<Violation> mutual_exclusion(const Context& c) {
  const std::vector<Hold> all = holds(c);
  for (size_t j = 0; j < all.size(); ++j) {
    for (size_t i = 0; i < j; ++i) {
      if (all[i].client == all[j].client || all[i].to <= all[j].from) continue;
      Violation v;
      v.property = Property::MutualExclusion;
      v.clients = {all[i].client, all[j].client};
      v.key = c.config.lock.key;
      v.from = all[j].from;
      v.to = std::min(all[i].to, all[j].to);
      v.sentence = fmt::format("{} and {} both held {} from {} to {} ({}): {}", c.name(all[i].client),
                               c.name(all[j].client), v.key, sim::format_instant(v.from), sim::format_instant(v.to),
                               sim::format_span(v.to - v.from), cause(c, all[i], all[j]));
      return v;
    }
  }
  return std::nullopt;
}

}  // namespace locksim::props::detail
