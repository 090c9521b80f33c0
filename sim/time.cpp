#include "locksim/sim/time.hpp"
#include "locksim/sim/int128.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdlib>

namespace locksim::sim {

std::string format_duration(Duration d) {
  if (d.ns == 0) return "0s";
  const char* sign = d.ns < 0 ? "-" : "";
  // Magnitude as unsigned so that the most negative value does not overflow.
  uint64_t n = d.ns < 0 ? uint64_t(0) - static_cast<uint64_t>(d.ns) : static_cast<uint64_t>(d.ns);
  struct Unit {
    uint64_t ns;
    const char* name;
  };
  static constexpr std::array<Unit, 4> units{{{1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "us"}, {1, "ns"}}};
  for (const auto& u : units) {
    if (n % u.ns == 0) return fmt::format("{}{}{}", sign, n / u.ns, u.name);
    // A fraction is used only when it stays exact in at most three decimals.
    if (n >= u.ns && u.ns >= 1000 && n % (u.ns / 1000) == 0) {
      std::string frac = fmt::format("{:03}", (n % u.ns) / (u.ns / 1000));
      while (!frac.empty() && frac.back() == '0') frac.pop_back();
      return fmt::format("{}{}.{}{}", sign, n / u.ns, frac, u.name);
    }
  }
  return fmt::format("{}{}ns", sign, n);
}

std::string format_span(Duration d) {
  const char* sign = d.ns < 0 ? "-" : "";
  int64_t n = d.ns < 0 ? -d.ns : d.ns;
  auto trimmed = [](int64_t whole, int64_t frac, int digits) {
    std::string f = fmt::format("{:0{}}", frac, digits);
    while (!f.empty() && f.back() == '0') f.pop_back();
    return f.empty() ? fmt::format("{}", whole) : fmt::format("{}.{}", whole, f);
  };
  if (n >= 1'000'000'000) {
    int64_t ms = (n + 5'000'000) / 10'000'000;  // hundredths of a second, rounded
    return fmt::format("{}{}s", sign, trimmed(ms / 100, ms % 100, 2));
  }
  if (n >= 10'000'000) return fmt::format("{}{}ms", sign, (n + 500'000) / 1'000'000);
  int64_t tenths = (n + 50'000) / 100'000;
  if (tenths == 0 && n > 0) return fmt::format("{}{}us", sign, (n + 500) / 1'000);
  return fmt::format("{}{}ms", sign, trimmed(tenths / 10, tenths % 10, 1));
}

std::string format_instant(Instant t) {
  const char* sign = t.ns < 0 ? "-" : "";
  int64_t ms = t.ns < 0 ? -(t.ns / 1'000'000) : t.ns / 1'000'000;
  return fmt::format("{}{}.{:03}s", sign, ms / 1000, ms % 1000);
}

bool parse_duration(std::string_view text, Duration& out, std::string* error) {
  auto fail = [&](std::string why) {
    if (error) *error = fmt::format("bad duration '{}': {}", text, why);
    return false;
  };
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  size_t i = 0;
  uint128 whole = 0, frac = 0, frac_scale = 1;
  bool digits = false, dot = false;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c >= '0' && c <= '9') {
      digits = true;
      if (dot) {
        if (frac_scale >= 1'000'000'000) return fail("more than nine decimals");
        frac = frac * 10 + unsigned(c - '0');
        frac_scale *= 10;
      } else {
        whole = whole * 10 + unsigned(c - '0');
        if (whole > (uint128)1 << 80) return fail("too large");
      }
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  if (!digits) return fail("expected a number");
  std::string_view unit = s.substr(i);
  uint64_t scale;
  if (unit == "ns")
    scale = 1;
  else if (unit == "us")
    scale = 1'000;
  else if (unit == "ms")
    scale = 1'000'000;
  else if (unit == "s")
    scale = 1'000'000'000;
  else if (unit == "m")
    scale = 60'000'000'000ULL;
  else if (unit.empty())
    return fail("missing unit (ns, us, ms, s or m)");
  else
    return fail(fmt::format("unknown unit '{}'", unit));
  uint128 total = whole * scale;
  uint128 frac_ns = frac * scale;
  if (frac_ns % frac_scale != 0) return fail("finer than a nanosecond");
  total += frac_ns / frac_scale;
  if (total > (uint128)Duration::max().ns) return fail("too large");
  out = Duration{negative ? -static_cast<int64_t>(total) : static_cast<int64_t>(total)};
  return true;
}

}  // namespace locksim::sim
