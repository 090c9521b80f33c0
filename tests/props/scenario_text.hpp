#pragma once
// A scenario from its text (props/scenario.hpp's syntax), failing the test with the parse error.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>

#include "locksim/props/scenario.hpp"

inline locksim::props::Scenario scenario(std::string_view text) {
  std::string error;
  auto s = locksim::props::parse_scenario(text, &error);
  INFO(text << ": " << error);
  REQUIRE(s);
  return *s;
}
