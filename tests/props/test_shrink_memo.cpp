// Shrinking's memo (props/shrink_memo.hpp): a candidate met again is answered
// without a run, and only the very same scenario counts as met again.
#include <catch2/catch.hpp>

#include <string>
#include <thread>

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

TEST_CASE("The replay cache answers what a run answers, simulating each scenario once, on any thread", "[props]") {
  ReplayCache cache({}, 3);
  const Scenario failing = scenario(
      "token-lua seed=1 clients=2 iterations=1 work=1.5s..1.5s faults=[pause A @100ms for 12s]");
  const Scenario quiet = scenario("token-lua seed=2 clients=2 iterations=1");
  const std::vector<Violation> expected = run_scenario(failing, {}).verdict.violations;
  REQUIRE_FALSE(expected.empty());
  auto same = [](const std::vector<Violation>& a, const std::vector<Violation>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i].property != b[i].property || a[i].cause != b[i].cause || a[i].sentence != b[i].sentence) return false;
    return true;
  };
  CHECK(same(*cache.violations(failing), expected));
  CHECK(cache.violations(quiet)->empty());
  CHECK(cache.hits() == 0);
  // From two threads at once: the same answers, and the scenarios are not simulated again.
  std::vector<Violation> a, b;
  std::thread other([&] { a = *cache.violations(failing); });
  b = *cache.violations(failing);
  other.join();
  CHECK(same(a, expected));
  CHECK(same(b, expected));
  CHECK(cache.hits() == 2);
  // Full (three entries at most): it starts over, and still answers as the run does.
  cache.violations(scenario("token-lua seed=4 clients=2 iterations=1"));
  cache.violations(scenario("token-lua seed=5 clients=2 iterations=1"));
  CHECK(same(*cache.violations(failing), expected));
  CHECK(cache.hits() == 2);
}
