// The program against hostile command lines: every one ends with a clear
// error (exit 2) or a bounded result, and no found failure is lost.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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
      // Redlock's lease must outlast a round to the masters: with 1ms or 4ms it never
      // acquires, which check now says (exit 2) instead of passing (issue 33).
      const bool never_acquired = r.status == 2 && r.err.find("the lock was never acquired") != std::string::npos;
      CHECK((r.status == 0 || r.status == 1 || (algorithm == "redlock" && never_acquired)));
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

// ---- issue 33: merge, variant errors, checks that exercised nothing, outputs ----

namespace {

// A valid shard of a two-shard sweep as 'check --json' writes it, with `edit`
// (a Python-free textual replacement of the first occurrence) applied.
std::string shard_json(uint64_t index, const std::string& failure_extra = "", const std::string& top_extra = "") {
  return "{\"algorithm\": \"set-nx-px\", \"seed\": 1, \"runs\": 10, \"budget\": 20, \"shard\": [" +
         std::to_string(index) +
         ", 2], \"deployment\": \"one Redis\", \"assumptions\": [], \"failures\": [\n"
         "  {\"property\": \"mutual-exclusion\", \"cause\": \"lease-expired-slow\", \"catalogue\": \"F10\", "
         "\"inherent\": false, \"runs\": 3, \"first_run\": " +
         std::to_string(index) +
         ", \"needs\": [\"slow-work\"], \"clients\": 2, \"fault\": \"\", \"why\": \"w\", \"replay\": \"r\"" +
         failure_extra + "}\n]" + top_extra + "}\n";
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string replace_first(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// `locksim merge` of shard 0 edited as given, with the untouched shard 1.
Result merge_edited(const std::string& from, const std::string& to) {
  const std::string s0 = write_temp("s0.json", replace_first(shard_json(0), from, to));
  const std::string s1 = write_temp("s1.json", shard_json(1));
  Result r = run_locksim("merge '" + s0 + "' '" + s1 + "'");
  std::remove(s0.c_str());
  std::remove(s1.c_str());
  return r;
}

}  // namespace

TEST_CASE("merge of two well-formed shards adds their counts", "[hostile]") {
  const Result r = merge_edited("\"seed\": 1", "\"seed\": 1");
  CHECK(r.status == 1);
  CHECK(r.out.find("\"runs\": 20") != std::string::npos);
  CHECK(r.out.find("\"runs\": 6, \"first_run\": 0") != std::string::npos);
}

TEST_CASE("merge refuses a shard count it would allocate by, at once", "[hostile]") {
  for (const std::string count : {"100000000", "4000000000", "18446744073709551615"}) {
    const std::string s0 = write_temp("big.json", replace_first(shard_json(0), "[0, 2]", "[0, " + count + "]"));
    const Result r = run_locksim("merge '" + s0 + "'");
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find("claims " + count + " shards") != std::string::npos);
    std::remove(s0.c_str());
  }
  // Under the limit, a count larger than the files given is a missing shard, found without a table of that size.
  const std::string s0 = write_temp("many.json", replace_first(shard_json(0), "[0, 2]", "[0, 900000]"));
  const Result r = run_locksim("merge '" + s0 + "'");
  CHECK(r.status == 2);
  CHECK(r.err.find("shard 1/900000 is missing") != std::string::npos);
  std::remove(s0.c_str());
}

TEST_CASE("merge checks every field's type before using it", "[hostile]") {
  const std::pair<std::pair<std::string, std::string>, std::string> cases[] = {
      {{"\"failures\": [\n  {", "\"failures\": [1, {"}, "failure 1 is not a JSON object"},
      {{"\"inherent\": false, ", ""}, "has no \"inherent\""},
      {{"\"first_run\": 0, ", ""}, "has no \"first_run\""},
      {{"\"property\": \"mutual-exclusion\"", "\"property\": 7"}, "\"property\" must be a string"},
      {{"\"runs\": 3", "\"runs\": -3"}, "\"runs\" must be an integer from 0 to 2^64-1"},
      {{"\"shard\": [0, 2]", "\"shard\": [2, 2]"}, "\"shard\" must be [index, count] with index < count"},
      {{"\"seed\": 1", "\"seed\": \"1\""}, "\"seed\" must be an integer"},
      {{"\"assumptions\": []", "\"assumptions\": [1]"}, "\"assumptions\" must be an array of strings"},
  };
  for (const auto& [edit, expected] : cases) {
    const Result r = merge_edited(edit.first, edit.second);
    INFO(edit.second << ": " << r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find(expected) != std::string::npos);
    CHECK(r.err.find("internal error") == std::string::npos);
  }
}

TEST_CASE("merge refuses deep nesting and floods of keys as it parses", "[hostile]") {
  const std::string deep = std::string(1'000'000, '[') + std::string(1'000'000, ']');
  Result r = merge_edited("\"deployment\": \"one Redis\"", "\"deployment\": " + deep);
  CHECK(r.status == 2);
  CHECK(r.err.find("nested deeper than") != std::string::npos);
  std::string keys;
  for (int i = 0; i < 100'000; ++i) keys += ", \"extra" + std::to_string(i) + "\": 0";
  r = merge_edited("\"seed\": 1", "\"seed\": 1" + keys);
  CHECK(r.status == 2);
  CHECK(r.err.find("more than 256 keys") != std::string::npos);
  // A few fields a newer check adds pass through.
  r = merge_edited("\"seed\": 1", "\"seed\": 1, \"notes\": {\"a\": [1, 2]}");
  CHECK(r.status == 1);
  CHECK(r.out.find("\"notes\": {\"a\": [1, 2]}") != std::string::npos);
}

TEST_CASE("merge refuses counts that add up past 2^64-1, and partial inventories", "[hostile]") {
  const std::string max = "18446744073709551615";
  const std::string s0 = write_temp("o0.json", replace_first(shard_json(0), "\"runs\": 10", "\"runs\": " + max));
  const std::string s1 = write_temp("o1.json", replace_first(shard_json(1), "\"runs\": 10", "\"runs\": " + max));
  Result r = run_locksim("merge '" + s0 + "' '" + s1 + "'");
  CHECK(r.status == 2);
  CHECK(r.err.find("add up past 2^64-1") != std::string::npos);
  std::remove(s0.c_str());
  std::remove(s1.c_str());
  r = merge_edited("\"runs\": 3", "\"runs\": " + max);
  CHECK(r.status == 2);
  CHECK(r.err.find("add up past 2^64-1") != std::string::npos);
  const std::string p0 = write_temp("p0.json", shard_json(0, "", ", \"partial\": true"));
  const std::string p1 = write_temp("p1.json", shard_json(1));
  r = run_locksim("merge '" + p0 + "' '" + p1 + "'");
  CHECK(r.status == 2);
  CHECK(r.err.find("partial inventory") != std::string::npos);
  std::remove(p0.c_str());
  std::remove(p1.c_str());
}

TEST_CASE("A variant's error object that cannot be read is a variant error naming its line, not a panic",
          "[hostile]") {
  check_variant_refused("index-errors",
                        "function acquire()\n  error(setmetatable({}, {__index = function() error('no') end}))\nend\n"
                        "function release() return true end\n",
                        "index-errors.lua:2: acquire raised an error that is not a string (table value)");
  check_variant_refused("index-loops",
                        "function acquire()\n  error(setmetatable({}, {__index = function() while true do end end}))\n"
                        "end\nfunction release() return true end\n",
                        "raised an error that is not a string (table value)");
  check_variant_refused("tostring-errors",
                        "function acquire()\n  error(setmetatable({}, {__tostring = function() error('no') end}))\n"
                        "end\nfunction release() return true end\n",
                        "raised an error that is not a string (table value)");
}

TEST_CASE("check of a lock that never acquires, or of a property with nothing to check, is not a pass",
          "[hostile]") {
  const std::string never = write_temp("never.lua", "name = 'never'\nfunction acquire() return false end\nfunction release() return true end\n");
  const Result r = run_locksim("check never --runs 20 --variant '" + never + "'");
  CHECK(r.status == 2);
  CHECK(r.out.find("20 runs, no violation") != std::string::npos);
  CHECK(r.err.find("the lock was never acquired in 20 runs") != std::string::npos);
  std::remove(never.c_str());
  const Result fenced = run_locksim("check set-nx-px --faults none --runs 10 --property reentrancy");
  CHECK(fenced.status == 2);
  CHECK(fenced.err.find("reentrancy had nothing to check") != std::string::npos);
  CHECK(run_locksim("check set-nx-px --faults none --runs 10 --property mutual-exclusion").status == 0);
}

namespace {

// Runs a shell command line (stderr captured apart), as run_locksim does.
Result run_shell(const std::string& command) {
  const std::string err = temp_path("stderr");
  const std::string cmd = command + " 2>'" + err + "' </dev/null";
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

std::string bin() { return std::string("'") + LOCKSIM_BIN + "'"; }

// A printed command ("locksim replay ...") run with the binary under test.
std::string with_binary(const std::string& command) {
  const std::string name = "locksim ";
  return command.starts_with(name) ? bin() + " " + command.substr(name.size()) : command;
}

// The entries of a directory, but . and ..
std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  const Result r = run_shell("ls -A '" + dir + "'");
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) names.push_back(line);
  return names;
}

}  // namespace

TEST_CASE("save: --save writes through a symbolic link and keeps the file's mode", "[hostile]") {
  const std::string target = temp_path("target.txt"), link = temp_path("link.txt");
  std::ofstream(target) << "# saved counterexamples\n";
  REQUIRE(chmod(target.c_str(), 0600) == 0);
  REQUIRE(symlink(target.c_str(), link.c_str()) == 0);
  const Result r = run_locksim("check set-nx-px --runs 200 --colour never --save '" + link + "'");
  REQUIRE(r.status == 1);
  struct stat st {};
  REQUIRE(lstat(link.c_str(), &st) == 0);
  CHECK(S_ISLNK(st.st_mode));
  REQUIRE(stat(target.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(slurp(target).find("\nviolates ") != std::string::npos);
  std::remove(link.c_str());
  std::remove(target.c_str());
}

TEST_CASE("save: --save past the file-size limit is an error that keeps the counterexample and no temporary",
          "[hostile]") {
  const std::string dir = temp_path("xfsz");
  REQUIRE(mkdir(dir.c_str(), 0700) == 0);
  const std::string file = dir + "/regressions.txt";
  std::ofstream(file) << std::string(3000, '#') << "\n";
  // ulimit -f counts 512-byte blocks in dash: the file may not grow past 1 KB.
  const Result r = run_shell("ulimit -f 2; exec " + bin() + " check set-nx-px --runs 200 --colour never --save '" +
                             file + "'");
  CHECK(r.status == 2);
  CHECK(r.out.find("scenario:") != std::string::npos);  // the counterexample, printed before the error
  CHECK(r.err.find("--save") != std::string::npos);
  CHECK(entries(dir) == std::vector<std::string>{"regressions.txt"});
  std::remove(file.c_str());
  rmdir(dir.c_str());
}

TEST_CASE("Keys with a newline, a quote or terminal escapes save, replay and print safely", "[hostile]") {
  for (const std::string key : {"a\nb", "it's", "\x1b[2Jk\x07\x1b[31m"}) {
    INFO(key);
    const std::string file = temp_path("keys.txt");
    std::remove(file.c_str());
    REQUIRE(setenv("LOCKSIM_TEST_KEY", key.c_str(), 1) == 0);
    const Result r = run_shell(bin() + " check set-nx-px --runs 200 --colour never --key \"$LOCKSIM_TEST_KEY\" --save '" +
                               file + "'");
    REQUIRE(r.status == 1);
    CHECK(r.out.find('\x1b') == std::string::npos);
    CHECK(r.out.find('\x07') == std::string::npos);
    std::istringstream saved(slurp(file));
    int lines = 0;
    for (std::string line; std::getline(saved, line); ++lines) CHECK(line.starts_with("violates "));
    CHECK(lines >= 1);
    // The printed replay command is valid shell and reproduces the violation.
    const size_t at = r.out.find("replay:     ");
    REQUIRE(at != std::string::npos);
    const size_t from = at + std::string("replay:     ").size();
    const std::string command = r.out.substr(from, r.out.find('\n', from) - from);
    const Result replayed = run_shell(with_binary(command) + " --colour never");
    CHECK(replayed.status == 0);
    const size_t hash = r.out.find("trace hash: ");  // the first counterexample's, as its replay line
    REQUIRE(hash != std::string::npos);
    CHECK(replayed.out.find(r.out.substr(hash, r.out.find('\n', hash) - hash)) != std::string::npos);
    std::remove(file.c_str());
    // run's replay command too (ANSI-C quoting for control characters: bash).
    const Result run = run_shell(bin() + " run set-nx-px --colour never --key \"$LOCKSIM_TEST_KEY\"");
    CHECK(run.out.find('\x1b') == std::string::npos);
    const size_t line = run.out.find("replay: ");
    REQUIRE(line != std::string::npos);
    const size_t start = line + std::string("replay: ").size();
    const std::string again =
        write_temp("again.sh", with_binary(run.out.substr(start, run.out.find('\n', start) - start)) + " --colour never\n");
    const Result rerun = run_shell("bash '" + again + "'");
    CHECK(rerun.status == run.status);
    CHECK(rerun.out == run.out);
    std::remove(again.c_str());
  }
  unsetenv("LOCKSIM_TEST_KEY");
}

TEST_CASE("replay --real with a binary that is no redis-server says so, and points to no deleted log", "[hostile]") {
  const Result r = run_locksim("replay --real --redis-server /bin/true 'set-nx-px clients=1'");
  CHECK(r.status == 2);
  CHECK(r.err.find("/bin/true exited with status 0 at start; it wrote no log") != std::string::npos);
}

TEST_CASE("Ctrl-C during check ends it with the inventory so far, marked partial", "[hostile]") {
  const Result r = run_shell("timeout --preserve-status -k 30 -s INT 4 " + bin() +
                             " check set-nx-px --time 60s --runs 100000000 --jobs 1 --colour never");
  CHECK((r.status == 1 || r.status == 130));
  CHECK(r.out.find("interrupted: a partial inventory, of ") != std::string::npos);
  CHECK(r.err.find("interrupted") != std::string::npos);
}

TEST_CASE("The console and a variant's simulated Redis load the guarded Lua libraries (CVE-2024-31449)",
          "[hostile]") {
  const std::string script =
      write_temp("tohex.txt", "EVAL \"return bit.tohex(65535, -2147483648)\" 0\n"
                              "EVAL \"cjson.encode_sparse_array(true, 0) return cjson.encode({[2^31-1] = 1})\" 0\n");
  Result r = run_locksim("redis", script);
  CHECK(r.status == 0);
  CHECK(r.out.find("\"0000FFFF\"") != std::string::npos);
  CHECK(r.out.find("OOM") != std::string::npos);
  std::remove(script.c_str());
  const std::string variant =
      write_temp("tohex.lua",
                 "name = 'tohex'\n"
                 "function acquire()\n"
                 "  local r = call('EVAL', 'return bit.tohex(65535, -2147483648)', 0)\n"
                 "  if r ~= '0000FFFF' then error('tohex answered ' .. tostring(r)) end\n"
                 "  return call('SET', param('key'), 'x', 'NX', 'PX', param('lease')) ~= false\n"
                 "end\n"
                 "function release() return call('DEL', param('key')) == 1 end\n");
  r = run_locksim("run tohex --variant '" + variant + "' --colour never");
  INFO(r.out << r.err);
  CHECK(r.status == 0);
  std::remove(variant.c_str());
}
