#pragma once
// The parameters of a lock algorithm, with their defaults, and a table that
// names them so the command line and the scenario text can set and print them.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/sim/time.hpp"

namespace locksim::lock {

using namespace sim::literals;

struct LockParams {
  std::string key = "lock";
  sim::Duration lease = 1_s;            // the key's TTL; for getset, the timestamp lease
  sim::Duration retry = 100_ms;         // spin interval between attempts
  sim::Duration retry_jitter = 0_ms;    // random extra wait in [0, jitter] (F20's fix)
  sim::Duration wait_limit = 5_s;       // acquire gives up after this long (local clock)
  sim::Duration call_timeout = 500_ms;  // a Redis call's client-side timeout
  sim::Duration renew_interval = 0_ms;  // watchdog renewal period; 0 = lease / 3 (Redisson)
  sim::Duration explicit_lease = 0_ms;  // watchdog: a fixed lease, which disables renewal (F15)
  bool release_if_unexpired = false;    // getset: DEL only before one's own expiry (docs/failures.md#algorithms)
  bool operator==(const LockParams&) const = default;
};

struct ParamInfo {
  std::string_view name;
  std::string_view help;
  std::string (*get)(const LockParams&);
  // Returns an error message, or nothing on success.
  std::optional<std::string> (*set)(LockParams&, std::string_view value);
};

const std::vector<ParamInfo>& lock_param_table();
const ParamInfo* find_lock_param(std::string_view name);
// "lease=1s retry=100ms ..." : only the parameters that differ from the defaults.
std::string to_string(const LockParams& p);

// A parameter's value as a word of the scenario text (props/scenario.cpp): that
// text is split at whitespace, saved one scenario a line, single-quoted in replay
// commands and shown on terminals, so every byte that is not printable ASCII, and
// ' " \\ % [ ] (which bracket faults=[...]) and space, is written %XX (a key "a\nb" is key=a%0Ab).
std::string encode_param_value(std::string_view value);
// The inverse; a '%' not followed by two hex digits stays as it is.
std::string decode_param_value(std::string_view word);

}  // namespace locksim::lock
