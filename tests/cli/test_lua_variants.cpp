// Lua variants through the program: the default `check NAME --variant FILE`
// on every shipped example with its documented result (each buggy variant's
// own failure with its true cause; the correct ones nothing of their own that
// their built-in counterpart does not show too), the replay line working
// verbatim, and the errors.
#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
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

Outcome run_program(const std::string& args) {
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

// The distinct failures `check ARGS --json` lists: (property, cause) -> the entry
// (the lock's own, where one is listed both under and outside the assumptions).
std::map<std::pair<std::string, std::string>, nlohmann::json> inventory(const std::string& args) {
  Outcome r = run_program(args + " --json --jobs 2");
  INFO(args << "\n" << r.out << r.err);
  REQUIRE((r.status == 0 || r.status == 1));
  std::map<std::pair<std::string, std::string>, nlohmann::json> out;
  const nlohmann::json parsed = nlohmann::json::parse(r.out);  // named: the loop below reads into it
  // The lock's own entries come first: one outside the assumptions never hides one of them.
  for (const auto& f : parsed.at("failures"))
    out.emplace(std::make_pair(f.at("property").get<std::string>(), f.at("cause").get<std::string>()), f);
  return out;
}

// Whether the scenario of a variant's replay line, run on one of the built-ins
// ("check ALGO ..."), shows the same property violated for the same cause.
bool same_failure_on_builtin(const std::string& replay, const std::vector<std::string>& builtins,
                             const std::pair<std::string, std::string>& failure) {
  // The scenario is the last quoted word before the assumptions it was found under.
  const std::string line = replay.substr(0, replay.find(" --assume "));
  const size_t open = line.rfind(" '");
  const std::string scenario = line.substr(open + 2, line.size() - open - 3);  // inside the last quotes
  const std::string rest = scenario.substr(scenario.find(' '));                   // without the variant's name
  for (const std::string& builtin : builtins) {
    const std::string algorithm = builtin.substr(6, builtin.find(' ', 6) - 6);  // "check ALGO ..."
    Outcome r = run_program("replay '" + algorithm + rest + "' --colour never");
    INFO(r.out);
    if (r.out.find("cause:      " + failure.first + ": " + failure.second) != std::string::npos) return true;
  }
  return false;
}

struct Buggy {
  const char* file;
  const char* name;
  const char* property;
  const char* cause;
  int min_clients, max_clients;  // of the shrunk counterexample
};

}  // namespace

TEST_CASE("lua variants: the default check finds each buggy variant's own failure with its cause") {
  const Buggy cases[] = {
      // A pause between the GET and the DEL: the DEL removes the next holder's lock.
      {"compare_then_del", "buggy-compare-then-del", "owner-only-release", "stale-release", 2, 3},
      // The renewal re-arms whoever holds the key now.
      {"unowned_pexpire", "buggy-unowned-pexpire", "owner-only-release", "stale-renewal", 2, 3},
      {"unconditional_set", "buggy-unconditional-set", "owner-only-release", "stale-renewal", 2, 3},
      // Everyone's token is the same: a late release deletes the next holder's lock.
      {"constant_token", "buggy-constant-token", "owner-only-release", "stale-release", 2, 3},
      {"setnx_then_pexpire", "buggy-setnx-then-pexpire", "no-deadlock", "crash-left-key-without-ttl", 1, 3},
      {"inverted_compare", "buggy-inverted-compare", "owner-only-release", "stale-release", 2, 3},
      {"short_lease", "buggy-short-lease", "mutual-exclusion", "lease-expired-working", 2, 3},
      // One client is enough: its inner release frees its own outer hold.
      {"reentrant_del", "buggy-reentrant-del", "reentrancy", "inner-release-freed-lock", 1, 1},
  };
  for (const Buggy& b : cases) {
    const std::string file = std::string("examples/buggy/") + b.file + ".lua";
    // The documented default budget: 1,000 runs, every fault kind, any property.
    const auto found = inventory(std::string("check ") + b.name + " --variant " + file);
    INFO(b.file);
    const auto it = found.find({b.property, b.cause});
    REQUIRE(it != found.end());
    const nlohmann::json& f = it->second;
    CHECK_FALSE(f.at("inherent").get<bool>());  // the variant's own, not the deployment's
    const int clients = f.at("clients").get<int>();
    CHECK(clients >= b.min_clients);
    CHECK(clients <= b.max_clients);
    // The printed replay line works as printed and shows the same failure.
    const std::string replay = f.at("replay").get<std::string>();
    CHECK(replay.rfind("locksim replay --variant '" + file + "' '", 0) == 0);
    Outcome again = run_program(replay.substr(8) + " --colour never");
    INFO(again.out);
    CHECK(again.status == 0);  // replay shows the run; only check's search exits 1
    CHECK(again.out.find(std::string("cause:      ") + b.property + ": " + b.cause) != std::string::npos);
  }
}

