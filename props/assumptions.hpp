#pragma once
// Assumptions: what a deployment promises, and so what a lock may lean on. A
// failure is the lock's own when every fault it needs stays inside the
// assumptions in force; otherwise it is listed with the assumptions its
// faults break — what the deployment must rule out (docs/failures.md,
// "Assumptions"). Kleppmann's and antirez's argument about Redlock is exactly
// this: which of these a lock needs.
//
//   --assume work<=10s,pause<=5s,delay<=100ms,clock<=50ms,durable-redis,no-failover
//
// They also shape what check draws: half the runs are drawn wholly inside them
// (the runs that test the lock), the others as if no flag were stated, a bounded
// kind mostly inside its bound (the runs that show what the deployment must rule
// out); see FaultModel::assumed.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/props/scenario.hpp"

namespace locksim::props {

using Duration = sim::Duration;

struct Assumptions {
  bool durable_redis = false;     // a Redis restart keeps the data (appendfsync always)
  bool sane_redis_clock = false;  // Redis's clock never jumps and drifts at most kSaneDriftPpm
  bool sane_client_clock = false;  // no client clock jumps; client clocks drift at most kSaneDriftPpm
  bool no_failover = false;        // no replica is ever promoted
  bool redis_up = false;           // a Redis that crashes comes back (restarts); with a replica, the failover answers
  std::optional<Duration> max_pause;        // no client pauses longer than this
  std::optional<Duration> max_work;         // no critical section works longer than this
  std::optional<Duration> max_delay;        // every message arrives, within this: none is lost (no cut, no lost call)
  std::optional<Duration> max_clock_error;  // no client clock is off (or jumps) by more than this
  bool operator==(const Assumptions&) const = default;
};

// An NTP-disciplined clock stays well within this (0.1 %): a lease of 30 s expires 30 ms early at most.
inline constexpr int64_t kSaneDriftPpm = 1000;
inline constexpr int64_t kSaneRedisDriftPpm = kSaneDriftPpm;

// "durable-redis,sane-redis-clock,sane-client-clock,no-failover,redis-up,pause<=D,work<=D,delay<=D,clock<=D"
// (any subset; "none" for nothing). A word may appear once; the error names the bad word.
std::optional<Assumptions> parse_assumptions(std::string_view text, std::string* error = nullptr);
// The words, in a fixed order: what the header, the JSON and replay lines print.
std::vector<std::string> assumption_words(const Assumptions& a);
// `extra` laid over `base`: flags add up, a bound given in `extra` replaces base's.
Assumptions combined(const Assumptions& base, const Assumptions& extra);

// Every assumption a scenario's faults break, one line each ("pause<=5s: 'pause A @1s for 8s'"),
// in assumption_words order; empty when the scenario stays inside them.
std::vector<std::string> broken_assumptions(const Scenario& s, const Assumptions& a);
// Just the words of the broken assumptions ("pause<=5s"), each once.
std::vector<std::string> broken_words(const Scenario& s, const Assumptions& a);
// The first broken assumption, or nothing.
std::optional<std::string> breaks_assumptions(const Scenario& s, const Assumptions& a);

// The scenario with each assumption of `a` made to hold, changing no more than that: a
// Redis restart keeps its data (durable-redis); the clocks assumed sane lose their jumps
// and drift at most kSaneDriftPpm; no master crash promotes the replica (no-failover) and
// none leaves a Redis down for good (redis-up); under a bound on delay no message is lost
// (cuts and lost calls go); every bounded pause, section, delay and clock error is
// clamped to its bound. The replay that proves a failure found only
// outside the assumptions is the lock's own runs it (props/inventory.cpp).
Scenario held_inside(const Scenario& s, const Assumptions& a);

// What the algorithm's own documentation claims it needs (docs/failures.md
// lists them): a lock in Redis needs a durable Redis with a sane clock, and on one
// master no failover and a Redis that is up; on several masters (`masters`, or the
// deployment the algorithm declares when 0) client clocks of about the same rate
// instead; a database lock needs nothing of Redis.
Assumptions default_assumptions(std::string_view algorithm, uint32_t masters = 0);

}  // namespace locksim::props
