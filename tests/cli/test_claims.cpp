// check judges a lock on what it claims: a failure of a property the lock never
// promised is listed in a section of its own and in the JSON, and does not make
// the exit status 1 (docs/failures.md#claims).
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "program_run.hpp"

namespace {

using ClaimsRun = locksim::test::ProgramRun;

ClaimsRun run_claims_check(const std::string& args) {
  return locksim::test::run_program(std::string("'") + LOCKSIM_BIN + "' " + args);
}

// The command: every failure under these assumptions is of a property token-lua does not claim.
// Client clocks are not bounded: token-lua times its waits on the monotonic clock, which no jump moves.
const std::string kTokenLua30s = "check token-lua --lease 30s --assume 'work<=10s,pause<=5s' --runs 300 --seed 1";

}  // namespace

TEST_CASE("check: a 30 s token-lua under work<=10s,pause<=5s exits 0 and lists what it does not claim") {
  const ClaimsRun r = run_claims_check(kTokenLua30s);
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  CHECK(r.out.find("claims: mutual-exclusion, no-deadlock, owner-only-release, no-zombie-lock, no-stalled-wait\n") !=
        std::string::npos);
  CHECK(r.out.find("Failures under your assumptions (token-lua's own)") == std::string::npos);
  const size_t unclaimed = r.out.find("Failures under your assumptions of properties token-lua does not claim");
  REQUIRE(unclaimed != std::string::npos);
  CHECK(r.out.find("bounded-wait by ", unclaimed) != std::string::npos);
  CHECK(r.out.find("No failure of a claimed property under your assumptions") != std::string::npos);
  CHECK(r.out.find("exit status 0.") != std::string::npos);
}

TEST_CASE("check --first stops only at a claimed property, as the inventory's exit status does") {
  const ClaimsRun clean = run_claims_check(kTokenLua30s + " --first");
  INFO(clean.out << clean.err);
  CHECK(clean.status == 0);
  CHECK(clean.out.find("300 runs, no violation of any claimed property (mutual-exclusion, no-deadlock, "
                       "owner-only-release, no-zombie-lock, no-stalled-wait)") != std::string::npos);
  // Named with --property, an unclaimed property is claimed and looked for.
  const ClaimsRun asked = run_claims_check(kTokenLua30s + " --first --property bounded-wait");
  INFO(asked.out << asked.err);
  CHECK(asked.out.find("looking for bounded-wait\n") != std::string::npos);
  CHECK(asked.out.find("claims: mutual-exclusion, no-deadlock, owner-only-release, bounded-wait,") !=
        std::string::npos);
}

TEST_CASE("check --json: the claims in force, and each failure claimed or not") {
  const ClaimsRun r = run_claims_check(kTokenLua30s + " --json");
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const nlohmann::json inv = nlohmann::json::parse(r.out);
  CHECK(inv.at("claims") == nlohmann::json::array({"mutual-exclusion", "no-deadlock", "owner-only-release",
                                                   "no-zombie-lock", "no-stalled-wait"}));
  bool unclaimed = false;
  for (const auto& f : inv.at("failures")) {
    const std::string property = f.at("property");
    const bool claimed = f.at("claimed");
    CHECK(claimed == (property != "bounded-wait" && property != "reentrancy" && property != "fenced-writes"));
    CHECK((!claimed || f.at("outside_assumptions").get<bool>()));  // none of its own
    unclaimed = unclaimed || !claimed;
  }
  CHECK(unclaimed);
}

TEST_CASE("check --claims replaces the claims, and --property claims what it names") {
  // Claimed after all, the same failures are token-lua's own.
  const ClaimsRun all = run_claims_check(kTokenLua30s + " --claims all");
  INFO(all.out << all.err);
  CHECK(all.status == 1);
  CHECK(all.out.find("Failures under your assumptions (token-lua's own)") != std::string::npos);
  CHECK(all.out.find("does not claim") == std::string::npos);
  // Looked for by name, fairness is judged.
  const ClaimsRun fair = run_claims_check(kTokenLua30s + " --property bounded-wait");
  INFO(fair.out << fair.err);
  CHECK(fair.status == 1);
  CHECK(fair.out.find("claims: mutual-exclusion, no-deadlock, owner-only-release, bounded-wait, no-zombie-lock") !=
        std::string::npos);
  // A word that is no property is a usage error.
  const ClaimsRun bad = run_claims_check(kTokenLua30s + " --claims mutual-exclusion,fairness");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("--claims 'mutual-exclusion,fairness': 'fairness' is no property") != std::string::npos);
}

TEST_CASE("check: a variant's claims come from its file, and a claim that is no property is refused") {
  const std::string dir = "/tmp/locksim_test_claims_" + std::to_string(getpid());
  std::system(("mkdir -p '" + dir + "'").c_str());
  std::ifstream in(std::string(LOCKSIM_EXAMPLES_DIR) + "/token_lua.lua");
  std::ostringstream text;
  text << in.rdbuf();
  const std::string fair = dir + "/fair_claim.lua", typo = dir + "/typo_claim.lua";
  std::ofstream(fair) << "claims = { 'mutual-exclusion', 'bounded-wait' }\n" << text.str();
  std::ofstream(typo) << "claims = { 'mutual-exclusoin' }\n" << text.str();
  const ClaimsRun r = run_claims_check("check lua-token-lua --variant " + fair + " --runs 1 --seed 1");
  INFO(r.out << r.err);
  CHECK(r.out.find("claims: mutual-exclusion, bounded-wait\n") != std::string::npos);
  const ClaimsRun bad = run_claims_check("check lua-token-lua --variant " + typo + " --runs 1");
  CHECK(bad.status == 2);
  CHECK(bad.err.find(typo + ": claims: 'mutual-exclusoin' is no property") != std::string::npos);
  std::system(("rm -rf '" + dir + "'").c_str());
}

TEST_CASE("list shows what each lock claims") {
  const ClaimsRun r = run_claims_check("list");
  REQUIRE(r.status == 0);
  const size_t fenced = r.out.find(". fenced\n"), redlock = r.out.find(". redlock\n");
  REQUIRE(fenced != std::string::npos);
  REQUIRE(redlock != std::string::npos);
  // In check's order (docs/failures.md#properties), as check's header prints them.
  CHECK(r.out.find("    claims: no-deadlock, owner-only-release, fenced-writes, no-zombie-lock, no-stalled-wait\n",
                   fenced) < redlock);
  CHECK(r.out.find("    claims: mutual-exclusion, no-deadlock, owner-only-release, bounded-wait, no-zombie-lock, "
                   "no-stalled-wait\n",
                   r.out.find(". fair\n")) != std::string::npos);
}
