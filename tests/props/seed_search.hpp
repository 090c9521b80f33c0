#pragma once
// A quoted example, found on the schedule its seed draws. A seed fixes each
// client's start, work and think times (lock/schedule.hpp), so a test writes
// the scenario's faults, sections and clocks and searches the seeds, from 0,
// for the first on which the scenario shows the property: the example is
// what the search finds, never a seed tuned to an outcome. What the test then
// asserts (cause, clients, fault) is what that first example must show.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <string_view>

#include "locksim/props/explorer.hpp"

namespace seedsearch {

inline constexpr uint64_t kSeeds = 5000;

// `text` with the first seed (from 0) on which it violates `property`, or nothing.
inline std::optional<locksim::props::Scenario> first_seed_showing(std::string_view text,
                                                                  locksim::props::Property property) {
  std::string error;
  auto s = locksim::props::parse_scenario(text, &error);
  INFO(text << ": " << error);
  REQUIRE(s);
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    s->seed = seed;
    if (locksim::props::run_scenario(*s).verdict.find(property)) {
      UNSCOPED_INFO("found on " << locksim::props::to_string(*s));
      return s;
    }
  }
  return std::nullopt;
}

// `text` with the first seed (from 0) on which it violates `property` by `cause`: for a
// test about that mechanism, the first schedule on which the written faults set it off.
inline std::optional<locksim::props::Scenario> first_seed_showing(std::string_view text,
                                                                  locksim::props::Property property,
                                                                  locksim::props::Cause cause) {
  std::string error;
  auto s = locksim::props::parse_scenario(text, &error);
  INFO(text << ": " << error);
  REQUIRE(s);
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    s->seed = seed;
    const auto run = locksim::props::run_scenario(*s);
    if (const auto* v = run.verdict.find(property); v && v->cause == cause) {
      UNSCOPED_INFO("found on " << locksim::props::to_string(*s));
      return s;
    }
  }
  return std::nullopt;
}

// The same world under another algorithm: one schedule for every lock.
inline locksim::props::Scenario with_algorithm(locksim::props::Scenario s, std::string algorithm) {
  s.algorithm = std::move(algorithm);
  return s;
}

}  // namespace seedsearch
