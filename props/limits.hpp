#pragma once
// The bounds of every parameter of a run, in one table used by the scenario
// words (iterations=5) and the command-line flags (--iterations 5) alike, so
// that both accept exactly the same runs and no accepted run can exhaust memory
// or overflow time arithmetic. Durations are bounded so that any sum the
// simulator forms of them stays far inside int64 nanoseconds.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/props/scenario.hpp"

namespace locksim::props {

struct Limit {
  std::string_view key;   // what it bounds: a word, or a part of one (fault-time)
  std::string_view word;  // the scenario word that sets it (a lock parameter's name)
  std::string_view flag;  // the command-line flag that sets it
  int64_t min = 0;
  int64_t max = 0;
  bool duration = false;  // min and max in nanoseconds
};

const std::vector<Limit>& limit_table();
const Limit* find_limit(std::string_view key);

// Checks one value against its limit (durations in nanoseconds).
std::optional<std::string> check_limit(std::string_view key, int64_t value, bool as_flags);

// Checks every bounded parameter of a parsed run. On failure: "WORD: why", naming
// the scenario word, or the flag when `as_flags`.
std::optional<std::string> check_limits(const Scenario& s, bool as_flags);

}  // namespace locksim::props
