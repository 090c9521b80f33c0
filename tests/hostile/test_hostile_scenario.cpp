// Scenario words that asked for gigabytes or overflowed time: one table of
// limits refuses them, naming the word; duplicates are refused; time saturates.
#include <catch2/catch.hpp>

#include <limits>
#include <string>

#include "locksim/props/limits.hpp"
#include "locksim/props/scenario.hpp"
#include "locksim/sim/time.hpp"

using namespace locksim;

namespace {

std::string refusal(const std::string& text) {
  std::string error;
  auto s = props::parse_scenario(text, &error);
  return s ? std::string("accepted") : error;
}

}  // namespace

TEST_CASE("Scenario words out of the limits table are refused, naming the word") {
  CHECK(refusal("set-nx-px iterations=4294967295").starts_with("iterations: 4294967295 is out of range [1, 1000]"));
  CHECK(refusal("set-nx-px iterations=0").starts_with("iterations: 0 is out of range"));
  CHECK(refusal("set-nx-px nested=4294967295").starts_with("nested: "));
  CHECK(refusal("set-nx-px horizon=2305843009s").starts_with("horizon: "));
  CHECK(refusal("set-nx-px clients=64").starts_with("clients: 64 is out of range [1, 26]"));
  CHECK(refusal("set-nx-px lease=100000000s").starts_with("lease: "));
  CHECK(refusal("set-nx-px clients=1 faults=[jump redis @100ms by -1800000000s]").starts_with("faults: "));
  CHECK(refusal("set-nx-px clients=1 iterations=1000 horizon=600s") == "accepted");
  // Found by fuzz_scenario: the servers were named (30 M names) before masters= was checked.
  CHECK(refusal("redlock masters=030004003").starts_with("masters: "));
}

TEST_CASE("A scenario word given twice is refused") {
  CHECK(refusal("set-nx-px seed=1 seed=2").find("'seed' is given twice") != std::string::npos);
  CHECK(refusal("set-nx-px lease=1s lease=2s").find("'lease' is given twice") != std::string::npos);
  // The repeatable ones stay repeatable.
  CHECK(refusal("set-nx-px clients=2 slow=A:0:1s slow=B:0:1s clock=A:+1s:0 clock=B:-1s:0") == "accepted");
}

TEST_CASE("The limits table is the one the CLI flags use") {
  props::Scenario s;
  s.workload.iterations = 1001;
  CHECK(props::check_limits(s, true) == "--iterations: 1001 is out of range [1, 1000]");
  CHECK(props::check_limits(s, false) == "iterations: 1001 is out of range [1, 1000]");
  for (const props::Limit& limit : props::limit_table()) CHECK(limit.min <= limit.max);
}

TEST_CASE("Time arithmetic saturates at the int64 edges") {
  using sim::Duration;
  using sim::Instant;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  CHECK((Duration{kMax} + Duration{1}).ns == kMax);
  CHECK((Duration{kMin} - Duration{1}).ns == kMin);
  CHECK((-Duration{kMin}).ns == kMax);
  CHECK((Duration{kMax / 2} * 3).ns == kMax);
  CHECK((Instant{kMax - 5} + Duration{10}).ns == kMax);
  CHECK((Instant{kMin + 5} - Instant{kMax}).ns == kMin);
  CHECK(sim::seconds(2305843009 * 5).ns == kMax);
  CHECK((Duration{10} + Duration{-3}).ns == 7);
}
