#pragma once
// Check a lock — a built-in algorithm, your own C++ lock registered with
// lock::register_algorithm, or a Lua variant — over drawn scenarios from a
// test, and get what `locksim check` reports: each failure with its property,
// its cause and the line that replays it.
//
//   auto report = locksim::testing::check_lock("my-lock", {.faults = "pause,slow-work", .runs = 2000});
//   REQUIRE_THAT(report, locksim::testing::NoFailures());   // prints the replay lines when it fails
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "locksim/props/explorer.hpp"
#include "locksim/props/property.hpp"

namespace locksim::testing {

struct CheckSettings {
  std::string faults = "all";  // fault kinds, as `locksim check --faults`
  uint32_t runs = 1000;
  uint64_t seed = 1;
  std::optional<props::Property> property;  // look for this one only
  uint32_t min_clients = 2, max_clients = 3;
  uint32_t max_iterations = 3;
  bool shrink = true;
};

struct Failure {
  props::Property property = props::Property::MutualExclusion;
  std::string explanation;  // who, when, and why
  uint32_t first_run = 0;   // index of the run that found it
  std::string scenario;     // shrunk, one line
  std::string replay;       // the command that replays it
};

struct CheckReport {
  std::string algorithm;
  uint64_t seed = 0;
  uint32_t runs = 0;  // scenarios run
  std::vector<Failure> failures;
  bool ok() const { return failures.empty(); }
};

// Throws std::invalid_argument for an unknown algorithm or fault kind.
CheckReport check_lock(const std::string& algorithm, const CheckSettings& settings = {});

// The report as `locksim check` prints its summary: one block per failure.
std::string describe(const CheckReport& report);

}  // namespace locksim::testing
