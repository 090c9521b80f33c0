// Shrinking's memo (props/shrink_memo.hpp): a candidate met again is answered
// without a run, and only the very same scenario counts as met again.
#include <catch2/catch.hpp>

#include <string>

#include "locksim/props/scenario.hpp"
#include "locksim/props/shrink_memo.hpp"
#include "scenario_text.hpp"

using namespace locksim::props;

namespace {

}  // namespace

TEST_CASE("The shrink memo runs each distinct candidate once and answers repeats as the run did", "[props]") {
  int runs = 0;
  ShrinkMemo memo([&runs](const Scenario& s) -> std::optional<Violation> {
    ++runs;
    if (s.workload.clients < 3) return std::nullopt;
    Violation v;
    v.property = Property::MutualExclusion;
    return v;
  });
  const Scenario three = scenario("token-lua seed=3 clients=3 iterations=2");
  const Scenario two = scenario("token-lua seed=3 clients=2 iterations=2");
  CHECK(memo(three).has_value());
  CHECK_FALSE(memo(two).has_value());
  CHECK(memo(three).has_value());
  CHECK_FALSE(memo(two).has_value());
  CHECK(runs == 2);
  CHECK(memo.hits() == 2);
  // The same text is not enough: a field the text leaves out (trace recording) makes another scenario.
  Scenario quiet = three;
  quiet.record_trace = !three.record_trace;
  REQUIRE(to_string(quiet) == to_string(three));
  CHECK(memo(quiet).has_value());
  CHECK(runs == 3);
}
