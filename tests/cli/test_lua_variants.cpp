// Lua variants through the program: `check NAME --variant FILE` on every
// shipped example with its documented result, each buggy variant's failure
// found within 5,000 runs, the replay line working verbatim, and the errors.
//
// Until `check` reports an inventory (the variant's own failures apart from
// the deployment's), each case names the fault kinds and the property that
// tell the bug apart; with the inventory these become the default `check`
// and "a failure of the variant's own".
#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace {

struct Outcome {
  int status = -1;
  std::string out, err;
};

std::string temp_file(const std::string& name) {
  return "/tmp/locksim_test_lua_" + std::to_string(getpid()) + "_" + name;
}

Outcome locksim(const std::string& args) {
  const std::string err = temp_file("stderr");
  const std::string cmd =
      std::string("cd '" LOCKSIM_EXAMPLES_DIR "/..' && '") + LOCKSIM_BIN + "' " + args + " 2>'" + err + "' </dev/null";
  Outcome r;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  const int status = pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err);
  std::ostringstream s;
  s << in.rdbuf();
  r.err = s.str();
  std::remove(err.c_str());
  return r;
}

// The rest of the line that starts with `label`.
std::string line_after(const std::string& text, const std::string& label) {
  const size_t at = text.find("\n" + label);
  if (at == std::string::npos) return {};
  const size_t from = at + 1 + label.size();
  std::string rest = text.substr(from, text.find('\n', from) - from);
  return rest.substr(rest.find_first_not_of(' '));
}

struct Buggy {
  const char* file;
  const char* name;
  const char* faults;
  const char* property;
};

}  // namespace

TEST_CASE("lua variants: each buggy variant's failure is found within 5000 runs") {
  const Buggy cases[] = {
      {"compare_then_del", "buggy-compare-then-del", "pause-at-call,delay", "owner-only-release"},
      {"unowned_pexpire", "buggy-unowned-pexpire", "pause", "owner-only-release"},
      {"unconditional_set", "buggy-unconditional-set", "pause", "owner-only-release"},
      {"constant_token", "buggy-constant-token", "slow-work", "owner-only-release"},
      {"setnx_then_pexpire", "buggy-setnx-then-pexpire", "crash-at-call", "no-deadlock"},
      {"inverted_compare", "buggy-inverted-compare", "slow-work", "owner-only-release"},
      {"short_lease", "buggy-short-lease", "none", "mutual-exclusion"},
      {"reentrant_del", "buggy-reentrant-del", "none", "mutual-exclusion"},
  };
  for (const Buggy& b : cases) {
    const std::string file = std::string("examples/buggy/") + b.file + ".lua";
    Outcome r = locksim(std::string("check ") + b.name + " --variant " + file + " --faults " + b.faults +
                        " --property " + b.property + " --runs 5000 --colour never");
    INFO(b.file << "\n" << r.out << r.err);
    CHECK(r.status == 1);
    CHECK(r.out.find(std::string("found: ") + b.property + " violated") != std::string::npos);
    // The printed replay line works as printed and shows the same run.
    const std::string replay = line_after(r.out, "replay:");
    CHECK(replay.rfind("locksim replay --variant '" + file + "' '", 0) == 0);
    Outcome again = locksim(replay.substr(8) + " --colour never");
    CHECK(again.status == 0);
    CHECK(line_after(again.out, "trace hash:") == line_after(r.out, "trace hash:"));
    CHECK(again.out.find(b.property) != std::string::npos);
  }
}

