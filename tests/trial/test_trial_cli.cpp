// locksim trial on real client programs (examples/trial, redis-py from python3-redis),
// each run a few seconds long: the deliberately broken client and redis-py's Lock with
// a lease shorter than its work caught with the property, the clients and the faults
// named; redis-py's Lock passing a default trial; nothing left running after a run or
// after Ctrl-C; bad input refused with exit 2.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Result {
  int status = -1;
  std::string out, err;
};

std::string example(const std::string& file) { return std::string(LOCKSIM_EXAMPLES) + "/" + file; }
std::string python() { return LOCKSIM_PYTHON; }

// Runs `locksim trial ARGS` (a shell fragment).
Result run_trial(const std::string& args) {
  const std::string err = "/tmp/locksim_test_trial_" + std::to_string(::getpid()) + ".err";
  const std::string cmd = "'" + std::string(LOCKSIM_BIN) + "' trial " + args + " 2>'" + err + "' </dev/null";
  Result r;
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err);
  std::ostringstream s;
  s << in.rdbuf();
  r.err = s.str();
  std::remove(err.c_str());
  return r;
}

// The processes whose command line holds `marker`.
std::vector<pid_t> processes_with(const std::string& marker) {
  std::vector<pid_t> out;
  DIR* proc = ::opendir("/proc");
  if (!proc) return out;
  while (dirent* d = ::readdir(proc)) {
    const pid_t pid = static_cast<pid_t>(std::atoi(d->d_name));
    if (pid <= 0 || pid == ::getpid()) continue;
    std::ifstream cmdline("/proc/" + std::string(d->d_name) + "/cmdline");
    std::string text((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
    for (char& c : text)
      if (c == '\0') c = ' ';
    if (text.find(marker) != std::string::npos && text.find(" trial ") == std::string::npos) out.push_back(pid);
  }
  ::closedir(proc);
  return out;
}

// The trials' run directories (locksim-trial-* in the temporary directory) there now.
std::vector<std::string> trial_dirs() {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::temp_directory_path()))
    if (entry.path().filename().string().rfind("locksim-trial-", 0) == 0) out.push_back(entry.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string marker(const char* what) { return std::string("trialtest") + what + std::to_string(::getpid()); }

}  // namespace

TEST_CASE("the broken release (no owner check) is caught, with the late reply that let it happen", "[trial]") {
  // A default trial (default faults), a few short runs; it stops at the first violation.
  const Result r = run_trial("--json --runs 6 --duration 5s -- " + python() + " " + example("broken_release.py"));
  INFO(r.out << r.err);
  REQUIRE(r.status == 1);
  const auto j = nlohmann::json::parse(r.out);
  const auto& v = j["violations"][0];
  CHECK(v["property"] == "mutual-exclusion");
  CHECK(v["resource"] == "orders");
  REQUIRE(v["clients"].size() == 2);
  CHECK(v["clients"][0] != v["clients"][1]);
  // What let a DEL run twice: a reply that came late or not at all, to some client.
  bool late_reply = false;
  for (const auto& f : v["faults"]) {
    const std::string text = f;
    late_reply = late_reply || text.find("delay of") != std::string::npos || text.find("lost reply") != std::string::npos;
  }
  CHECK(late_reply);
  CHECK(std::string(v["replay"]).find("--replay 'clients=3") != std::string::npos);
}

TEST_CASE("redis-py's Lock with a lease shorter than its work is caught, and re-run it reproduces", "[trial]") {
  const std::string tag = marker("short");
  const Result r = run_trial("--duration 3s -- " + python() + " " + example("redis_py_lock.py") +
                         " --lease 0.2 --work 0.4 --resource " + tag);
  INFO(r.out << r.err);
  REQUIRE(r.status == 1);
  CHECK_THAT(r.out, Catch::Contains("mutual-exclusion violated on " + tag));
  CHECK_THAT(r.out, Catch::Contains("both held " + tag));
  CHECK_THAT(r.out, Catch::Contains("faults in force:"));
  // The timeline of the resource: its lanes, the overlap marked.
  CHECK_THAT(r.out, Catch::Contains("  resource " + tag + "\n"));
  // The label goes right of the marks, or left of them when the overlap is near the end.
  CHECK_THAT(r.out, Catch::Contains("^ mutual-exclusion") || Catch::Contains("mutual-exclusion ^"));
  CHECK_THAT(r.out, Catch::Contains("# holding"));
  CHECK(processes_with(tag).empty());

  const Result replay = run_trial("--tries 2 --replay 'clients=2 servers=1 duration=2500ms faults=none' -- " + python() +
                              " " + example("redis_py_lock.py") + " --lease 0.1 --work 0.6");
  INFO(replay.out << replay.err);
  CHECK(replay.status == 1);
  CHECK_THAT(replay.out, Catch::Contains("reproduced in 2 of 2 tries (100%): mutual-exclusion 2"));
}

TEST_CASE("a replayed schedule shrinks to the faults it needs: none, for a lease shorter than the work", "[trial]") {
  const Result r = run_trial("--json --tries 2 --shrink --replay "
                         "'clients=2 duration=2500ms faults=lose:c2@600ms+50ms' -- " +
                         python() + " " + example("redis_py_lock.py") + " --lease 0.1 --work 0.6");
  INFO(r.out << r.err);
  REQUIRE(r.status == 1);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["reproduced"] == 2);
  CHECK(j["shrunk"] == "clients=2 servers=1 duration=2.5s faults=none");
}

