#pragma once
// A lock variant written as data, for engineers who want to try their own
// Lua scripts and client policy without writing C++. A variant file lists the
// commands a client sends and the replies that mean success:
//
//   name: my-lock
//   summary: token lock, Lua release, renewed every lease/3
//   acquire: SET {key} {token} NX PX {lease_ms}
//   acquired-if: OK
//   release: EVAL "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end" 1 {key} {token}
//   released-if: 1
//   renew: EVAL "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end" 1 {key} {token} {lease_ms}
//   renewed-if: 1
//
// Lines: `directive: value`; '#' starts a comment line. Commands use
// redis-cli's quoting. Directives:
//   name, summary          the id it registers under, and one line about it
//   acquire / acquired-if  one attempt, and the reply that means it took the lock
//   after-acquire          more commands sent once it holds (in order, replies unchecked)
//   release / released-if  the release commands (in order); the last one's reply is checked
//   renew / renewed-if     the renewal, sent every renew-interval (0: lease/3) while held,
//                          its placeholders filled afresh at each send (a watchdog)
// Placeholders: {key} {token} {lease_ms} {lease_s} {now_ms} (the client's clock,
// Unix ms) {expiry_ms} (now_ms + lease_ms + 1). Replies to expect: OK, an
// integer, nil, not-nil, {token} (a bulk string equal to the token), any, or a
// quoted bulk string. The retry loop, lease and intervals are the usual lock
// parameters (--lease, --retry, ...).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lock/registry.hpp"

namespace locksim::lock {

struct VariantSpec {
  std::string name, summary, path;
  struct Step {
    std::vector<std::string> words;  // with placeholders
    int line = 0;
  };
  Step acquire;
  std::string acquired_if = "OK";
  std::vector<Step> after_acquire;
  std::vector<Step> release;
  std::string released_if = "any";
  std::optional<Step> renew;
  std::string renewed_if = "1";
};

// Reads a variant; on error, names the file, the line and the problem.
std::optional<VariantSpec> parse_variant(std::string_view text, const std::string& path, std::string* error = nullptr);
std::optional<VariantSpec> load_variant_file(const std::string& path, std::string* error = nullptr);

// Registers a variant as an algorithm of the registry (its id: the name).
// Fails, naming the file, if an algorithm of that name exists already.
const Algorithm* register_variant(VariantSpec spec, std::string* error = nullptr);

}  // namespace locksim::lock
