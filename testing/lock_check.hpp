#pragma once
// Check a lock — a built-in algorithm, your own C++ lock registered with
// lock::register_algorithm, or a Lua variant file — from a test, and get what
// `locksim check` reports: the whole inventory of distinct failures (every
// property, every cause, the same search), each with its cause and the
// command that replays it. The matchers (catch.hpp for Catch2, gtest.hpp for
// GoogleTest) ask that inventory.
//
//   auto report = locksim::testing::check_lock("my-lock", {.faults = "pause,slow-work", .runs = 2000});
//   REQUIRE_THAT(report, locksim::testing::NoFailures());   // prints every failure and its replay line
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "locksim/props/cause.hpp"
#include "locksim/props/fault_model.hpp"
#include "locksim/props/property.hpp"
#include "locksim/props/scenario.hpp"

namespace locksim::testing {

// What `locksim check` takes as flags; each field has the flag's meaning and default.
struct CheckSettings {
  std::string faults = "all";               // fault kinds the search may draw (--faults)
  uint32_t runs = 1000;                     // scenarios drawn (--runs)
  uint64_t seed = 1;                        // --seed
  std::optional<props::Property> property;  // look for this property only (--property; default every one)
  std::string variant;       // a Lua variant's file (--variant): loaded and registered, its name is the algorithm
  std::string assume;        // what you accept as outside the lock's responsibility (--assume), e.g. "pause<=500ms"
  uint32_t masters = 0;      // independent Redis masters (--masters; 0: the algorithm's own deployment)
  bool replica = false;      // one master with an asynchronous replica (--replica)
  uint32_t clients = 0;      // exactly this many clients per run (--clients; 0: 2 to 3)
  uint32_t clients_max = 0;  // at most this many (--clients-max)
  uint32_t iterations = 0;   // at most this many critical sections per client (--iterations; 0: 3)
  uint32_t nested = 0;       // nested acquires up to this depth (--nested; 0: the algorithm's default)
  std::map<std::string, std::string> lock_params;  // {"lease", "2s"}: as --lease 2s
  unsigned jobs = 1;                               // threads; the report is the same for any number
  bool shrink = true;                              // shrink each counterexample (--no-shrink: false)
  std::string program = "locksim";                 // the program replay lines name (yours, for a C++ lock it registers)
};

struct Failure {
  props::Property property = props::Property::MutualExclusion;
  props::Cause cause = props::Cause::Unknown;
  std::string cause_text;                 // what the cause means
  std::string explanation;                // who, when, and why (the shrunk run's)
  std::string catalogue;                  // "F07", or "" when docs/failures.md has no entry for it
  std::vector<props::FaultFamily> needs;  // the fault kinds its shrunk scenario holds
  uint32_t runs = 0;                      // runs that showed it
  uint32_t first_run = 0;                 // index of the first
  bool own = true;                        // the lock's own (see own_failure), not the deployment's
  bool outside = false;                   // needs a fault outside the assumptions (own: claimed and not outside)
  props::Scenario shrunk;                 // the counterexample
  std::string scenario;                   // the same, one line
  std::string replay;                     // the command that replays it (with --variant and --assume when they apply)
};

struct CheckReport {
  std::string algorithm;
  std::string variant;  // the variant's file, or ""
  uint64_t seed = 0;
  uint32_t runs = 0;              // scenarios run
  std::string assumptions;        // as stated, normalised ("" when none)
  std::vector<Failure> failures;  // every distinct (property, cause); the lock's own first
  bool ok() const { return failures.empty(); }
};

// Runs `locksim check`'s inventory. With settings.variant, the file is loaded
// first (once per process) and must declare `algorithm` as its name. Throws
// std::invalid_argument for an unknown algorithm, fault kind, lock parameter
// or assumption, or a variant file that does not load.
CheckReport check_lock(const std::string& algorithm, const CheckSettings& settings = {});

// Which failures a matcher asks about.
struct FailureFilter {
  std::optional<props::Property> property;  // of this property only
  bool own_only = false;                    // the lock's own only (with a property: any of it inside the assumptions)
  bool matches(const Failure& f) const;
  std::string describe() const;  // "no failure of owner-only-release"
};
std::vector<const Failure*> failures_matching(const CheckReport& report, const FailureFilter& filter);

// One line for the report: "token-lua: 2000 runs, seed 1: no failure" / "...: 3 failures".
std::string summary(const CheckReport& report);
// One block per failure: property by cause, what the cause means, why, the replay line.
std::string describe(const Failure& f);
// The summary, then every failure.
std::string describe(const CheckReport& report);

// Appends each failure to a regression file as a `violates` line (with its
// variant's file and hash), for locksim_add_regression_tests to replay.
// Throws std::runtime_error when the file cannot be written.
void save_failures(const CheckReport& report, const std::string& path);

}  // namespace locksim::testing