TEST_CASE("lua variants: the correct examples hold where only the deployment could fail") {
  struct Example {
    const char* args;
    int status;
  };
  // Spin locks are unfair (bounded-wait, F20) and a lease can always be
  // outlived by a pause (F13) or starved by delays (F14): those belong to the
  // deployment, so each case names the property that is the variant's own.
  const Example examples[] = {
      {"check lua-watchdog --variant examples/watchdog.lua --faults slow-work --property mutual-exclusion --runs 300",
       0},
      {"check lua-watchdog --variant examples/watchdog.lua --faults all --property owner-only-release --runs 300", 0},
      {"check lua-watchdog --variant examples/watchdog.lua --faults pause --property mutual-exclusion --runs 2000", 1},
      {"check redisson --variant examples/redisson.lua --faults slow-work --property mutual-exclusion --runs 300", 0},
      {"check redisson --variant examples/redisson.lua --faults all --property owner-only-release --runs 300", 0},
      {"check redisson --variant examples/redisson.lua --faults none --property reentrancy --runs 300", 0},
      {"check redis-py --variant examples/redis_py.lua --faults slow-work --property mutual-exclusion --runs 300", 0},
      {"check redis-py --variant examples/redis_py.lua --faults all --property owner-only-release --runs 300", 0},
      {"check redlock-lua --variant examples/redlock.lua --masters 3 --faults delay,crash --property mutual-exclusion "
       "--runs 300",
       0},
      {"check redlock-lua --variant examples/redlock.lua --faults redis-restart --property mutual-exclusion "
       "--runs 3000",
       1},
      {"check lua-fenced --variant examples/fenced.lua --faults pause --property fenced-writes --runs 300", 0},
      {"check lua-fenced --variant examples/fenced.lua --faults pause --property mutual-exclusion --runs 2000", 1},
  };
  for (const Example& e : examples) {
    Outcome r = locksim(std::string(e.args) + " --colour never");
    INFO(e.args << "\n" << r.out << r.err);
    CHECK(r.status == e.status);
  }
}

TEST_CASE("lua variants: errors are loud and name the file and line") {
  const std::string path = temp_file("bad.lua");
  {
    std::ofstream out(path);
    out << "name = 'bad'\nfunction acquire()\n  return call('GET' param('key'))\nend\n";
  }
  Outcome syntax = locksim("check bad --variant " + path);
  CHECK(syntax.status == 2);
  CHECK(syntax.err.find(path + ":3: ')' expected near 'param'") != std::string::npos);
  {
    std::ofstream out(path);
    out << "name = 'bad'\nfunction acquire()\n  local ok = call('SET', param('key'), 'x', 'PX', 'soon')\n"
           "  return ok ~= nil\nend\nfunction release() return true end\n";
  }
  Outcome runtime = locksim("check bad --variant " + path + " --runs 50 --colour never");
  INFO(runtime.out << runtime.err);
  CHECK(runtime.status == 2);
  CHECK(runtime.out.find("found: variant-error violated") != std::string::npos);
  CHECK(runtime.out.find(path + ":3: unhandled error reply in acquire: ERR value is not an integer") !=
        std::string::npos);
  Outcome run = locksim("run bad --variant " + path + " --colour never");
  CHECK(run.status == 2);
  CHECK(run.out.find("variant-error") != std::string::npos);
  Outcome missing = locksim("check x --variant /nonexistent.lua");
  CHECK(missing.status == 2);
  CHECK(missing.err.find("cannot read '/nonexistent.lua': No such file or directory") != std::string::npos);
  Outcome directory = locksim("check x --variant /tmp");
  CHECK(directory.status == 2);
  CHECK(directory.err.find("cannot read '/tmp': not a regular file") != std::string::npos);
  Outcome twice = locksim("list --variant examples/watchdog.lua --variant examples/watchdog.lua");
  CHECK(twice.status == 2);
  CHECK(twice.err.find("a second variant named 'lua-watchdog'") != std::string::npos);
  std::remove(path.c_str());
}

TEST_CASE("lua variants: --variant takes one file per flag; list and run show it") {
  Outcome listed = locksim("list --variant examples/watchdog.lua --variant examples/redisson.lua");
  CHECK(listed.status == 0);
  CHECK(listed.out.find("lua-watchdog") != std::string::npos);
  CHECK(listed.out.find("redisson") != std::string::npos);
  Outcome run = locksim("run lua-watchdog --variant examples/watchdog.lua --lease 2s --colour never");
  INFO(run.out << run.err);
  CHECK(run.status == 0);
  CHECK(line_after(run.out, "replay:") ==
        "locksim run --variant examples/watchdog.lua lua-watchdog --seed 1 --lease 2s");
  // The output does not depend on --jobs.
  const std::string check = "check lua-watchdog --variant examples/watchdog.lua --faults all --runs 200 --colour never";
  CHECK(locksim(check + " --jobs 2").out == locksim(check).out);
  // log() is a step of the story.
  const std::string path = temp_file("logger.lua");
  {
    std::ofstream out(path);
    out << "name = 'logger'\nfunction acquire() log('lease is ' .. param('lease')) return true end\n"
           "function release() return true end\n";
  }
  Outcome logged = locksim("run logger --variant " + path + " --clients 1 --iterations 1 --colour never");
  CHECK(logged.out.find("A logs: lease is 1000") != std::string::npos);
  std::remove(path.c_str());
}
