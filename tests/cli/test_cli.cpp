// The locksim program as a user meets it: run as a subprocess, its output,
// its files and its exit status.
#include <catch2/catch.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "checkers.hpp"

namespace {

struct Result {
  int status = -1;
  std::string out, err;
};

std::string temp_path(const std::string& name) {
  return "/tmp/locksim_test_cli_" + std::to_string(getpid()) + "_" + name;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `locksim ARGS` (a shell fragment) with NO_COLOR unset and stdout a pipe.
Result run_locksim(const std::string& args) {
  std::string err = temp_path("stderr");
  std::string cmd = std::string("unset NO_COLOR; '") + LOCKSIM_BIN + "' " + args + " 2>'" + err + "' </dev/null";
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = slurp(err);
  std::remove(err.c_str());
  return r;
}

const char* kIds[] = {"setnx-del", "setnx-expire", "del-setnx", "getset", "set-nx-px", "token-check-del",
                      "token-lua", "watchdog", "reentrant", "watch-multi", "fenced", "fair"};

const std::string kExample = "run set-nx-px --clients 3 --slow-work A:0:1500ms --lease 1s --seed 1";

}  // namespace

TEST_CASE("list shows the twelve algorithms in evolution order") {
  Result r = run_locksim("list");
  REQUIRE(r.status == 0);
  size_t pos = 0;
  for (const char* id : kIds) {
    size_t at = r.out.find(std::string(". ") + id + "\n", pos);
    INFO(id);
    REQUIRE(at != std::string::npos);
    pos = at;
  }
  CHECK(r.out.find("--lease") != std::string::npos);
  CHECK(r.out.find("\x1b[") == std::string::npos);  // a pipe: no colour
}

TEST_CASE("run of the set-nx-px example shows the overlap, explained") {
  Result r = run_locksim(kExample);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("mutual-exclusion: A and ") != std::string::npos);
  CHECK(r.out.find("lease") != std::string::npos);
  CHECK(r.out.find("^^^") != std::string::npos);
  CHECK(r.out.find("replay: locksim run set-nx-px") != std::string::npos);
  CHECK(r.out.find("\x1b[") == std::string::npos);
  // No line wider than 80 columns in the timeline.
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("replay:", 0) != 0) CHECK(line.size() <= 80);
}

TEST_CASE("colour only when asked or on a terminal") {
  Result always = run_locksim(kExample + " --colour always");
  REQUIRE(always.status == 0);
  CHECK(always.out.find("\x1b[") != std::string::npos);
  Result never = run_locksim(kExample + " --colour never");
  CHECK(never.out.find("\x1b[") == std::string::npos);
}

TEST_CASE("the same seed twice gives the same output") {
  Result a = run_locksim(kExample);
  Result b = run_locksim(kExample);
  REQUIRE(a.status == 0);
  CHECK(a.out == b.out);
  Result c = run_locksim("run token-lua --seed 7 --faults 'pause A @300ms for 1.5s'");
  Result d = run_locksim("run token-lua --seed 7 --faults 'pause A @300ms for 1.5s'");
  CHECK(c.out == d.out);
}

TEST_CASE("the replay command printed by run reproduces the run") {
  Result a = run_locksim(kExample);
  size_t at = a.out.find("replay: locksim ");
  REQUIRE(at != std::string::npos);
  std::string args = a.out.substr(at + 16, a.out.find('\n', at) - at - 16);
  Result b = run_locksim(args);
  REQUIRE(b.status == 0);
  CHECK(a.out == b.out);
}

TEST_CASE("run --trace-json writes JSON with a track per client, server, the key and the violation") {
  std::string path = temp_path("trace.json");
  Result r = run_locksim(kExample + " --trace-json '" + path + "'");
  REQUIRE(r.status == 0);
  std::string json = slurp(path);
  std::remove(path.c_str());
  locksim::test::JsonChecker checker(json);
  INFO(checker.error());
  REQUIRE(checker.valid());
  for (const char* track : {"\"client A\"", "\"client B\"", "\"client C\"", "\"redis\"", "\"key lock\"", "\"violation\""}) {
    INFO(track);
    CHECK(json.find(std::string("\"name\":") + track) != std::string::npos);
  }
  CHECK(json.find("\"ph\":\"X\"") != std::string::npos);
  CHECK(json.find("\"ph\":\"i\"") != std::string::npos);
  CHECK(json.find("\"name\":\"mutual-exclusion\"") != std::string::npos);
  CHECK(json.find("SET lock 1 NX PX 1000") != std::string::npos);
}

