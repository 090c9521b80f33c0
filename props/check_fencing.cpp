// fenced-writes: the protected resource accepts writes in strictly increasing
// hold order — a write from a hold that a newer holder has already written
// after is stale and must be rejected (that is what a fencing token buys).
// reentrancy: the owner can acquire again while holding, and an inner release
// never frees the lock under the outer hold.
#include <fmt/format.h>

#include "props/check.hpp"

namespace locksim::props::detail {

using lock::Step;

std::optional<Violation> fenced_writes(const Context& c) {
  std::vector<int64_t> hold_of(c.history.clients().size(), -1);
  std::vector<Instant> hold_since(c.history.clients().size());
  int64_t holds = 0;
  int64_t newest_written = -1;
  uint32_t newest_writer = lock::kNoClient;
  Instant newest_at;
  for (const auto& e : c.history.events()) {
    if (e.client >= hold_of.size()) continue;
    if (e.step == Step::Acquired && e.b == 0) {
      hold_of[e.client] = holds++;
      hold_since[e.client] = e.at;
    }
    if (e.step != Step::WriteAccepted) continue;
    const int64_t hold = hold_of[e.client];
    if (hold < newest_written) {
      return Violation{Property::FencedWrites, {e.client, newest_writer}, c.config.lock.key, hold_since[e.client], e.at,
                       fmt::format("the store accepted {}'s stale write at {} after {}'s newer write at {}",
                                   c.name(e.client), sim::format_instant(e.at), c.name(newest_writer),
                                   sim::format_instant(newest_at))};
    }
    newest_written = hold;
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
      return Violation{Property::Reentrancy, {e.client}, c.config.lock.key, e.at, e.at,
                       fmt::format("{}'s inner release deleted the lock while its outer hold went on", c.name(e.client))};
    }
    if (e.client >= nested_start.size()) continue;
    if (e.step == Step::AcquireStart && e.a > 0) nested_start[e.client] = e.at;
    if (e.step == Step::ReleaseStart) inner_release[e.client] = e.a > 0;
    if (e.step == Step::Released) inner_release[e.client] = false;
    if (e.step == Step::AcquireFailed && e.a > 0) {
      Instant from = nested_start[e.client].value_or(e.at);
      return Violation{Property::Reentrancy, {e.client}, c.config.lock.key, from, e.at,
                       fmt::format("{} could not take again the lock it holds: it waited {} on itself", c.name(e.client),
                                   sim::format_span(e.at - from))};
    }
  }
  return std::nullopt;
}

}  // namespace locksim::props::detail
