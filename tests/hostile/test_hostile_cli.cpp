// The program against hostile command lines: every one ends with a clear
// error (exit 2) or a bounded result, and no found failure is lost.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace {

struct Result {
  int status = -1;
  std::string out, err;
};

std::string temp_path(const std::string& name) {
  return "/tmp/locksim_hostile_cli_" + std::to_string(getpid()) + "_" + name;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `locksim ARGS` (a shell fragment), stdin from `input`, under a 20 s timeout.
Result run_locksim(const std::string& args, const std::string& input = "/dev/null") {
  const std::string err = temp_path("stderr");
  const std::string cmd = std::string("timeout 20 '") + LOCKSIM_BIN + "' " + args + " 2>'" + err + "' <" + input;
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = slurp(err);
  std::remove(err.c_str());
  return r;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

}  // namespace

TEST_CASE("Reproducers of issue 19 that crashed or hung now end with an error", "[hostile]") {
  const std::string script = temp_path("script.txt");
  std::ofstream(script)
      << "EVAL \"return string.find('aaaa', string.rep('a*', 100000))\" 0\n"
      << "EVAL \"return xpcall(function() while true do end end, function() while true do end end)\" 0\n"
      << "SET " << std::string(70, 'a') << " v\nKEYS *a*a*a*a*a*a*a*b\n";
  Result r = run_locksim("redis --fail-on-error", script);
  CHECK(r.status == 1);
  CHECK(r.out.find("pattern too complex") != std::string::npos);
  CHECK(r.out.find("BUSY Script exceeded the instruction budget") != std::string::npos);
  CHECK(r.out.find("(empty array)") != std::string::npos);
  std::remove(script.c_str());
}

TEST_CASE("A hostile Lua variant ends check and run with a variant-error, at its first run", "[hostile]") {
  const std::pair<const char*, const char*> bodies[] = {
      {"loop", "while true do end"},
      {"pcall-loop", "while true do pcall(function() while true do end end) end"},
      {"pattern-bomb", "return string.find('aaaa', string.rep('a*', 100000)) ~= nil"},
      {"pattern-slow", "while true do string.find(string.rep('a', 3000), '.-.-.-.-b') end"},
      {"rep-bomb", "local t = {} for i = 1, 100 do t[i] = string.rep('x', 2^24) end return true"},
      {"spin", "spawn(function() while true do sleep(0) end end) return true"},
  };
  for (const auto& [name, body] : bodies) {
    const std::string path = temp_path(std::string(name) + ".lua");
    std::ofstream(path) << "name = 'hostile-" << name << "'\nfunction acquire() " << body
                        << " end\nfunction release() return true end\n";
    const Result check = run_locksim("check hostile-" + std::string(name) + " --variant " + path + " --colour never");
    INFO(name << "\n" << check.out << check.err);
    CHECK(check.status == 2);
    CHECK(check.out.find("found: variant-error violated in run 0") != std::string::npos);
    // The drawing stops at the variant's error: the other runs would each spend the budget again.
    CHECK(check.out.find("\n1 run: ") != std::string::npos);
    const Result run = run_locksim("run hostile-" + std::string(name) + " --variant " + path + " --colour never");
    CHECK(run.status == 2);
    CHECK(run.out.find("variant-error") != std::string::npos);
    std::remove(path.c_str());
  }
}

TEST_CASE("Scenario words and flags share the limits, time overflow is refused naming the word", "[hostile]") {
  for (const std::string word :
       {"iterations=4294967295", "nested=4294967295", "horizon=2305843009s", "clients=64", "iterations=0"}) {
    Result r = run_locksim("replay 'set-nx-px " + word + "'");
    CHECK(r.status == 2);
    CHECK(r.err.find(word.substr(0, word.find('='))) != std::string::npos);
  }
  Result jump = run_locksim("replay 'set-nx-px clients=1 iterations=30 faults=[jump redis @100ms by -1800000000s]'");
  CHECK(jump.status == 2);
  CHECK(jump.err.find("faults") != std::string::npos);
  Result flag = run_locksim("run set-nx-px --iterations 1001");
  CHECK(flag.status == 2);
  CHECK(flag.err.find("--iterations: 1001 is out of range [1, 1000]") != std::string::npos);
  CHECK(run_locksim("run set-nx-px --horizon 2305843009s").status == 2);
  CHECK(run_locksim("run set-nx-px --faults 'jump redis @1s by +2305843009s; jump redis @2s by +2305843009s'").status ==
        2);
}

TEST_CASE("Every lease the validator accepts works in check as in run", "[hostile]") {
  for (const std::string algorithm : {"set-nx-px", "watchdog", "fenced", "redlock", "getset"}) {
    for (const std::string lease : {"1ms", "4ms", "20ms"}) {
      Result r = run_locksim("check " + algorithm + " --lease " + lease + " --runs 10 --no-shrink --colour never");
      INFO(algorithm << " --lease " << lease << ": " << r.err);
      CHECK((r.status == 0 || r.status == 1));
    }
  }
}

TEST_CASE("Outputs are validated before the work starts", "[hostile]") {
  const std::string fifo = temp_path("fifo");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  Result r = run_locksim("run set-nx-px --svg '" + fifo + "'");
  CHECK(r.status == 2);
  CHECK(r.err.find("not a regular file") != std::string::npos);
  std::remove(fifo.c_str());

  const std::string json = temp_path("out.json");
  r = run_locksim("replay 'set-nx-px clients=1' --trace-json '" + json + "' --svg /proc/x");
  CHECK(r.status == 2);
  CHECK(!exists(json));  // nothing left behind

  r = run_locksim("run set-nx-px --trace-json '" + json + "' --svg '" + json + "'");
  CHECK(r.status == 2);
  CHECK(r.err.find("also given to") != std::string::npos);

  r = run_locksim("check set-nx-px --runs 5 --save /dev/full");
  CHECK(r.status == 2);
  CHECK(r.err.find("--save") != std::string::npos);
  CHECK(r.out.empty());  // refused before exploring
}

TEST_CASE("check's --save appends after a last line without newline, and the file replays", "[hostile]") {
  const std::string file = temp_path("regressions.txt");
  const std::string first = "violates mutual-exclusion: set-nx-px seed=2 clients=2 iterations=1 slow=A:0:1.02s";
  std::ofstream(file) << first;
  Result r = run_locksim("check set-nx-px --runs 200 --colour never --save '" + file + "'");
  REQUIRE(r.status == 1);
  const std::string text = slurp(file);
  CHECK(text.starts_with(first + "\nviolates "));
  CHECK(text.ends_with("\n"));
  CHECK(r.out.find("saved to") > r.out.find("scenario:"));  // the counterexample first
  std::remove(file.c_str());
}

TEST_CASE("Bad values get short, clean messages", "[hostile]") {
  Result r = run_locksim("run set-nx-px --seed 99999999999999999999999");
  CHECK(r.status == 2);
  CHECK(r.err.find("0 to 18446744073709551615") != std::string::npos);
  r = run_locksim("run set-nx-px --seed abc");
  CHECK(r.status == 2);
  CHECK(r.err.size() < 300);
  r = run_locksim("replay 'set-nx-px iterations=" + std::string(100'000, '9') + "'");
  CHECK(r.status == 2);
  CHECK(r.err.size() < 500);
  CHECK(r.err.find("bytes)") != std::string::npos);
  r = run_locksim("replay \"$(printf 'set-nx-px seed=\\033red')\"");
  CHECK(r.status == 2);
  CHECK(r.err.find('\x1b') == std::string::npos);
  CHECK(r.err.find("\\x1b") != std::string::npos);
  CHECK(run_locksim("run set-nx-px --faults ''").status == 2);
  CHECK(run_locksim("check set-nx-px --faults ''").status == 2);
  r = run_locksim("catalogue --only F01,F01");
  CHECK(r.status == 2);
  CHECK(r.err.find("named twice") != std::string::npos);
}

TEST_CASE("Findings of the hostile campaign: an empty --only, merge of /dev/zero, a pcall loop", "[hostile]") {
  Result r = run_locksim("catalogue --only ''");
  CHECK(r.status == 2);
  CHECK(r.err.find("no entry named") != std::string::npos);
  r = run_locksim("merge /dev/zero");
  CHECK(r.status == 2);
  CHECK(r.err.find("/dev/zero") != std::string::npos);
  const std::string script = temp_path("pcall.txt");
  std::ofstream(script) << "EVAL \"while true do redis.pcall('NOPE') end\" 0\n";
  r = run_locksim("redis", script);
  CHECK(r.status == 0);
  CHECK(r.out.find("BUSY Script exceeded the instruction budget") != std::string::npos);
  std::remove(script.c_str());
}

// Runs `run` and `check` of a variant NAME (named by its file, NAME.lua) with this
// text; each must exit 2 and say `expected`.
void check_variant_refused(const std::string& name, const std::string& text, const std::string& expected) {
  const std::string dir = temp_path(name);
  mkdir(dir.c_str(), 0700);
  const std::string variant = dir + "/" + name + ".lua";
  std::ofstream(variant) << text;
  for (const std::string command : {"run", "check"}) {
    const Result r = run_locksim(command + " " + name + " --variant '" + variant + "'");
    CHECK(r.status == 2);
    CHECK((r.out + r.err).find(expected) != std::string::npos);
  }
  std::remove(variant.c_str());
  rmdir(dir.c_str());
}

TEST_CASE("A variant task that spawns itself twice ends with a variant error, not a hang", "[hostile]") {
  check_variant_refused("spawner",
                        "local function f() spawn(f) spawn(f) end\n"
                        "function acquire() f() return true end\nfunction release() return true end\n",
                        "spawn: more than");
}

TEST_CASE("A variant that grows a string by concatenation pays for the bytes it copies", "[hostile]") {
  check_variant_refused("concat",
                        "function acquire() local s = '' for i=1,100000 do s = s .. token() end return true end\n"
                        "function release() return true end\n",
                        "the variant ran more than 2000000 Lua instructions in one call of acquire");
}

TEST_CASE("check --list-runs refuses more runs than it may list", "[hostile]") {
  const Result r = run_locksim("check set-nx-px --list-runs --runs 100000000");
  CHECK(r.status == 2);
  CHECK(r.err.find("--list-runs prints one line per run: at most 10000000 (this shard has 100000000)") !=
        std::string::npos);
}
