// Replays every regression file under tests/regressions: each scenario must
// keep its recorded verdict.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "locksim/props/explorer.hpp"
#include "locksim/props/regression.hpp"

using namespace locksim;
using namespace locksim::props;

TEST_CASE("regressions: every recorded scenario keeps its verdict") {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(LOCKSIM_REGRESSIONS_DIR))
    if (entry.path().extension() == ".txt") files.push_back(entry.path());
  std::sort(files.begin(), files.end());  // directory order is not deterministic
  REQUIRE_FALSE(files.empty());
  size_t replayed = 0;
  for (const auto& file : files) {
    std::string error;
    auto regressions = load_regressions(file.string(), &error);
    INFO(error);
    REQUIRE(regressions);
    for (const Regression& r : *regressions) {
      INFO(file.filename().string() << ":" << r.line << ": " << format_regression(r));
      Verdict v = run_scenario(r.scenario).verdict;
      CHECK(v.holds(r.property) != r.violates);
      ++replayed;
    }
  }
  CHECK(replayed >= 20);
}

TEST_CASE("regressions: a bad line names the file, the line and the problem") {
  std::string error;
  CHECK_FALSE(parse_regression("breaks mutual-exclusion: token-lua", &error));
  CHECK(error == "'breaks' is neither 'violates' nor 'holds'");
  CHECK_FALSE(parse_regression("violates liveness: token-lua", &error));
  CHECK(error == "unknown property 'liveness'");
  CHECK_FALSE(parse_regression("violates mutual-exclusion: token-lua seed=x", &error));
  CHECK(error == "in 'seed=x': 'x' is not a valid number");
  CHECK_FALSE(load_regressions("/nonexistent/file.txt", &error));
  CHECK(error == "cannot read '/nonexistent/file.txt': No such file or directory");
  auto r = parse_regression("holds no-deadlock: set-nx-px seed=3 clients=1");
  REQUIRE(r);
  CHECK(format_regression(*r) == "holds no-deadlock: set-nx-px seed=3 clients=1");
}
