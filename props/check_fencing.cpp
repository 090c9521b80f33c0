// fenced-writes: the protected resource accepts writes in strictly increasing
// hold order — a write from a hold that a newer holder has already written
// after is stale and must be rejected (that is what a fencing token buys).
// reentrancy: the owner can acquire again while holding, and an inner release
// never frees the lock under the outer hold.
#include <fmt/format.h>

#include "locksim/props/check.hpp"

namespace locksim::props::detail {

using lock::Step;

namespace {

// When a hold was granted, as a position in the history: the holder's last
// acquire effect before it learned it acquired. With a fencing token, that is
// the command that set the token (INCR): the token's order is the order of
// holds, across a Redis restart too (a counter that starts over is then
// caught). Without a token, the lock key's acquire effect. A client learns
// late when its reply is delayed or it is paused: that order is not the
// order of holds.
size_t granted_at(const Context& c, size_t acquired) {
  const lock::HistoryEvent& a = c.history.events()[acquired];
  const std::string token = std::to_string(a.token);
  for (size_t i = acquired; i-- > 0;) {
    const lock::HistoryEvent& e = c.history.events()[i];
    if (e.client != a.client) continue;
    if (e.step == Step::AcquireStart && e.depth == 0) break;
    if (e.purpose != lock::Purpose::Acquire || e.step != Step::KeySet) continue;
    if (a.token >= 0 ? e.new_value == token : c.is_lock_key(e)) return i;
  }
  return acquired;
}

}  // namespace

std::optional<Violation> fenced_writes(const Context& c) {
  constexpr size_t kNoHold = ~size_t{0};
  std::vector<size_t> hold_of(c.history.clients().size(), kNoHold);
  std::vector<Instant> hold_since(c.history.clients().size());
  size_t newest_written = 0;
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
    const size_t hold = hold_of[e.client];
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

std::optional<Violation> reentrancy(const Context& c) {
  std::vector<std::optional<Instant>> nested_start(c.history.clients().size());
  std::vector<bool> inner_release(c.history.clients().size(), false);
  for (const auto& e : c.history.events()) {
    if (e.step == Step::KeyDeleted && c.is_lock_key(e) && e.client < inner_release.size() && inner_release[e.client]) {
      return Violation{
          Property::Reentrancy,
          {e.client},
          c.config.lock.key,
          e.at,
          e.at,
          fmt::format("{}'s inner release deleted the lock while its outer hold went on", c.name(e.client))};
    }
    if (e.client >= nested_start.size()) continue;
    if (e.step == Step::AcquireStart && e.depth > 0) nested_start[e.client] = e.at;
    if (e.step == Step::ReleaseStart) inner_release[e.client] = e.depth > 0;
    if (e.step == Step::Released) inner_release[e.client] = false;
    if (e.step == Step::AcquireFailed && e.depth > 0) {
      Instant from = nested_start[e.client].value_or(e.at);
      return Violation{Property::Reentrancy,
                       {e.client},
                       c.config.lock.key,
                       from,
                       e.at,
                       fmt::format("{} could not take again the lock it holds: it waited {} on itself",
                                   c.name(e.client), sim::format_span(e.at - from))};
    }
  }
  return std::nullopt;
}

}  // namespace locksim::props::detail
