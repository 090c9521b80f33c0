#include "locksim/lock/params.hpp"

#include "locksim/base/assert.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

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

std::map<std::string, VariantParam, std::less<>>& declared_params() {
  static std::map<std::string, VariantParam, std::less<>> declared;
  return declared;
}

// A variant's own parameters, as "NAME=VALUE,NAME=VALUE" (the scenario's param=... word).
std::string custom_text(const LockParams& p) {
  std::string s;
  for (const auto& [name, value] : p.custom) s += fmt::format("{}{}={}", s.empty() ? "" : ",", name, value);
  return s;
}

std::optional<std::string> set_custom(LockParams& p, std::string_view text) {
  size_t start = 0;
  while (start < text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view item = text.substr(start, comma - start);
    start = comma + 1;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) return fmt::format("'{}': expected NAME=VALUE", item);
    const std::string_view name = item.substr(0, eq);
    const VariantParam* declared = find_variant_param(name);
    if (!declared) {
      std::string known;
      for (const auto& [n, v] : declared_params()) known += (known.empty() ? "" : ", ") + n;
      return fmt::format("'{}' is no variant's parameter (declared: {})", name, known.empty() ? "none" : known);
    }
    std::string error;
    auto value = canonical_value(*declared, item.substr(eq + 1), &error);
    if (!value) return fmt::format("{}: {}", name, error);
    if (*value == declared->default_value)
      p.custom.erase(std::string(name));
    else
      p.custom[std::string(name)] = *value;
  }
  return std::nullopt;
}

std::string format_number(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{}", v);
}

}  // namespace

std::optional<std::string> canonical_value(const VariantParam& p, std::string_view text, std::string* error) {
  auto fail = [&](std::string why) -> std::optional<std::string> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  switch (p.kind) {
    case VariantParam::Kind::Boolean:
      if (text == "true" || text == "1") return "true";
      if (text == "false" || text == "0") return "false";
      return fail("must be true or false");
    case VariantParam::Kind::Text:
      if (text.find_first_of(" \t;=,]") != std::string_view::npos)
        return fail("must be text without spaces, ';', '=', ',' or ']'");
      return std::string(text);
    case VariantParam::Kind::Duration: {
      sim::Duration d;
      std::string why;
      if (text.find_first_not_of("0123456789.") == std::string_view::npos && !text.empty()) {
        // A bare number is milliseconds, as in the `params` table.
        const double ms = std::strtod(std::string(text).c_str(), nullptr);
        d = sim::Duration{static_cast<int64_t>(std::llround(ms * 1e6))};
      } else if (!sim::parse_duration(text, d, &why)) {
        return fail(why);
      }
      if (d.ns < 0) return fail("must not be negative");
      return sim::format_duration(d);
    }
    case VariantParam::Kind::Number: {
      const std::string t(text);
      char* end = nullptr;
      const double v = std::strtod(t.c_str(), &end);
      if (t.empty() || end != t.c_str() + t.size() || !std::isfinite(v)) return fail("must be a number");
      return format_number(v);
    }
  }
  return fail("unknown kind");
}

std::string drawn_value(const VariantParam& p, double fraction) {
  LOCKSIM_ASSERT(p.min && p.max, "a drawn parameter has a range");
  const double v = *p.min + (*p.max - *p.min) * fraction;
  if (p.kind == VariantParam::Kind::Duration)
    return sim::format_duration(sim::Duration{static_cast<int64_t>(std::llround(v)) * 1'000'000});
  const bool whole = *p.min == std::floor(*p.min) && *p.max == std::floor(*p.max);
  return format_number(whole ? std::round(v) : v);
}

std::optional<std::string> declare_variant_param(const VariantParam& p) {
  auto [it, fresh] = declared_params().try_emplace(p.name, p);
  if (!fresh && !(it->second == p))
    return fmt::format("parameter '{}' is declared by another variant with another default or range", p.name);
  return std::nullopt;
}

const VariantParam* find_variant_param(std::string_view name) {
  auto it = declared_params().find(name);
  return it == declared_params().end() ? nullptr : &it->second;
}

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
      ParamInfo{"param", "a variant's own parameters: NAME=VALUE[,NAME=VALUE] (see 'locksim list')", custom_text,
                set_custom},
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
