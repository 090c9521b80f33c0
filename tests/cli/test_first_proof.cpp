// check --first proves the cause of the failure it stops at as the inventory proves its
// examples' causes (props::prove_example): a cause the proof re-labels is told re-labelled
// by both, with the same proven cause (docs/failures.md, "How a cause is proven").
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "program_run.hpp"

namespace {

locksim::test::ProgramRun run_check(const std::string& args) {
  return locksim::test::run_program(std::string("'") + LOCKSIM_BIN + "' check " + args);
}

// The inventory's failure of `property` (there is one under --property), then --first's
// answer for the same sweep: the same run, the same proven cause, and the proof line.
void first_agrees_with_inventory(const std::string& sweep, const std::string& property) {
  const auto inv = run_check(sweep + " --property " + property + " --json");
  INFO(inv.out << inv.err);
  REQUIRE(inv.status == 1);
  const nlohmann::json json = nlohmann::json::parse(inv.out);
  const nlohmann::json* failure = nullptr;
  for (const nlohmann::json& f : json.at("failures"))
    if (f.at("property") == property && (!failure || f.at("first_run") < failure->at("first_run"))) failure = &f;
  REQUIRE(failure != nullptr);
  // The scenario is one the proof re-labels: the classifier's cause is not the proven one.
  const nlohmann::json& proof = failure->at("proof");
  REQUIRE_FALSE(proof.at("relabelled_by").is_null());
  const std::string cause = failure->at("cause"), classified = proof.at("classified");
  REQUIRE(cause != classified);

  const auto first = run_check(sweep + " --property " + property + " --first");
  INFO(first.out << first.err);
  REQUIRE(first.status == 1);
  CHECK(first.out.find("found: " + property + " violated in run " + std::to_string(int(failure->at("first_run"))) +
                       ",") != std::string::npos);
  CHECK(first.out.find("cause:      " + cause + ": ") != std::string::npos);
  CHECK(first.out.find("proof:      re-labelled from " + classified + ": ") != std::string::npos);
}

}  // namespace

TEST_CASE("check --first proves its failure's cause as the inventory does, re-labelling alike") {
  // A stale release the master's crash made (failover-lost-key), and waiters blocked by a
  // holder whose key a restart without persistence lost (redis-restart-forgot-key).
  first_agrees_with_inventory("setnx-del --assume none --runs 400 --seed 1", "owner-only-release");
  first_agrees_with_inventory("token-check-del --assume none --runs 400 --seed 1", "no-deadlock");
}
