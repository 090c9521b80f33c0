// Durations and instants: arithmetic, literals, formatting and parsing.
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include <string>

#include "locksim/sim/time.hpp"

using namespace locksim::sim;
using namespace locksim::sim::literals;

namespace {
std::string duration_parse_error(std::string_view text) {
  Duration d{12345};
  std::string why;
  CHECK_FALSE(parse_duration(text, d, &why));
  CHECK(d.ns == 12345);  // untouched on failure
  return why;
}
Duration parsed_duration(std::string_view text) {
  Duration d{-777};
  std::string why;
  INFO(text);
  REQUIRE(parse_duration(text, d, &why));
  CHECK(why.empty());
  return d;
}
}  // namespace

TEST_CASE("literals and arithmetic are exact integer nanoseconds", "[time]") {
  STATIC_REQUIRE((1_s).ns == 1'000'000'000);
  STATIC_REQUIRE((250_ms).ns == 250'000'000);
  STATIC_REQUIRE((12_us).ns == 12'000);
  STATIC_REQUIRE((7_ns).ns == 7);
  CHECK((1_s + 500_ms).ns == 1'500'000'000);
  CHECK((1_s - 1_ns).ns == 999'999'999);
  CHECK((-(3_ms)).ns == -3'000'000);
  CHECK((3_ms * 4).ns == 12'000'000);
  CHECK((10_ms / 3).ns == 3'333'333);
  CHECK((1999_us).ms() == 1);
  CHECK((Instant{} + 2_s - 1_ms).ns == 1'999'000'000);
  CHECK((Instant{} + 2_s) - (Instant{} + 500_ms) == 1500_ms);
  CHECK(Instant::never() > Instant{} + Duration::max());
}

TEST_CASE("format_duration picks the shortest exact form", "[time]") {
  CHECK(format_duration(0_s) == "0s");
  CHECK(format_duration(1_s) == "1s");
  CHECK(format_duration(1500_ms) == "1.5s");
  CHECK(format_duration(1250_ms) == "1.25s");
  CHECK(format_duration(1001_ms) == "1.001s");
  CHECK(format_duration(250_ms) == "250ms");
  CHECK(format_duration(1500_us) == "1.5ms");
  CHECK(format_duration(12_us) == "12us");
  CHECK(format_duration(7_ns) == "7ns");
  CHECK(format_duration(1'000'500'000_ns) == "1000.5ms");
  CHECK(format_duration(1'000'001_ns) == "1000.001us");
  CHECK(format_duration(1'234'567_ns) == "1234.567us");  // below 1us only plain ns
  CHECK(format_duration(999_ns) == "999ns");
  CHECK(format_duration(120_s) == "120s");
  CHECK(format_duration(-(2_s)) == "-2s");
  CHECK(format_duration(-(1500_ms)) == "-1.5s");
  CHECK(format_duration(Duration{std::numeric_limits<int64_t>::min()}) == "-9223372036854775.808us");
}

TEST_CASE("format_instant prints seconds with millisecond precision", "[time]") {
  CHECK(format_instant(Instant{}) == "0.000s");
  CHECK(format_instant(Instant{} + 1500_ms) == "1.500s");
  CHECK(format_instant(Instant{} + 1_s + 999_us) == "1.000s");  // truncated, not rounded
  CHECK(format_instant(Instant{} + 62_s + 7_ms) == "62.007s");
  CHECK(format_instant(Instant{-1'500'000'000}) == "-1.500s");
}

TEST_CASE("parse_duration reads numbers with units", "[time]") {
  CHECK(parsed_duration("0s").ns == 0);
  CHECK(parsed_duration("1.5s") == 1500_ms);
  CHECK(parsed_duration("250ms") == 250_ms);
  CHECK(parsed_duration("12us") == 12_us);
  CHECK(parsed_duration("7ns") == 7_ns);
  CHECK(parsed_duration("2m") == 120_s);
  CHECK(parsed_duration("0.5m") == 30_s);
  CHECK(parsed_duration("+2s") == 2_s);
  CHECK(parsed_duration("-2s") == -(2_s));
  CHECK(parsed_duration("1.000000001s") == 1'000'000'001_ns);
  CHECK(parsed_duration("007ms") == 7_ms);
  CHECK(parsed_duration("3.s") == 3_s);
}

TEST_CASE("parse_duration explains what is wrong", "[time]") {
  CHECK(duration_parse_error("") == "bad duration '': expected a number");
  CHECK(duration_parse_error("ms") == "bad duration 'ms': expected a number");
  CHECK(duration_parse_error("-") == "bad duration '-': expected a number");
  CHECK(duration_parse_error("15") == "bad duration '15': missing unit (ns, us, ms, s or m)");
  CHECK(duration_parse_error("15sec") == "bad duration '15sec': unknown unit 'sec'");
  CHECK(duration_parse_error("1.5.2s") == "bad duration '1.5.2s': unknown unit '.2s'");
  CHECK(duration_parse_error("1 s") == "bad duration '1 s': unknown unit ' s'");
  CHECK(duration_parse_error("1.5ns") == "bad duration '1.5ns': finer than a nanosecond");
  CHECK(duration_parse_error("1.0000000001s") == "bad duration '1.0000000001s': more than nine decimals");
  CHECK(duration_parse_error("3000000000s") == "bad duration '3000000000s': too large");
  CHECK(duration_parse_error("99999999999999999999999999999s") == "bad duration '99999999999999999999999999999s': too large");
  // Duration::max() is the largest value accepted; one more nanosecond is refused.
  CHECK(parsed_duration(std::to_string(Duration::max().ns) + "ns") == Duration::max());
  CHECK(duration_parse_error(std::to_string(Duration::max().ns + 1) + "ns").find("too large") != std::string::npos);
}

TEST_CASE("format_duration and parse_duration round trip", "[time][property]") {
  rc::prop("parse(format(d)) == d for |d| <= Duration::max()", [] {
    const int64_t limit = Duration::max().ns;
    // Mix magnitudes: whole units, short fractions and arbitrary nanoseconds.
    const int64_t ns = *rc::gen::oneOf(
        rc::gen::inRange<int64_t>(-limit, limit + 1),
        rc::gen::map(rc::gen::inRange<int64_t>(-1'000'000, 1'000'000), [](int64_t k) { return k * 1'000'000; }),
        rc::gen::map(rc::gen::inRange<int64_t>(-100'000, 100'000), [](int64_t k) { return k * 1'000; }),
        rc::gen::inRange<int64_t>(-5'000, 5'000));
    const std::string text = format_duration(Duration{ns});
    Duration back{};
    std::string why;
    RC_ASSERT(parse_duration(text, back, &why));
    RC_ASSERT(back.ns == ns);
    // A fraction never ends in a zero (the form is the shortest).
    const auto dot = text.find('.');
    if (dot != std::string::npos) {
      const auto unit = text.find_first_of("nums", dot);
      RC_ASSERT(text[unit - 1] != '0');
    }
  });
}
