#pragma once
// Virtual time. True time is an integer count of nanoseconds since the start
// of a run. Floating point reaches durations only through the generator's
// portable distributions (IEEE basic operations), so every platform agrees.
#include <compare>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace locksim::sim {

// Time arithmetic saturates at the int64 edges instead of overflowing: inputs
// are bounded (props/limits.hpp), and this keeps any sum of them defined.
constexpr int64_t saturated(bool towards_max) {
  return towards_max ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}
constexpr int64_t add_sat(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return saturated(b > 0);
  return r;
}
constexpr int64_t sub_sat(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) return saturated(b < 0);
  return r;
}
constexpr int64_t mul_sat(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return saturated((a < 0) == (b < 0));
  return r;
}
constexpr int64_t neg_sat(int64_t a) {
  return a == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max() : -a;
}

struct Duration {
  int64_t ns = 0;
  constexpr auto operator<=>(const Duration&) const = default;
  constexpr Duration operator+(Duration o) const { return {add_sat(ns, o.ns)}; }
  constexpr Duration operator-(Duration o) const { return {sub_sat(ns, o.ns)}; }
  constexpr Duration operator-() const { return {neg_sat(ns)}; }
  constexpr Duration operator*(int64_t k) const { return {mul_sat(ns, k)}; }
  constexpr Duration operator/(int64_t k) const { return {k == -1 ? neg_sat(ns) : ns / k}; }
  constexpr Duration& operator+=(Duration o) {
    ns = add_sat(ns, o.ns);
    return *this;
  }
  constexpr Duration& operator-=(Duration o) {
    ns = sub_sat(ns, o.ns);
    return *this;
  }
  constexpr int64_t ms() const { return ns / 1'000'000; }
  constexpr int64_t us() const { return ns / 1'000; }
  static constexpr Duration zero() { return {0}; }
  static constexpr Duration max() { return {std::numeric_limits<int64_t>::max() / 4}; }
};

// An instant of true time (or of a node's local clock, where documented).
struct Instant {
  int64_t ns = 0;
  constexpr auto operator<=>(const Instant&) const = default;
  constexpr Instant operator+(Duration d) const { return {add_sat(ns, d.ns)}; }
  constexpr Instant operator-(Duration d) const { return {sub_sat(ns, d.ns)}; }
  constexpr Duration operator-(Instant o) const { return {sub_sat(ns, o.ns)}; }
  constexpr Instant& operator+=(Duration d) {
    ns = add_sat(ns, d.ns);
    return *this;
  }
  constexpr int64_t ms() const { return ns / 1'000'000; }
  static constexpr Instant zero() { return {0}; }
  static constexpr Instant never() { return {std::numeric_limits<int64_t>::max() / 2}; }
};

constexpr Duration nanoseconds(int64_t n) { return {n}; }
constexpr Duration microseconds(int64_t n) { return {mul_sat(n, 1'000)}; }
constexpr Duration milliseconds(int64_t n) { return {mul_sat(n, 1'000'000)}; }
constexpr Duration seconds(int64_t n) { return {mul_sat(n, 1'000'000'000)}; }

namespace literals {
constexpr Duration operator""_ns(unsigned long long n) { return nanoseconds(static_cast<int64_t>(n)); }
constexpr Duration operator""_us(unsigned long long n) { return microseconds(static_cast<int64_t>(n)); }
constexpr Duration operator""_ms(unsigned long long n) { return milliseconds(static_cast<int64_t>(n)); }
constexpr Duration operator""_s(unsigned long long n) { return seconds(static_cast<int64_t>(n)); }
}  // namespace literals

// "1.5s", "250ms", "12us", "7ns", "0s": the shortest exact form, readable back by parse_duration.
std::string format_duration(Duration d);
// "1.03s", "170ms", "1.5ms", "0.4ms": rounded for people to read (not parseable back exactly).
std::string format_span(Duration d);
// "1.500s": fixed millisecond precision for timelines and traces.
std::string format_instant(Instant t);
// Accepts an optional sign, a decimal number and a unit (ns, us, ms, s, m).
// Returns false, with a reason, on anything else (no unit, too many digits, overflow).
bool parse_duration(std::string_view text, Duration& out, std::string* error = nullptr);

}  // namespace locksim::sim