TEST_CASE("lua variants: the production-style buggy variants are caught by their own mechanism") {
  // Issue 28's bugs of shipped libraries: Redisson's renewal that outlives a failed
  // unlock (F24), its fair lock stalled by a dead waiter (F25), node-redlock without
  // its validity check, a wait timed on the wall clock. Each is the variant's own failure (inside its assumptions),
  // with its cause, the fault families its 1-minimal example needs, and its clients.
  struct Case {
    const char* file;
    const char* name;
    const char* property;
    const char* cause;
    std::set<std::string> needs_one_of;  // what sets the mechanism off: the example needs one of these
    int min_clients, max_clients;
    const char* check = "";  // beyond the default check
  };
  const Case cases[] = {
      // The unlock got no answer (its request lost, a cut, a reset): the renewal kept
      // re-arming. The default check meets it through a lost unlock (lost-at-call).
      {"zombie_renewal", "zombie-renewal", "no-zombie-lock", "renewal-outlived-release",
       {"lost-at-call", "cut", "reset", "delay"}, 1, 2},
      // A waiter died queued: the others wait behind it while the lock is free (or the
      // client itself, restarted, waits behind its own dead incarnation: one client).
      {"fair_dead_waiter", "fair-dead-waiter", "no-stalled-wait", "queue-stalled-by-dead-waiter",
       {"crash", "crash-at-call"}, 1, 3},
      // The quorum came back after the lease: it entered with no validity left. The
      // default check's 1,000 runs on seed 1 first meet it beside a drifting Redis
      // clock (outside the assumptions); the faults that make an acquire slow meet it inside.
      {"redlock_no_validity", "redlock-parallel-no-validity", "mutual-exclusion", "entered-with-no-validity-left",
       {"pause", "pause-at-call", "delay", "cut"}, 2, 3, " --faults pause,pause-at-call,delay"},
      // The wait limit timed on the wall clock (node-redlock's Date.now(), Redisson's tryLock):
      // a clock stepped back while a nested acquire waits stretches that wait past a 30 s lease
      // that work and pauses, bounded, never outlast. The same lock on monotonic_ms() passes
      // (tests/props/test_monotonic_waits.cpp).
      {"wall_clock_wait", "buggy-wall-clock-wait", "mutual-exclusion", "client-clock-skew", {"jump"}, 2, 2,
       " --lease 30s --nested 1 --assume 'work<=10s,pause<=5s'"},
      // Renewals once a lease: no fault stops them, each simply comes as the key expires.
      // Work longer than the lease is what needs one: nothing else, not a cut, not a delay.
      {"slow_renewal", "buggy-slow-renewal", "mutual-exclusion", "renewal-too-late", {"slow-work"}, 2, 3},
      // A master that did not answer in time counted as a vote: a call held in flight or
      // lost (or a cut) makes one real grant a "majority" while another client holds two.
      {"redlock_timeout_counts", "buggy-redlock-timeout-counts", "mutual-exclusion", "entered-without-quorum",
       {"delay-at-call", "lost-at-call", "cut", "delay"}, 2, 3},
      // The quorum counted over the masters it reached (an early redlock-py): a master crash or
      // a cut leaves a client one master, and its vote alone is a "majority".
      {"redlock_connected_quorum", "redlock-connected-quorum", "mutual-exclusion", "entered-without-quorum",
       {"master-crash", "cut"}, 2, 3},
  };
  for (const Case& b : cases) {
    const std::string file = std::string("examples/buggy/") + b.file + ".lua";
    Outcome r = run_program(std::string("check ") + b.name + " --variant " + file + b.check + " --json --jobs 2");
    INFO(b.file << "\n" << r.out << r.err);
    REQUIRE(r.status == 1);  // a failure of its own
    // The entry under the assumptions in force: the variant's own (listed before those outside).
    const nlohmann::json parsed = nlohmann::json::parse(r.out);
    const nlohmann::json* own = nullptr;
    for (const auto& entry : parsed.at("failures"))
      if (!own && entry.at("property") == b.property && entry.at("cause") == b.cause &&
          !entry.at("outside_assumptions").get<bool>())
        own = &entry;
    REQUIRE(own != nullptr);
    const nlohmann::json& f = *own;
    bool needed = false;
    for (const auto& need : f.at("needs")) needed = needed || b.needs_one_of.count(need.get<std::string>()) == 1;
    CHECK(needed);
    const int clients = f.at("clients").get<int>();
    CHECK(clients >= b.min_clients);
    CHECK(clients <= b.max_clients);
    const std::string replay = f.at("replay").get<std::string>();
    Outcome again = run_program(replay.substr(8) + " --colour never");
    INFO(again.out);
    CHECK(again.out.find(std::string("cause:      ") + b.property + ": " + b.cause) != std::string::npos);
  }
}

