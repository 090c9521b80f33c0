// Sweeps split over machines: --shard auto reads a batch engine's variables,
// and `locksim merge` turns the shards' JSON into the inventory one machine
// would have printed (tested through GNU parallel, as docs/scale-out.md shows).
#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace {

struct Ran {
  int status = -1;
  std::string out;
};

// A shell command line; standard error joins standard output.
Ran shell(const std::string& command) {
  Ran r;
  FILE* p = popen((command + " 2>&1 </dev/null").c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string bin() { return "'" LOCKSIM_BIN "'"; }  // one literal: g++ 12 warns of std::string + a long literal

struct TempDir {
  std::filesystem::path path = std::filesystem::temp_directory_path() / ("locksim_scale_" + std::to_string(getpid()));
  TempDir() { std::filesystem::create_directories(path); }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

const std::string kSweep = " check set-nx-px --runs 240 --seed 5 --json";

}  // namespace

TEST_CASE("scale: a 4-shard sweep through GNU parallel merges into the single-machine inventory", "[scale]") {
  TempDir dir;
  Ran whole = shell(bin() + kSweep);
  REQUIRE(whole.status == 1);  // set-nx-px fails: the inventory has failures to merge
  Ran sharded = shell("parallel --will-cite -j 2 " + bin() + kSweep + " --shard auto/4 '>' " +
                      dir.file("shard{}.json") + " ::: 1 2 3 4");
  INFO(sharded.out);
  REQUIRE(sharded.status == 4);  // GNU parallel: how many jobs failed (exit 1: each shard found failures)
  Ran merged = shell(bin() + " merge " + dir.file("shard3.json") + " " + dir.file("shard1.json") + " " +
                     dir.file("shard4.json") + " " + dir.file("shard2.json"));
  REQUIRE(merged.status == 1);
  REQUIRE(merged.out == whole.out);
}

TEST_CASE("scale: --shard auto reads Slurm, Kubernetes, GNU parallel and LOCKSIM_SHARD_* variables", "[scale]") {
  const std::string list = " check set-nx-px --runs 10 --list-runs --shard ";
  CHECK(shell("SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=3 " + bin() + list + "auto").out == "1\n4\n7\n");
  CHECK(shell("SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_COUNT=3 " + bin() + list + "auto").out ==
        "2\n5\n8\n");
  CHECK(shell("JOB_COMPLETION_INDEX=0 LOCKSIM_SHARD_COUNT=4 " + bin() + list + "auto").out == "0\n4\n8\n");
  CHECK(shell("JOB_COMPLETION_INDEX=2 " + bin() + list + "auto/5").out == "2\n7\n");
  CHECK(shell("PARALLEL_SEQ=2 " + bin() + list + "auto/2").out == "1\n3\n5\n7\n9\n");
  CHECK(shell("LOCKSIM_SHARD_INDEX=0 LOCKSIM_SHARD_COUNT=5 " + bin() + list + "auto").out == "0\n5\n");
}

TEST_CASE("scale: --shard auto without an engine, or with a bad one, is a usage error", "[scale]") {
  const std::string check = " check set-nx-px --runs 10 --list-runs --shard ";
  Ran none = shell("env -u SLURM_ARRAY_TASK_ID -u JOB_COMPLETION_INDEX -u PARALLEL_SEQ -u LOCKSIM_SHARD_INDEX " +
                   bin() + check + "auto");
  CHECK(none.status == 2);
  CHECK(none.out.find("no batch engine found") != std::string::npos);
  CHECK(shell("JOB_COMPLETION_INDEX=0 " + bin() + check + "auto").status == 2);  // no count
  CHECK(shell("PARALLEL_SEQ=5 " + bin() + check + "auto/4").status == 2);        // out of range
  CHECK(shell("SLURM_ARRAY_TASK_ID=x SLURM_ARRAY_TASK_COUNT=2 " + bin() + check + "auto").status == 2);
  CHECK(shell(bin() + check + "auto/0").status == 2);
}

TEST_CASE("scale: merge refuses what is not the complete set of shards of one sweep", "[scale]") {
  TempDir dir;
  for (int i = 0; i < 2; ++i)
    shell(bin() + " check set-nx-px --runs 20 --seed 1 --json --shard " + std::to_string(i) + "/2 > " +
          dir.file("s" + std::to_string(i) + ".json"));
  shell(bin() + " check set-nx-px --runs 20 --seed 2 --json --shard 1/2 > " + dir.file("other.json"));
  std::ofstream(dir.file("garbage.json")) << "{not json";
  Ran missing = shell(bin() + " merge " + dir.file("s0.json"));
  CHECK(missing.status == 2);
  CHECK(missing.out.find("shard 1/2 is missing") != std::string::npos);
  CHECK(shell(bin() + " merge " + dir.file("s0.json") + " " + dir.file("s0.json")).status == 2);
  Ran mixed = shell(bin() + " merge " + dir.file("s0.json") + " " + dir.file("other.json"));
  CHECK(mixed.status == 2);
  CHECK(mixed.out.find("not shards of one sweep") != std::string::npos);
  CHECK(shell(bin() + " merge " + dir.file("garbage.json")).status == 2);
  CHECK(shell(bin() + " merge " + dir.file("nonexistent.json")).status == 2);
  Ran both = shell(bin() + " merge " + dir.file("s1.json") + " " + dir.file("s0.json"));
  CHECK((both.status == 0 || both.status == 1));
}

TEST_CASE("scale: a failure the targeted inside search moved merges from shards as check prints it", "[scale]") {
  // The first seed on which a short check of set-nx-px moves a failure inside by the search
  // (props/inside_search.hpp): that search depends on the seed and the algorithm alone, so
  // every shard that meets the failure only outside finds it the same way.
  TempDir dir;
  std::string sweep, whole;
  for (int seed = 1; seed <= 12 && sweep.empty(); ++seed) {
    const std::string s = " check set-nx-px --runs 60 --json --seed " + std::to_string(seed);
    Ran r = shell(bin() + s);
    if (r.out.find("\"moved_by\": \"search\"") == std::string::npos) continue;
    sweep = s;
    whole = r.out;
  }
  REQUIRE_FALSE(sweep.empty());
  for (int count : {2, 3}) {
    std::string files;
    for (int i = 0; i < count; ++i) {
      const std::string file = dir.file(std::to_string(count) + "." + std::to_string(i) + ".json");
      shell(bin() + sweep + " --shard " + std::to_string(i) + "/" + std::to_string(count) + " > " + file);
      files = " " + file + files;  // in reverse: merge takes them in any order
    }
    Ran merged = shell(bin() + " merge" + files);
    INFO(sweep << " in " << count << " shards");
    CHECK(merged.out == whole);
  }
  // The text says how it was moved.
  Ran text = shell(bin() + sweep.substr(0, sweep.find(" --json")) + sweep.substr(sweep.find(" --json") + 7));
  CHECK(text.out.find("found inside them by a targeted search") != std::string::npos);
}

TEST_CASE("scale: failures a cause proof re-labelled onto one bucket fold in merge as check folds them", "[scale]") {
  // A shard leaves re-labelled failures apart (which way a bucket goes is its first run's):
  // find a sweep where one shard holds two of one property and cause, then merge must fold
  // them, each bucket by the cause its classifier named first, as one machine does.
  TempDir dir;
  std::string sweep, files;
  for (int seed = 1; seed <= 8 && sweep.empty(); ++seed) {
    const std::string s = " check token-lua --runs 600 --json --seed " + std::to_string(seed);
    std::string names;
    bool twice = false;
    for (int i = 0; i < 2; ++i) {
      const std::string file = dir.file(std::to_string(seed) + "." + std::to_string(i) + ".json");
      shell(bin() + s + " --shard " + std::to_string(i) + "/2 > " + file);
      names = " " + file + names;
      std::ifstream in(file);
      const nlohmann::json shard = nlohmann::json::parse(in);
      std::set<std::pair<std::string, std::string>> keys;
      for (const auto& f : shard["failures"])
        twice = twice || !keys.emplace(f["property"].get<std::string>(), f["cause"].get<std::string>()).second;
    }
    if (!twice) continue;
    sweep = s;
    files = names;
  }
  REQUIRE_FALSE(sweep.empty());
  INFO(sweep);
  const Ran whole = shell(bin() + sweep);
  const Ran merged = shell(bin() + " merge" + files);
  CHECK(merged.status == whole.status);
  CHECK(merged.out == whole.out);
}