TEST_CASE("redis-py's Lock passes a default trial, and leaves nothing running", "[trial]") {
  const std::string tag = marker("correct");
  const Result r = run_trial("--json --duration 4s -- " + python() + " " + example("redis_py_lock.py") + " --resource " + tag);
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["violations"].empty());
  CHECK(j["holds"].get<int>() > 0);  // a lost reply to an acquire may hold everyone off for a lease
  CHECK(processes_with(tag).empty());
}

TEST_CASE("Ctrl-C ends the clients, paused ones too, and the program", "[trial]") {
  const std::string tag = marker("sigint");
  const std::vector<std::string> dirs_before = trial_dirs();
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    const std::string script = example("redis_py_lock.py");
    ::execl(LOCKSIM_BIN, LOCKSIM_BIN, "trial", "--duration", "60s", "--faults", "pause", "--mean-gap", "100ms",
            "--max-pause", "2s", "--", LOCKSIM_PYTHON, script.c_str(), "--resource", tag.c_str(), nullptr);
    ::_exit(127);
  }
  // Until the clients run (three of them), then a moment for pauses to begin.
  for (int i = 0; i < 100 && processes_with(tag).size() < 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(processes_with(tag).size() == 3);
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  ::kill(pid, SIGINT);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGINT);
  // The clients were killed before it died; the kernel may still be reaping them.
  for (int i = 0; i < 40 && !processes_with(tag).empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(processes_with(tag).empty());
  // Nor the clients' logs: the handler removed the run's directory.
  CHECK(trial_dirs() == dirs_before);
}

TEST_CASE("bad input is refused with exit 2 and a reason", "[trial]") {
  auto refused = [](const std::string& args, const std::string& why) {
    const Result r = run_trial(args);
    INFO(args << "\n" << r.out << r.err);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains(why));
  };
  refused("", "no client program");
  refused("--clients 0 -- true", "--clients must be 1..64");
  refused("--duration 5parsecs -- true", "--duration");
  refused("--faults pause,teleport -- true", "unknown fault kind 'teleport'");
  refused("--replay 'clients=2 faults=pause:c9@1s+1s' -- true", "beyond clients=2");
  refused("--shrink -- true", "--shrink goes with --replay");
  refused("--duration 500ms -- /nonexistent/client", "cannot run '/nonexistent/client'");
  // A client that never marks a critical section gives nothing to judge: not a pass.
  refused("--duration 500ms --faults none -- sleep 1", "sent no LOCKSIM.ENTER");
  // ... and one that fails at once says so, with its output.
  refused("--duration 500ms --faults none -- sh -c 'echo no redis here; exit 3'", "no redis here");
}

TEST_CASE("a fenced C++ client: its writes pass a default trial, and beyond its lease mutual exclusion fails but no stale write is accepted", "[trial]") {
  const std::string client = LOCKSIM_FENCED_CLIENT;
  const Result clean = run_trial("--json --duration 3s -- " + client);
  INFO(clean.out << clean.err);
  REQUIRE(clean.status == 0);
  const auto c = nlohmann::json::parse(clean.out);
  CHECK(c["writes"].get<int>() > 0);

  // Pauses up to 3 s against a 500 ms lease: holders overlap, and the fence refuses the stale one.
  const Result paused =
      run_trial("--json --runs 3 --duration 4s --faults pause --max-pause 3s --mean-gap 300ms -- " + client + " 500 50");
  INFO(paused.out << paused.err);
  REQUIRE(paused.status == 1);
  const auto p = nlohmann::json::parse(paused.out);
  REQUIRE(!p["violations"].empty());
  CHECK(p["violations"][0]["property"] == "mutual-exclusion");
  for (const auto& v : p["violations"]) CHECK(v["property"] != "fenced-writes");
  bool paused_named = false;
  for (const auto& f : p["violations"][0]["faults"]) paused_named = paused_named || std::string(f).rfind("pause of", 0) == 0;
  CHECK(paused_named);
}