TEST_CASE("lua variants: a lock that claims reentrancy is judged on its claim when its own lock refuses it") {
  // examples/buggy/fake_reentrant.lua: SET NX PX declared reentrant (reentrant = true). Its
  // holder's nested acquire meets its own key and is refused (the history's OwnLockRefused
  // fact): its own reentrancy failure, by waiting on itself, with no fault at all. In the
  // seed 1 audit (2,000 runs) it was named so in 381 runs and as a pause, an ambiguous reply,
  // Redis down or work in about 850 others, since a lock that claims reentrancy was taken
  // at its word.
  const std::string file = "examples/buggy/fake_reentrant.lua";
  Outcome r = run_program("check buggy-fake-reentrant --variant " + file + " --json --jobs 2");
  INFO(r.out << r.err);
  REQUIRE(r.status == 1);
  const nlohmann::json parsed = nlohmann::json::parse(r.out);
  const nlohmann::json* own = nullptr;
  for (const auto& entry : parsed.at("failures"))
    if (!own && entry.at("property") == "reentrancy" && entry.at("cause") == "nested-acquire-waits-on-itself" &&
        !entry.at("outside_assumptions").get<bool>())
      own = &entry;
  REQUIRE(own != nullptr);
  const nlohmann::json& f = *own;
  CHECK(f.at("claimed").get<bool>());
  CHECK_FALSE(f.at("inherent").get<bool>());
  CHECK(f.at("needs").empty());  // no fault: the nested acquire alone
  CHECK(f.at("fault") == "nested=1");
  CHECK(f.at("clients").get<int>() == 1);
  Outcome again = run_program(f.at("replay").get<std::string>().substr(f.at("replay").get<std::string>().find(
                                  "replay ")) + " --colour never");
  INFO(again.out);
  CHECK(again.out.find("cause:      reentrancy: nested-acquire-waits-on-itself") != std::string::npos);
  // The same scenario on the built-in reentrant lock, which lets its holder back in: no failure.
  const std::string replay = f.at("replay").get<std::string>();
  const size_t open = replay.find(" 'buggy-fake-reentrant ");
  REQUIRE(open != std::string::npos);
  const std::string scenario = replay.substr(open + 22, replay.find('\'', open + 2) - open - 22);
  Outcome builtin = run_program("replay 'reentrant" + scenario + "' --colour never");
  INFO(builtin.out);
  CHECK(builtin.out.find("cause:      reentrancy:") == std::string::npos);
}

