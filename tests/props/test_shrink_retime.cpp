// Retiming (props/shrink_retime.hpp): an element kept only for where it put a timed fault
// goes, with the fault moved; an element that is the failure's mechanism stays.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "locksim/props/explorer.hpp"
#include "locksim/props/scenario.hpp"
#include "locksim/props/shrink_retime.hpp"
#include "scenario_text.hpp"

using namespace locksim::props;

namespace {

bool has_clock_error(const Scenario& s) {
  const auto& w = s.workload;
  return std::any_of(w.clock_offsets.begin(), w.clock_offsets.end(), [](auto d) { return d.ns != 0; }) ||
         std::any_of(w.drifts_ppm.begin(), w.drifts_ppm.end(), [](auto d) { return d != 0; }) ||
         !s.redis_drifts_ppm.empty();
}

std::vector<std::string> necessary(const Scenario& s) {
  std::vector<std::string> out;
  for (const Element& e : elements_of(s))
    if (!e.what.starts_with("client ")) out.push_back(e.what);
  return out;
}

// The violation of `property` a replay of `s` shows, with its cause.
std::optional<Violation> replayed(const Scenario& s, Property property) {
  for (const Violation& v : run_scenario(s).verdict.violations)
    if (v.property == property) return v;
  return std::nullopt;
}

}  // namespace

TEST_CASE("A drift that only timed a crash after SETNX goes and the crash moves to where it landed", "[props]") {
  // As ttl-seconds' finding: A's fast clock sends SETNX before 10ms; without the drift
  // the crash lands before it and nothing fails. The failure is the crash between
  // SETNX and EXPIRE, which needs no clock error.
  const Scenario s = scenario(
      "setnx-expire seed=0 clients=2 iterations=1 persistent=1 clock=A:+0s:68301 faults=[crash A @10ms]");
  const StillFails fails = fails_with(Property::NoDeadlock, {Cause::CrashNoTtl}, {});
  REQUIRE(fails(s));
  Scenario plain = s;
  plain.workload.drifts_ppm.clear();
  normalize(plain);
  REQUIRE_FALSE(fails(plain));  // the drift alone cannot go: 1-minimal keeps it without retiming

  CHECK_FALSE(retimings(s).empty());
  Counterexample counted;
  const Scenario minimal = one_minimal(s, fails, &counted);
  INFO(to_string(minimal));
  CHECK_FALSE(has_clock_error(minimal));
  const std::optional<Violation> v = replayed(minimal, Property::NoDeadlock);
  REQUIRE(v);
  CHECK(v->cause == Cause::CrashNoTtl);
  CHECK(counted.violation.cause == Cause::CrashNoTtl);
  CHECK(minimal.workload.clients == 1);
  const std::vector<std::string> needs = necessary(minimal);
  REQUIRE(needs.size() == 1);
  CHECK(needs[0].starts_with("'crash A @"));
  // Each element left is necessary: the result is still 1-minimal.
  for (const Element& e : elements_of(minimal)) CHECK_FALSE(fails(e.without));
}

TEST_CASE("A clock offset that is the mechanism of a skewed takeover stays whatever faults move", "[props]") {
  // del-setnx: B's clock runs 893ms ahead, so it judges A's fresh timestamp expired and
  // takes the lock over. B's pause is only there to be moved.
  const Scenario s =
      scenario("del-setnx seed=0 clients=2 iterations=1 persistent=1 clock=B:+893ms:0 faults=[pause B @30ms for 20ms]");
  const StillFails fails = fails_with(Property::MutualExclusion, {Cause::ClientClockSkew}, {});
  REQUIRE(fails(s));
  const std::vector<Scenario> tried = retimings(s);
  CHECK_FALSE(tried.empty());
  for (const Scenario& t : tried) {
    INFO(to_string(t));
    CHECK_FALSE(has_clock_error(t));
    CHECK_FALSE(fails(t));
  }
  Scenario kept = s;
  CHECK_FALSE(retimed(kept, fails));
  CHECK(kept == s);

  const Scenario minimal = one_minimal(s, fails);
  INFO(to_string(minimal));
  CHECK(has_clock_error(minimal));
  const std::optional<Violation> v = replayed(minimal, Property::MutualExclusion);
  REQUIRE(v);
  CHECK(v->cause == Cause::ClientClockSkew);
  CHECK(minimal.workload.clients == 2);
  CHECK(necessary(minimal) == std::vector<std::string>{"B's clock offset of 893ms"});
}

TEST_CASE("Retiming tries the same candidates in the same order each time", "[props]") {
  const Scenario s = scenario(
      "getset seed=0 clients=2 iterations=1 clock=B:+789ms:0 slow=A:0:500ms faults=[pause B @5ms for 1ms; crash A @40ms]");
  const std::vector<Scenario> first = retimings(s);
  CHECK_FALSE(first.empty());
  CHECK(retimings(s) == first);
  for (const Scenario& t : first) {
    INFO(to_string(t));
    CHECK(parse_scenario(to_string(t)) == t);  // each prints as a replayable line
  }
}
