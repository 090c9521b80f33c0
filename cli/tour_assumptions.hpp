#pragma once
// The Redlock chapter's argument, tried: one scenario per timing assumption the
// argument rests on, each replayed every time the tour runs. A scenario that
// breaks mutual exclusion is shown with the assumption it breaks (what
// `--assume` would rule out); one that stays inside every assumption is shown
// holding. Nothing here is written down as an outcome: the runs say it.
#include <string>
#include <string_view>
#include <vector>

#include "locksim/props/property.hpp"
#include "locksim/props/scenario.hpp"

namespace locksim::cli {

// The assumptions the tried scenarios are judged against: those of Redlock's
// argument, with bounds round enough to read.
inline constexpr std::string_view kRedlockAssumptions =
    "durable-redis,sane-redis-clock,pause<=500ms,delay<=100ms";

struct AssumptionTrial {
  std::string what;      // the fault in words: "redis2 restarts without persistence"
  std::string scenario;  // the scenario replayed
  bool violated = false;                 // mutual exclusion broke
  props::Duration overlap{};             // how long both held, when it broke
  std::vector<std::string> broken;       // the assumptions its faults break ("durable-redis")
  std::string problem;                   // a scenario the simulator would not run ("" : none)
  // As the argument says: a broken assumption where the lock failed, none where it held.
  bool as_argued() const { return problem.empty() && violated == !broken.empty(); }
};

// Every tried scenario, replayed now.
std::vector<AssumptionTrial> try_redlock_assumptions();

}  // namespace locksim::cli