TEST_CASE("lua variants: the correct examples fail only as their built-in counterparts do") {
  // Even the deployment's best lock has failures of its own in the default
  // check (unfair retries, an explicit lease outworked, an ambiguous reply),
  // so "only inherent" is taken as: nothing the same algorithm built in does
  // not show too, and no cause that is a defect of the lock itself.
  const std::set<std::string> defects = {
      "stale-release", "stale-renewal", "takeover-race", "crash-left-key-without-ttl", "inner-release-freed-lock",
      "watch-lost-on-reconnect"};
  // Faults of the Redis deployment itself: both versions are exposed to them, and
  // whether a budget's search meets one first in one version or the other is chance.
  const std::set<std::string> deployment = {"redis-clock-jump", "redis-clock-drift", "redis-restart-forgot-key",
                                            "failover-lost-key", "redis-down"};
  // Neither token-lua nor these examples check the validity left after acquiring: a pause
  // that makes a holder enter, or carry on, past its lease is one weakness, named
  // lease-expired-paused or entered-with-no-validity-left by where the pause fell.
  const std::set<std::string> late_by_pause = {"lease-expired-paused", "entered-with-no-validity-left"};
  // redis-py's lock is token-lua's plus a renewing task: both built-ins are its reference.
  const std::pair<const char*, std::vector<std::string>> examples[] = {
      {"check lua-watchdog --variant examples/watchdog.lua", {"check watchdog"}},
      {"check redisson --variant examples/redisson.lua", {"check reentrant"}},
      {"check redis-py --variant examples/redis_py.lua", {"check token-lua", "check watchdog"}},
      {"check lua-fenced --variant examples/fenced.lua", {"check fenced"}},
      {"check lua-token-lua --variant examples/token_lua.lua", {"check token-lua"}},
      {"check redlock-lua --variant examples/redlock.lua --masters 3", {"check redlock"}},
  };
  for (const auto& [variant, builtins] : examples) {
    const auto mine = inventory(variant);
    auto reference = inventory(builtins.front());
    for (size_t i = 1; i < builtins.size(); ++i) reference.merge(inventory(builtins[i]));
    const std::string& builtin = builtins.front();
    if (builtin == "check redlock") {
      // F18 on the default three masters: a restarted master forgot its vote, in both versions.
      const std::pair<std::string, std::string> f18{"mutual-exclusion", "redlock-master-forgot-vote"};
      REQUIRE(reference.count(f18) == 1);
      CHECK(reference.at(f18).at("catalogue") == "F18");
      CHECK(mine.count(f18) == 1);
    }
    for (const auto& [key, f] : mine) {
      INFO(variant << ": " << key.first << " by " << key.second << " (vs " << builtin << ")");
      // Outside the assumptions: the deployment's to rule out, not the lock's own.
      if (f.at("inherent").get<bool>() || f.at("outside_assumptions").get<bool>()) continue;
      CHECK(defects.count(key.second) == 0);
      if (deployment.count(key.second) != 0 || reference.count(key) == 1) continue;
      if (late_by_pause.count(key.second) != 0 &&
          std::any_of(late_by_pause.begin(), late_by_pause.end(),
                      [&](const std::string& c) { return reference.count({key.first, c}) == 1; }))
        continue;
      // Not met by the built-ins' own search (a budget meets some failures by chance):
      // the variant's counterexample, run on a built-in, must fail the same way.
      CHECK(same_failure_on_builtin(f.at("replay").get<std::string>(), builtins, key));
    }
  }
}