TEST_CASE("run --svg writes well-formed XML with the violation drawn") {
  std::string path = temp_path("timeline.svg");
  Result r = run_locksim(kExample + " --svg '" + path + "'");
  REQUIRE(r.status == 0);
  std::string svg = slurp(path);
  std::remove(path.c_str());
  INFO(locksim::test::xml_problem(svg));
  REQUIRE(locksim::test::xml_problem(svg).empty());
  CHECK(svg.find("<svg") != std::string::npos);
  CHECK(svg.find("class=\"violation\"") != std::string::npos);
  CHECK(svg.find("client A") != std::string::npos);
}

TEST_CASE("bad input: one clear message, exit status 2") {
  struct Case {
    std::string args, says;
  };
  std::string unwritable = "/nonexistent-dir-locksim/x.svg";
  const Case cases[] = {
      {"run no-such-lock", "unknown algorithm 'no-such-lock'"},
      {"run set-nx-px --no-such-option", "--no-such-option"},
      {"frobnicate", "frobnicate"},
      {"", "subcommand"},
      {"run set-nx-px --faults 'explode A @1s'", "unknown fault kind 'explode'"},
      {"run set-nx-px --faults 'crash A'", "missing time"},
      {"run set-nx-px --faults 'crash Q @1s'", "Q"},
      {"run set-nx-px --clients abc", "--clients"},
      {"run set-nx-px --clients 0", "--clients"},
      {"run set-nx-px --seed -3", "--seed"},
      {"run set-nx-px --lease 5", "missing unit"},
      {"run set-nx-px --lease -1s", "negative"},
      {"run set-nx-px --retry soon", "--retry"},
      {"run set-nx-px --slow-work A:0", "CLIENT:ITERATION:DURATION"},
      {"run set-nx-px --clients 2 --slow-work C:0:1s", "no client 'C'"},
      {"run set-nx-px --call-fault A:x:crash", "--call-fault"},
      {"run set-nx-px --svg " + unwritable, "cannot write '" + unwritable + "'"},
      {"run set-nx-px --width 10", "--width"},
      {"check set-nx-px --shard 3/2", "--shard"},
      {"check nope", "unknown algorithm"},
      {"tour --only nope", "unknown algorithm"},
      {"run set-nx-px --colour purple", "--colour"},
  };
  for (const auto& c : cases) {
    INFO("locksim " << c.args);
    Result r = run_locksim(c.args);
    INFO("stderr: " << r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find(c.says) != std::string::npos);
    CHECK(r.err.find("error") != std::string::npos);
    CHECK(r.out.empty());
  }
}

TEST_CASE("help on every command, and the version") {
  for (const char* cmd : {"", "tour", "list", "run", "check", "catalogue", "replay", "redis"}) {
    INFO(cmd);
    Result r = run_locksim(std::string(cmd) + " --help");
    CHECK(r.status == 0);
    CHECK(r.out.find("Usage") != std::string::npos);
  }
  Result run = run_locksim("run --help");
  CHECK(run.out.find("--lease") != std::string::npos);
  CHECK(run.out.find("--trace-json") != std::string::npos);
  CHECK(run.out.find("--explicit-lease") != std::string::npos);
  Result v = run_locksim("--version");
  CHECK(v.status == 0);
  CHECK(v.out.find("locksim 0.") != std::string::npos);
}

TEST_CASE("the tour walks the evolution to the end, quickly and at 80 columns") {
  Result r = run_locksim("tour");
  REQUIRE(r.status == 0);
  size_t pos = 0;
  for (const char* id : kIds) {
    INFO(id);
    size_t at = r.out.find(std::string("  ") + id + " ==", pos);
    REQUIRE(at != std::string::npos);
    pos = at;
  }
  CHECK(r.out.find("== summary") != std::string::npos);
  CHECK(r.out.find("not shown") == std::string::npos);  // every failure appears
  CHECK(r.out.find("VIOLATED") == std::string::npos);   // and every survivor survives
  CHECK(r.out.find("\x1b[") == std::string::npos);
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("Replay:", 0) != 0) CHECK(line.size() <= 80);
}

TEST_CASE("commands that wait for the explorer say so with status 3") {
  Result r = run_locksim("catalogue");
  CHECK((r.status == 0 || r.status == 1 || r.status == 3));
}
