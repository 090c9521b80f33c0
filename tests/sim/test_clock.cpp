// Local clocks: offset, drift in ppm and jumps, all exact integer maths.
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include <utility>
#include <vector>

#include "helpers.hpp"
#include "locksim/sim/clock.hpp"

using namespace locksim::sim;
using namespace locksim::sim::literals;
using simtest::at;

TEST_CASE("a perfect clock reads true time", "[clock]") {
  LocalClock c;
  CHECK(c.local(at(0_s)).ns == 0);
  CHECK(c.local(at(1_s + 7_ns)).ns == 1'000'000'007);
  CHECK(c.true_span(300_ms) == 300_ms);
  CHECK(c.true_span(0_s) == 0_s);
}

TEST_CASE("offset shifts every reading by the same amount", "[clock]") {
  LocalClock ahead(250_ms, 0), behind(-(3_s), 0);
  CHECK(ahead.local(at(0_s)).ns == 250'000'000);
  CHECK(ahead.local(at(10_s)).ns == 10'250'000'000);
  CHECK(behind.local(at(1_s)).ns == -2'000'000'000);
  CHECK(behind.offset() == -(3_s));
  CHECK(ahead.drift_ppm() == 0);
}

TEST_CASE("positive drift runs fast by drift_ppm per million, floored", "[clock]") {
  LocalClock fast(0_s, 100);  // +100 ppm
  CHECK(fast.local(at(1_s)).ns == 1'000'100'000);
  CHECK(fast.local(at(10_s)).ns == 10'001'000'000);
  CHECK(fast.local(at(9_ns)).ns == 9);            // 9*100/1e6 = 0.0009 -> 0
  CHECK(fast.local(at(9'999_ns)).ns == 9'999);    // 0.9999 -> 0
  CHECK(fast.local(at(10'000_ns)).ns == 10'001);  // exactly 1
  CHECK(fast.local(at(10'009_ns)).ns == 10'010);
  LocalClock fast_offset(5_ms, 250);
  CHECK(fast_offset.local(at(4_s)).ns == 4'000'000'000 + 5'000'000 + 1'000'000);
}

TEST_CASE("negative drift runs slow, floored toward minus infinity", "[clock]") {
  LocalClock slow(0_s, -100);
  CHECK(slow.local(at(1_s)).ns == 999'900'000);
  CHECK(slow.local(at(1_ns)).ns == 0);           // 1 - 0.0001 floored: 1 + floor(-0.0001) = 0
  CHECK(slow.local(at(10'000_ns)).ns == 9'999);  // exactly -1
  CHECK(slow.local(at(10'001_ns)).ns == 9'999);  // 10001 + floor(-1.0001) = 10001 - 2
  CHECK(slow.local(at(0_ns)).ns == 0);
  // Readings never go backwards, even with floor steps.
  for (int64_t t = 0; t < 30'000; ++t) CHECK(slow.local(Instant{t + 1}) >= slow.local(Instant{t}));
}

TEST_CASE("jumps step the clock at their instant and accumulate", "[clock]") {
  LocalClock c(1_ms, 0);
  c.add_jump(at(5_s), 2_s);
  c.add_jump(at(3_s), -(500_ms));  // added out of order: kept sorted
  c.add_jump(at(5_s), 10_ms);      // a second jump at the same instant
  CHECK(c.local(at(2_s)).ns == 2'001'000'000);
  CHECK(c.local(at(3_s) - 1_ns).ns == 3'000'999'999);
  CHECK(c.local(at(3_s)).ns == 2'501'000'000);  // in force at its own instant
  CHECK(c.local(at(4_s)).ns == 3'501'000'000);
  CHECK(c.local(at(5_s) - 1_ns).ns == 4'500'999'999);
  CHECK(c.local(at(5_s)).ns == 6'511'000'000);
  CHECK(c.local(at(100_s)).ns == 101'511'000'000);
}

TEST_CASE("drift and jumps combine", "[clock]") {
  LocalClock c(-(20_ms), 500);  // +500 ppm: +0.5ms per second
  c.add_jump(at(2_s), -(1_s));
  CHECK(c.local(at(1_s)).ns == 1'000'000'000 - 20'000'000 + 500'000);
  CHECK(c.local(at(4_s)).ns == 4'000'000'000 - 20'000'000 + 2'000'000 - 1'000'000'000);
}

TEST_CASE("true_span converts a local span to true time, rounded up", "[clock]") {
  CHECK(LocalClock(0_s, 100).true_span(1'000'100_ns) == 1_ms);             // exact
  CHECK(LocalClock(0_s, 100).true_span(1_s) == Duration{999'900'010});     // 1e15/1000100 = 999900009.999.. -> up
  CHECK(LocalClock(0_s, -100).true_span(1_s) == Duration{1'000'100'011});  // 1e15/999900 = 1000100010.001.. -> up
  CHECK(LocalClock(0_s, 1'000'000).true_span(1_s) == 500_ms);              // a clock at double speed
  CHECK(LocalClock(0_s, 1).true_span(1_ns) == 1_ns);                       // 0.999999 -> 1
  CHECK(LocalClock(0_s, 100).true_span(0_ns) == 0_ns);
  CHECK(LocalClock(0_s, 100).true_span(-(5_ms)) == -(5_ms));  // passed through untouched
  LocalClock jumpy(0_s, 0);
  jumpy.add_jump(at(1_s), 10_s);
  CHECK(jumpy.true_span(2_s) == 2_s);  // monotonic: jumps do not shorten a sleep
}

TEST_CASE("a sleep measured by a drifting clock never ends early on that clock", "[clock][property]") {
  rc::prop("local(t + true_span(s)) - local(t) >= s, and not one ns more than needed", [] {
    const int64_t drift = *rc::gen::inRange<int64_t>(-500'000, 500'001);
    const int64_t offset = *rc::gen::inRange<int64_t>(-1'000'000'000, 1'000'000'001);
    const Instant t{*rc::gen::inRange<int64_t>(0, int64_t{1} << 50)};
    const Duration s{*rc::gen::inRange<int64_t>(0, int64_t{1} << 40)};
    LocalClock c(Duration{offset}, drift);
    const Duration span = c.true_span(s);
    RC_ASSERT(c.local(t + span) - c.local(t) >= s);
    // Rounded up by less than one true nanosecond of the exact quotient.
    RC_ASSERT((span - 1_ns).ns * (1'000'000 + drift) < s.ns * 1'000'000 || s.ns == 0);
  });
}

TEST_CASE("the monotonic clock keeps the rate and ignores the jumps", "[clock]") {
  LocalClock c(3_s, 500);  // 3 s ahead, +500 ppm
  c.add_jump(at(2_s), -(60_s));
  c.add_jump(at(5_s), 10_s);
  // A jump steps the wall clock, never the monotonic one; the offset is the wall's too.
  CHECK(c.local(at(4_s)) - c.local(at(1_s)) == 3_s + Duration{1'500'000} - 60_s);
  CHECK(c.monotonic(at(4_s)) - c.monotonic(at(1_s)) == 3_s + Duration{1'500'000});
  CHECK(c.monotonic(at(6_s)) - c.monotonic(at(1_s)) == 5_s + Duration{2'500'000});
  // Drift moves it: 10 s of true time are 10.005 s on it.
  CHECK(c.monotonic(at(10_s)) - c.monotonic(at(0_s)) == 10_s + 5_ms);
  // A sleep measured by the node's rate spans exactly that much monotonic time (to a ns).
  const Duration span = c.true_span(2_s);
  CHECK(c.monotonic(at(1_s) + span) - c.monotonic(at(1_s)) >= 2_s);
  CHECK(c.monotonic(at(1_s) + span) - c.monotonic(at(1_s)) <= 2_s + 1_ns);
}

TEST_CASE("the monotonic clock never runs backwards, whatever the jumps", "[clock][property]") {
  rc::prop("monotonic is non-decreasing, and the wall clock is it plus the offset and the jumps so far", [] {
    const int64_t drift = *rc::gen::inRange<int64_t>(-500'000, 500'001);
    const Duration offset{*rc::gen::inRange<int64_t>(-1'000'000'000, 1'000'000'001)};
    LocalClock c(offset, drift);
    std::vector<std::pair<Instant, Duration>> jumps;
    const int n = *rc::gen::inRange(0, 5);
    for (int i = 0; i < n; ++i) {
      jumps.emplace_back(Instant{*rc::gen::inRange<int64_t>(0, int64_t{1} << 40)},
                         Duration{*rc::gen::inRange<int64_t>(-(int64_t{1} << 38), int64_t{1} << 38)});
      c.add_jump(jumps.back().first, jumps.back().second);
    }
    const Instant t1{*rc::gen::inRange<int64_t>(0, int64_t{1} << 40)};
    const Instant t2 = t1 + Duration{*rc::gen::inRange<int64_t>(0, int64_t{1} << 40)};
    RC_ASSERT(c.monotonic(t1) <= c.monotonic(t2));
    Duration stepped = offset;
    for (const auto& [when, by] : jumps)
      if (when <= t2) stepped += by;
    RC_ASSERT(c.local(t2) - c.monotonic(t2) == stepped);
  });
}
