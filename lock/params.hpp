#pragma once
// The parameters of a lock algorithm, with their defaults, and a table that
// names them so the command line and the scenario text can set and print them.
#include <map>
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
  sim::Duration wait_limit = 5_s;       // acquire gives up after this long (monotonic clock)
  sim::Duration call_timeout = 500_ms;  // a Redis call's client-side timeout
  sim::Duration renew_interval = 0_ms;  // watchdog renewal period; 0 = lease / 3 (Redisson)
  sim::Duration explicit_lease = 0_ms;  // watchdog: a fixed lease, which disables renewal (F15)
  bool release_if_unexpired = false;    // getset: DEL only before one's own expiry (docs/failures.md#algorithms)
  // A Lua variant's own parameters (VariantParam) set away from their declared
  // defaults, by `--param NAME=VALUE` or drawn by check: name -> canonical text.
  std::map<std::string, std::string> custom;
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

// A parameter a Lua variant declares for itself in its `params` table
// (docs/variants.md): read with param(NAME), set with --param NAME=VALUE (the
// scenario's param=NAME=VALUE), drawn by check within [min, max] when it has a range.
struct VariantParam {
  enum class Kind { Number, Duration, Text, Boolean };
  std::string name;
  Kind kind = Kind::Number;
  std::string default_value;             // canonical text (a duration as "2s")
  std::optional<double> min, max;        // what check draws from (durations in ms); both or neither
  std::string help;
  bool operator==(const VariantParam&) const = default;
};
// Checks `text` as a value of `p` and returns its canonical text, or an error.
std::optional<std::string> canonical_value(const VariantParam& p, std::string_view text, std::string* error);
// What check draws: `fraction` in [0, 1] of the way from min to max, as canonical text
// (whole milliseconds for durations, whole numbers when both ends are whole).
std::string drawn_value(const VariantParam& p, double fraction);
// The declared parameters of every loaded variant, by name (one declaration per
// name across variants). Declaring again with a different meaning is an error.
std::optional<std::string> declare_variant_param(const VariantParam& p);
const VariantParam* find_variant_param(std::string_view name);
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