TEST_CASE("lua variants: errors are loud and name the file and line") {
  const std::string path = temp_file("bad.lua");
  {
    std::ofstream out(path);
    out << "name = 'bad'\nfunction acquire()\n  return call('GET' param('key'))\nend\n";
  }
  Outcome syntax = run_program("check bad --variant " + path);
  CHECK(syntax.status == 2);
  CHECK(syntax.err.find(path + ":3: ')' expected near 'param'") != std::string::npos);
  {
    std::ofstream out(path);
    out << "name = 'bad'\nfunction acquire()\n  local ok = call('SET', param('key'), 'x', 'PX', 'soon')\n"
           "  return ok ~= nil\nend\nfunction release() return true end\n";
  }
  Outcome runtime = run_program("check bad --variant " + path + " --runs 50 --colour never");
  INFO(runtime.out << runtime.err);
  CHECK(runtime.status == 2);
  CHECK(runtime.out.find("found: variant-error violated") != std::string::npos);
  CHECK(runtime.out.find(path + ":3: unhandled error reply in acquire: ERR value is not an integer") !=
        std::string::npos);
  Outcome run = run_program("run bad --variant " + path + " --colour never");
  CHECK(run.status == 2);
  CHECK(run.out.find("variant-error") != std::string::npos);
  Outcome missing = run_program("check x --variant /nonexistent.lua");
  CHECK(missing.status == 2);
  CHECK(missing.err.find("cannot read '/nonexistent.lua': No such file or directory") != std::string::npos);
  Outcome directory = run_program("check x --variant /tmp");
  CHECK(directory.status == 2);
  CHECK(directory.err.find("cannot read '/tmp': not a regular file") != std::string::npos);
  Outcome twice = run_program("list --variant examples/watchdog.lua --variant examples/watchdog.lua");
  CHECK(twice.status == 2);
  CHECK(twice.err.find("a second variant named 'lua-watchdog'") != std::string::npos);
  std::remove(path.c_str());
}

TEST_CASE("lua variants: --variant takes one file per flag, list and run show it") {
  Outcome listed = run_program("list --variant examples/watchdog.lua --variant examples/redisson.lua");
  CHECK(listed.status == 0);
  CHECK(listed.out.find("lua-watchdog") != std::string::npos);
  CHECK(listed.out.find("redisson") != std::string::npos);
  Outcome run = run_program("run lua-watchdog --variant examples/watchdog.lua --lease 2s --colour never");
  INFO(run.out << run.err);
  CHECK(run.status == 0);
  CHECK(line_after(run.out, "replay:") ==
        "locksim run --variant examples/watchdog.lua lua-watchdog --seed 1 --lease 2s");
  // The output does not depend on --jobs.
  const std::string check = "check lua-watchdog --variant examples/watchdog.lua --faults all --runs 200 --colour never";
  CHECK(run_program(check + " --jobs 2").out == run_program(check).out);
  // log() is a step of the story.
  const std::string path = temp_file("logger.lua");
  {
    std::ofstream out(path);
    out << "name = 'logger'\nfunction acquire() log('lease is ' .. param('lease')) return true end\n"
           "function release() return true end\n";
  }
  Outcome logged = run_program("run logger --variant " + path + " --clients 1 --iterations 1 --colour never");
  CHECK(logged.out.find("A logs: lease is 1000") != std::string::npos);
  std::remove(path.c_str());
}

#ifdef LOCKSIM_EXAMPLE_MY_LOCK
TEST_CASE("a user's own binary prints replay lines that name itself, and they replay") {
  const std::string binary = LOCKSIM_EXAMPLE_MY_LOCK;
  const std::string name = binary.substr(binary.find_last_of('/') + 1);
  auto run = [&](const std::string& args) {
    const std::string cmd = "'" + binary + "' " + args + " 2>&1 </dev/null";
    std::string out;
    FILE* p = popen(cmd.c_str(), "r");
    REQUIRE(p != nullptr);
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    const int status = pclose(p);
    return std::make_pair(WIFEXITED(status) ? WEXITSTATUS(status) : -1, out);
  };
  const auto [status, out] = run("check my-lock --faults pause --first --runs 2000 --colour never");
  INFO(out);
  CHECK(status == 1);
  const std::string replay = line_after(out, "replay:");
  REQUIRE(replay.rfind(name + " replay 'my-lock ", 0) == 0);
  // Pasted whole, after the binary: the same run.
  const auto [again_status, again] = run(replay.substr(name.size() + 1) + " --colour never");
  INFO(again);
  CHECK(line_after(again, "trace hash:") == line_after(out, "trace hash:"));
  const auto [pasted_status, pasted] = run("replay \"" + replay + "\" --colour never");
  CHECK(line_after(pasted, "trace hash:") == line_after(out, "trace hash:"));
}
#endif
