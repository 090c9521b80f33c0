// check_lock runs `locksim check`'s whole inventory, and the matchers ask it:
// the README's example, which passed on the very bug it tests for while the
// kit stopped at the first violation of any property, now fails on
// token-check-del with the owner-only-release failure, its cause and its
// replay line, and passes on token-lua.
#include <catch2/catch.hpp>

#include "kit_helpers.hpp"
#include "locksim/props/explorer.hpp"
#include "locksim/props/scenario.hpp"
#include "locksim/testing/catch.hpp"
#include "locksim/testing/lock_check.hpp"

using Catch::Matchers::Contains;
using locksim::props::Cause;
using locksim::props::FaultFamily;
using locksim::props::Property;
using locksim::testing::check_lock;
using locksim::testing::CheckReport;
using locksim::testing::NoFailureOf;
using locksim::testing::NoFailures;
using locksim::testing::NoOwnFailures;

namespace {

// The README's example, as written there (the run count included).
const CheckReport& readme_report(const std::string& algorithm) {
  static std::map<std::string, CheckReport> reports;
  auto it = reports.find(algorithm);
  if (it == reports.end())
    it = reports.emplace(algorithm, check_lock(algorithm, {.faults = "pause,delay", .runs = 2000})).first;
  return it->second;
}

}  // namespace

TEST_CASE("the README's example fails on token-check-del: owner-only-release, its cause, its replay line") {
  const CheckReport& report = readme_report("token-check-del");
  REQUIRE(report.runs == 2000);
  auto matcher = NoFailureOf(Property::OwnerOnlyRelease);
  REQUIRE_FALSE(matcher.match(report));
  const auto* f = kit_test::failure_of(report, Property::OwnerOnlyRelease);
  REQUIRE(f != nullptr);
  // The GET-compare-DEL release: a holder paused (or delayed) between its GET
  // and its DEL deletes the next holder's key.
  CHECK(f->cause == Cause::StaleRelease);
  CHECK(f->catalogue == "F09");
  CHECK(f->own);
  CHECK(f->shrunk.workload.clients == 2);
  CHECK(f->needs == std::vector<FaultFamily>{FaultFamily::Pause, FaultFamily::DelaySpikes});
  // The matcher's message: every owner-only-release failure, with cause and replay line.
  const std::string said = matcher.describe();
  CHECK_THAT(said, Contains("has no failure of owner-only-release; it has:"));
  CHECK_THAT(said, Contains("owner-only-release by " + std::string(locksim::props::to_string(f->cause))));
  CHECK_THAT(said, Contains("cause:  " + f->cause_text));
  CHECK_THAT(said, Contains("replay: locksim replay 'token-check-del "));
  CHECK_THAT(said, Contains(f->replay));
  // Only that property's failures: the others the inventory holds are not listed.
  for (const auto& other : report.failures)
    if (other.property != Property::OwnerOnlyRelease) CHECK_THAT(said, !Contains(other.replay));
  // The one the old kit stopped at (bounded-wait, run 16) is in the inventory too.
  CHECK(kit_test::failure_of(report, Property::BoundedWait) != nullptr);
}

TEST_CASE("the README's example passes on token-lua, whose release compares and deletes atomically") {
  const CheckReport& report = readme_report("token-lua");
  REQUIRE(report.runs == 2000);
  CHECK_THAT(report, NoFailureOf(Property::OwnerOnlyRelease));
  // The inventory still has failures of other properties: the matcher asked about one.
  CHECK_FALSE(report.ok());
}

