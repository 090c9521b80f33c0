// check_lock's settings are check's flags: a Lua variant by its file, a C++
// lock by registration, assumptions, deployment, seed, runs, jobs; and what
// check refuses, check_lock refuses with the same message.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "kit_helpers.hpp"
#include "locksim/lock/registry.hpp"
#include "locksim/props/defaults.hpp"
#include "locksim/props/limits.hpp"
#include "locksim/testing/catch.hpp"
#include "locksim/testing/lock_check.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using locksim::props::Cause;
using locksim::props::Property;
using locksim::testing::check_lock;
using locksim::testing::CheckSettings;
using locksim::testing::NoFailureOf;

using kit_test::kBuggy;

namespace {
const std::string kTokenLua = LOCKSIM_EXAMPLES_DIR "/token_lua.lua";
}  // namespace

TEST_CASE("a Lua variant is checked by its file, and its replay line loads the file") {
  const auto report =
      check_lock("buggy-compare-then-del", {.faults = "pause-at-call,delay", .runs = 300, .variant = kBuggy});
  CHECK(report.variant == kBuggy);
  auto matcher = NoFailureOf(Property::OwnerOnlyRelease);
  REQUIRE_FALSE(matcher.match(report));
  const auto* f = kit_test::failure_of(report, Property::OwnerOnlyRelease);
  REQUIRE(f != nullptr);
  CHECK(f->cause == Cause::StaleRelease);
  CHECK(f->own);
  CHECK(f->shrunk.workload.clients == 2);
  CHECK(f->needs == std::vector<locksim::props::FaultFamily>{locksim::props::FaultFamily::DelaySpikes,
                                                             locksim::props::FaultFamily::PauseAtCall});
  CHECK_THAT(f->replay, StartsWith("locksim replay --variant '" + kBuggy + "' 'buggy-compare-then-del "));
  CHECK_THAT(matcher.describe(), Contains(f->replay));
  // A second check of the same file finds it registered; its twin, correct, passes.
  CHECK(check_lock("buggy-compare-then-del", {.faults = "pause-at-call,delay", .runs = 300, .variant = kBuggy})
            .failures.size() == report.failures.size());
  CHECK_THAT(check_lock("lua-token-lua", {.faults = "pause-at-call,delay", .runs = 300, .variant = kTokenLua}),
             NoFailureOf(Property::OwnerOnlyRelease));
}

TEST_CASE("a C++ lock joins by registration, and its replay lines name the program that registers it") {
  const auto* base = locksim::lock::find_algorithm("token-check-del");
  REQUIRE(base != nullptr);
  if (!locksim::lock::find_algorithm("kit-test-check-del"))
    locksim::lock::register_algorithm(
        {"kit-test-check-del", "token-check-del under another name", "", "", base->params, false, base->make});
  const auto report =
      check_lock("kit-test-check-del", {.faults = "pause,delay", .runs = 2000, .program = "my_locksim"});
  const auto* f = kit_test::failure_of(report, Property::OwnerOnlyRelease);
  REQUIRE(f != nullptr);
  CHECK(f->cause == Cause::StaleRelease);
  CHECK(report.variant.empty());
  CHECK_THAT(f->replay, StartsWith("my_locksim replay 'kit-test-check-del "));
}

TEST_CASE("assumptions narrow the search as check --assume does, and the replay lines carry them") {
  const auto report = check_lock("token-check-del", {.faults = "pause,delay", .runs = 500, .assume = "pause<=100ms"});
  CHECK_THAT(report.assumptions, Contains("pause<=100ms"));  // beside the algorithm's own defaults
  const auto assumed = locksim::props::parse_assumptions("pause<=100ms");
  REQUIRE(assumed);
  for (const auto& f : report.failures) {
    CHECK_THAT(f.replay, StartsWith("locksim replay 'token-check-del "));
    if (!f.own) continue;  // listed for the deployment to rule out, replayed without them
    CHECK_THAT(f.replay, Contains("--assume '") && Contains("pause<=100ms"));
    CHECK_FALSE(locksim::props::breaks_assumptions(f.shrunk, *assumed));
  }
}

TEST_CASE("the deployment, the seed and the run count are check's") {
  // Each the same inventory as the program's from the same flags.
  auto same_as_check = [](const std::string& algorithm, const CheckSettings& s, const std::string& flags) {
    const auto report = check_lock(algorithm, s);
    const auto [program, runs] = kit_test::check_json(algorithm + " " + flags);
    INFO(flags);
    CHECK(runs == report.runs);
    CHECK(program == kit_test::failure_set(report));
    return report;
  };
  const auto replica = same_as_check("set-nx-px", {.faults = "master-crash,pause", .runs = 200, .replica = true},
                                     "--faults master-crash,pause --runs 200 --replica");
  CHECK_FALSE(replica.ok());
  const auto masters =
      same_as_check("redlock", {.faults = "pause", .runs = 100, .masters = 5}, "--faults pause --runs 100 --masters 5");
  CHECK(masters.runs == 100);
  const auto seed2 = same_as_check("token-check-del", {.faults = "pause,delay", .runs = 300, .seed = 2},
                                   "--faults pause,delay --runs 300 --seed 2");
  CHECK(seed2.seed == 2);
  CHECK(describe(seed2) != describe(check_lock("token-check-del", {.faults = "pause,delay", .runs = 300})));
  same_as_check("token-lua",
                {.faults = "slow-work", .runs = 100, .clients = 3, .iterations = 2, .lock_params = {{"lease", "2s"}}},
                "--faults slow-work --runs 100 --clients 3 --iterations 2 --lease 2s");
}

TEST_CASE("what check refuses, check_lock refuses with check's message") {
  auto refused = [](const std::string& algorithm, const CheckSettings& s) {
    try {
      check_lock(algorithm, s);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  CHECK(refused("no-such-lock", {}) == "unknown algorithm 'no-such-lock'");
  CHECK_THAT(refused("token-lua", {.faults = "pause,gremlins"}), StartsWith("--faults: "));
  CHECK_THAT(refused("token-lua", {.assume = "perfect-network"}), StartsWith("--assume: "));
  CHECK(refused("token-lua", {.masters = 3, .replica = true}) == "--replica goes with a single master");
  CHECK(refused("token-lua", {.clients = 40}) == *locksim::props::check_limit("clients", 40, true));
  CHECK(refused("token-lua", {.lock_params = {{"leese", "1s"}}}) == "unknown lock parameter 'leese'");
  CHECK(refused("token-lua", {.runs = 0}) == "check_lock: runs must be at least 1");
  CHECK_THAT(refused("another-name", {.variant = kTokenLua}),
             Contains("declares the variant 'lua-token-lua', not 'another-name'"));
  CHECK_THAT(refused("x", {.variant = "/no/such/lock.lua"}), Contains("/no/such/lock.lua"));
}
