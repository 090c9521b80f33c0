// A Lua variant's failure, saved (by check --save or the kit's
// save_failures), keeps the variant's file and content hash, and replays with
// no other step: `locksim replay --line N FILE`, which is what
// locksim_add_regression_tests runs under ctest.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "kit_helpers.hpp"
#include "locksim/props/explorer.hpp"
#include "locksim/props/regression.hpp"
#include "locksim/props/variant_file.hpp"
#include "locksim/testing/catch.hpp"
#include "locksim/testing/lock_check.hpp"

using Catch::Matchers::Contains;
using locksim::props::Property;
using locksim::testing::check_lock;

namespace fs = std::filesystem;

using kit_test::kBuggy;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A folder of the test's own, removed at the end.
struct TempFolder {
  fs::path path = kit_test::temp_path("folder");
  TempFolder() { fs::create_directories(path); }
  ~TempFolder() { fs::remove_all(path); }
};

}  // namespace

TEST_CASE("save_failures writes each failure with its variant's file, relative, and its SHA-1") {
  TempFolder dir;
  fs::create_directories(dir.path / "locks" / "tests");
  fs::copy_file(kBuggy, dir.path / "locks" / "compare_then_del.lua");
  const std::string variant = (dir.path / "locks" / "compare_then_del.lua").string();
  const std::string file = (dir.path / "locks" / "tests" / "regressions.txt").string();
  // A copy of the buggy variant under its own name would clash with the
  // original's registration: give the copy a name of its own.
  {
    std::string text = slurp(variant);
    text.replace(text.find("name = \"buggy-compare-then-del\""), 31, "name = \"kit-copy-compare-then-del\"");
    std::ofstream(variant) << text;
  }
  const auto report =
      check_lock("kit-copy-compare-then-del", {.faults = "pause-at-call,delay", .runs = 300, .variant = variant});
  REQUIRE_FALSE(report.ok());
  locksim::testing::save_failures(report, file);
  const std::string saved = slurp(file);
  const auto sha1 = locksim::props::file_sha1(variant);
  REQUIRE(sha1);
  CHECK_THAT(saved, Contains("variant='../compare_then_del.lua' sha1=" + *sha1 + ": kit-copy-compare-then-del "));
  // Read back: every line violates as saved.
  std::string error;
  const auto lines = locksim::props::load_regressions(file, &error);
  INFO(error);
  REQUIRE(lines);
  REQUIRE(lines->size() == report.failures.size());
  for (const auto& r : *lines) {
    CHECK(r.violates);
    CHECK_FALSE(r.variant_changed());
    CHECK_FALSE(locksim::props::run_scenario(r.scenario).verdict.holds(r.property));
  }
  // Through the program, from another folder, with no --variant: as ctest runs it.
  const auto out = kit_test::shell("cd / && '" + std::string(LOCKSIM_BIN) + "' replay --line 1 '" + file + "'");
  CHECK(out.status == 0);
  CHECK_THAT(out.out, Contains("as expected"));
  CHECK_THAT(out.out, Contains("variant:    " + (dir.path / "locks" / "compare_then_del.lua").string() + "\n"));
  // The variant edited since: the replay says so, and replays the file as it is now.
  std::ofstream(variant, std::ios::app) << "-- edited\n";
  const auto edited = kit_test::shell("cd / && '" + std::string(LOCKSIM_BIN) + "' replay --line 1 '" + file + "'");
  CHECK(edited.status == 0);
  CHECK_THAT(edited.out, Contains("(changed since the line was saved: sha1 " + sha1->substr(0, 12)));
}

TEST_CASE("check --save keeps the variant, and the saved line replays alone") {
  TempFolder dir;
  const std::string file = (dir.path / "saved.txt").string();
  const auto check = kit_test::locksim("check buggy-compare-then-del --variant '" + kBuggy +
                                       "' --faults pause-at-call,delay --runs 300 --save '" + file + "'");
  REQUIRE(check.status == 1);
  const std::string saved = slurp(file);
  CHECK_THAT(saved, Contains("violates owner-only-release variant='"));
  CHECK_THAT(saved, Contains("examples/buggy/compare_then_del.lua' sha1="));
  const auto replay = kit_test::locksim("replay --line 1 '" + file + "'");
  CHECK(replay.status == 0);
  CHECK_THAT(replay.out, Contains("as expected"));
}

TEST_CASE("a regression line's variant: what is wrong with it is said, with the file and line") {
  TempFolder dir;
  const std::string file = (dir.path / "r.txt").string();
  auto load_error = [&](const std::string& line) {
    std::ofstream(file) << line << "\n";
    std::string error;
    CHECK_FALSE(locksim::props::load_regressions(file, &error));
    return error;
  };
  CHECK_THAT(
      load_error("violates owner-only-release variant='nowhere.lua' sha1=" + std::string(40, '0') + ": x seed=1"),
      Contains(file + ":1: variant=nowhere.lua: cannot read"));
  CHECK_THAT(load_error("violates owner-only-release variant='" + kBuggy + "': buggy-compare-then-del seed=1"),
             Contains("expected sha1=HASH after the file"));
  CHECK_THAT(load_error("violates owner-only-release variant='" + kBuggy + "' sha1=xyz: buggy-compare-then-del"),
             Contains("sha1=xyz: expected 40 lowercase hex digits"));
  CHECK_THAT(load_error("violates owner-only-release variant='unclosed: token-lua seed=1"),
             Contains("expected the variant's file, quoted as 'FILE'"));
  CHECK_THAT(load_error("violates owner-only-release variant='" + kBuggy + "' sha1=" + std::string(40, 'a') +
                        ": token-lua seed=1"),
             Contains("the scenario's algorithm 'token-lua' is not that variant"));
}