TEST_CASE("the replay line a failure prints replays that failure") {
  const CheckReport& report = readme_report("token-check-del");
  const auto* f = kit_test::failure_of(report, Property::OwnerOnlyRelease);
  REQUIRE(f != nullptr);
  // locksim replay 'SCENARIO' [--assume '...']: the scenario, run again, fails the same way.
  const size_t open = f->replay.find('\'');
  const size_t close = f->replay.find('\'', open + 1);
  REQUIRE(close != std::string::npos);
  const auto scenario = locksim::props::parse_scenario(f->replay.substr(open + 1, close - open - 1));
  REQUIRE(scenario);
  CHECK(locksim::props::to_string(*scenario) == f->scenario);
  const auto run = locksim::props::run_scenario(*scenario);
  const auto* v = run.verdict.find(Property::OwnerOnlyRelease);
  REQUIRE(v != nullptr);
  CHECK(v->cause == f->cause);
  // And through the program, pasted as printed.
  const auto out = kit_test::shell("cd /tmp && " + std::string("'") + LOCKSIM_BIN + "'" +
                                   f->replay.substr(std::string("locksim").size()));
  CHECK(out.status == 0);
  CHECK_THAT(out.out, Contains("owner-only-release: " + std::string(locksim::props::to_string(f->cause))));
}

TEST_CASE("check_lock's inventory is locksim check's: the same failures, first runs and replay lines") {
  const CheckReport& report = readme_report("token-check-del");
  const auto [program, runs] = kit_test::check_json("token-check-del --faults pause,delay --runs 2000");
  CHECK(runs == report.runs);
  CHECK(program.size() == report.failures.size());
  CHECK(program == kit_test::failure_set(report));
}

TEST_CASE("NoFailures and NoOwnFailures: every failure, and the lock's own") {
  const CheckReport& del = readme_report("token-check-del");
  REQUIRE_FALSE(del.ok());
  auto all = NoFailures();
  CHECK_FALSE(all.match(del));
  for (const auto& f : del.failures) CHECK_THAT(all.describe(), Contains(f.replay));
  CHECK(kit_test::failure_of(del, Property::OwnerOnlyRelease)->own);
  // With pauses assumed bounded, the failures only a longer pause brings are
  // outside the assumptions: the deployment's to rule out, not the lock's own.
  const CheckReport bounded =
      check_lock("token-check-del", {.faults = "pause,delay", .runs = 2000, .assume = "pause<=100ms"});
  size_t outside = 0;
  for (const auto& f : bounded.failures) outside += f.own ? 0 : 1;
  CHECK(outside > 0);
  auto own = NoOwnFailures();
  CHECK_FALSE(own.match(del));
  for (const auto& f : del.failures)
    if (f.own)
      CHECK_THAT(own.describe(), Contains(f.replay));
    else  // by its title: an unclaimed property's failure may share its example (and replay line) with an own one
      CHECK_THAT(own.describe(), !Contains(std::string(locksim::props::to_string(f.property)) + " by " +
                                           std::string(locksim::props::to_string(f.cause)) + "\n"));
  // A report of failures outside the assumptions only passes NoOwnFailures and fails NoFailures.
  CheckReport inherent_only = bounded;
  std::erase_if(inherent_only.failures, [](const auto& f) { return f.own; });
  CHECK_THAT(inherent_only, NoOwnFailures());
  CHECK_THAT(inherent_only, !NoFailures());
}

TEST_CASE("a report is the same for any number of jobs") {
  const auto one = check_lock("token-check-del", {.faults = "pause,delay", .runs = 300});
  const auto two = check_lock("token-check-del", {.faults = "pause,delay", .runs = 300, .jobs = 2});
  CHECK(describe(one) == describe(two));
}

// Claims (docs/failures.md#claims): a failure of a property the lock does not claim is
// listed but not its own; naming the property (NoOwnFailureOf) judges it all the same.
TEST_CASE("NoOwnFailures follows the lock's claims, and NoOwnFailureOf judges the property it names") {
  const CheckReport report = check_lock(
      "token-lua", {.runs = 300, .assume = "work<=10s,pause<=5s", .lock_params = {{"lease", "30s"}}});
  CHECK_THAT(report, NoOwnFailures());
  const auto* unfair = kit_test::failure_of(report, Property::BoundedWait);
  REQUIRE(unfair != nullptr);
  CHECK_FALSE(unfair->own);
  CHECK_FALSE(unfair->outside);
  CHECK_THAT(report, !locksim::testing::NoOwnFailureOf(Property::BoundedWait));
}
