#pragma once
// What `check ALGO` explores when told nothing else: the deployment the
// algorithm is designed for (redlock: three masters; the others: one Redis),
// every fault kind, and what the algorithm's documented use needs drawn —
// nested acquires where reentrancy is documented (F16), the explicit-lease
// mode where the algorithm has one (F15), a replica that takes over when a
// master dies (F17). (Two or three clients already show F20.) And the
// assumptions a user may state to narrow it (--assume).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/props/fault_model.hpp"

namespace locksim::props {

struct Assumptions {
  bool durable_redis = false;         // a restart keeps the data (appendfsync always)
  bool sane_redis_clock = false;      // Redis's clock never jumps and drifts at most kSaneRedisDriftPpm
  std::optional<Duration> max_pause;  // no client pauses longer than this
  bool no_failover = false;           // no replica is ever promoted
  bool operator==(const Assumptions&) const = default;
};
// "durable-redis,sane-redis-clock,pause<=500ms,no-failover" (any subset, or "none").
// An NTP-disciplined clock stays well within this (0.1 %): a lease of 30 s expires 30 ms early at most.
inline constexpr int64_t kSaneRedisDriftPpm = 1000;
std::optional<Assumptions> parse_assumptions(std::string_view text, std::string* error = nullptr);
// The words, in a fixed order: what the inventory's header and JSON print.
std::vector<std::string> assumption_words(const Assumptions& a);
// Whether a scenario stays within the assumptions; otherwise says which it breaks.
std::optional<std::string> breaks_assumptions(const Scenario& s, const Assumptions& a);

FaultModel default_model(std::string_view algorithm);
// Narrows the model to what the assumptions leave possible.
void assume(FaultModel& m, const Assumptions& a);

}  // namespace locksim::props
