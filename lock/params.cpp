#include "locksim/lock/params.hpp"

#include <fmt/format.h>

namespace locksim::lock {

namespace {

// Durations that pace a retry loop must be at least a millisecond: zero would
// spin at one instant of virtual time forever.
template <sim::Duration LockParams::*M, bool kPaces = false>
ParamInfo duration_param(std::string_view name, std::string_view help) {
  return ParamInfo{name, help, [](const LockParams& p) { return sim::format_duration(p.*M); },
                   [](LockParams& p, std::string_view v) -> std::optional<std::string> {
                     sim::Duration d;
                     std::string error;
                     if (!sim::parse_duration(v, d, &error)) return error;
                     if (d.ns < 0) return std::string("must not be negative");
                     if (kPaces && d < sim::Duration{1'000'000}) return std::string("must be at least 1ms");
                     p.*M = d;
                     return std::nullopt;
                   }};
}

}  // namespace

const std::vector<ParamInfo>& lock_param_table() {
  static const std::vector<ParamInfo> table = {
      ParamInfo{"key", "the lock's Redis key", [](const LockParams& p) { return p.key; },
                [](LockParams& p, std::string_view v) -> std::optional<std::string> {
                  if (v.empty() || v.find_first_of(" \t;=") != std::string_view::npos)
                    return std::string("must be non-empty, without spaces, ';' or '='");
                  p.key = std::string(v);
                  return std::nullopt;
                }},
      duration_param<&LockParams::lease, true>("lease", "the key's TTL (getset: the timestamp lease)"),
      duration_param<&LockParams::retry, true>("retry", "interval between acquire attempts"),
      duration_param<&LockParams::retry_jitter>("retry-jitter", "random extra wait in [0, jitter] per retry"),
      duration_param<&LockParams::wait_limit>("wait-limit", "acquire gives up after this long"),
      duration_param<&LockParams::call_timeout, true>("call-timeout", "client-side timeout of one Redis call"),
      duration_param<&LockParams::renew_interval>("renew-interval", "watchdog renewal period (0: lease/3)"),
      duration_param<&LockParams::explicit_lease>("explicit-lease", "watchdog: fixed lease, no renewal (0: none)"),
      ParamInfo{"release-if-unexpired", "getset: DEL only before one's own expiry (F05's half-fix)",
                [](const LockParams& p) { return std::string(p.release_if_unexpired ? "true" : "false"); },
                [](LockParams& p, std::string_view v) -> std::optional<std::string> {
                  if (v == "true" || v == "1")
                    p.release_if_unexpired = true;
                  else if (v == "false" || v == "0")
                    p.release_if_unexpired = false;
                  else
                    return std::string("must be true or false");
                  return std::nullopt;
                }},
  };
  return table;
}

const ParamInfo* find_lock_param(std::string_view name) {
  for (const auto& p : lock_param_table())
    if (p.name == name) return &p;
  return nullptr;
}

std::string to_string(const LockParams& p) {
  static const LockParams defaults;
  std::string s;
  for (const auto& info : lock_param_table()) {
    std::string v = info.get(p);
    if (v == info.get(defaults)) continue;
    if (!s.empty()) s += ' ';
    s += fmt::format("{}={}", info.name, encode_param_value(v));
  }
  return s;
}

std::string encode_param_value(std::string_view value) {
  std::string out;
  for (const char ch : value) {
    const auto c = static_cast<unsigned char>(ch);
    if (c <= ' ' || c >= 0x7f || c == '%' || c == '\'' || c == '"' || c == '\\' || c == '[' || c == ']')
      out += fmt::format("%{:02X}", c);
    else
      out += ch;
  }
  return out;
}

std::string decode_param_value(std::string_view word) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < word.size(); ++i) {
    if (word[i] == '%' && i + 2 < word.size() && hex(word[i + 1]) >= 0 && hex(word[i + 2]) >= 0) {
      out += static_cast<char>(hex(word[i + 1]) * 16 + hex(word[i + 2]));
      i += 2;
    } else {
      out += word[i];
    }
  }
  return out;
}

}  // namespace locksim::lock
