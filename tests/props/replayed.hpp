#pragma once
// Replaying a scenario line a test quotes: the violation it shows as written, and what
// that failure needs once the line is 1-minimal (tests/props/test_causes*.cpp).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "locksim/props/explorer.hpp"

namespace locksim::props::test {

// The scenario exactly as written (its seed too): its violation of `property`.
inline Violation exact_violation(const std::string& text, Property property) {
  std::string error;
  auto s = parse_scenario(text, &error);
  INFO(error);
  REQUIRE(s);
  const RunResult run = run_scenario(*s);
  const Violation* v = run.verdict.find(property);
  REQUIRE(v);
  UNSCOPED_INFO(v->sentence);
  return *v;
}

// What the failure (property and cause) needs of the scenario, once 1-minimal: its
// elements other than clients, each necessary by replay.
inline std::vector<std::string> necessary_for(const std::string& text, Property property, Cause cause) {
  auto s = parse_scenario(text);
  REQUIRE(s);
  const Scenario minimal = one_minimal(*s, fails_with(property, {cause}, {}));
  std::vector<std::string> out;
  for (const Element& e : elements_of(minimal))
    if (!e.what.starts_with("client ")) out.push_back(e.what);
  return out;
}

}  // namespace locksim::props::test
