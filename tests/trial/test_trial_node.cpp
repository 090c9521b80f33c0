// The Node lock libraries on trial, as users run them: node-redlock on three servers and
// redis-semaphore's Mutex with refresh pass a default trial (their documented
// assumptions: no Redis restart or clock jump, pauses below the lease).
#include <sys/stat.h>
#include <sys/wait.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>

namespace {
struct Result {
  int status = -1;
  std::string out;
};

Result trial_node(const std::string& args, const std::string& script) {
  struct stat st {};
  INFO("the npm packages are missing from " LOCKSIM_NODE_MODULES ": ./run.sh test installs them");
  REQUIRE(::stat(LOCKSIM_NODE_MODULES "/redlock", &st) == 0);
  REQUIRE(::stat(LOCKSIM_NODE_MODULES "/redis-semaphore", &st) == 0);
  const std::string cmd = "NODE_PATH='" LOCKSIM_NODE_MODULES "' '" LOCKSIM_BIN "' trial --json " + args + " -- '" +
                          LOCKSIM_NODE + "' '" + LOCKSIM_EXAMPLES + "/" + script + "' 2>&1 </dev/null";
  Result r;
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}
}  // namespace

TEST_CASE("node-redlock on three servers passes a default trial", "[trial]") {
  const Result r = trial_node("--servers 3 --duration 4s", "node_redlock.js");
  INFO(r.out);
  REQUIRE(r.status == 0);
  CHECK(nlohmann::json::parse(r.out)["holds"].get<int>() > 0);
}

TEST_CASE("redis-semaphore's Mutex with refresh passes a default trial", "[trial]") {
  const Result r = trial_node("--duration 4s", "node_semaphore_mutex.js");
  INFO(r.out);
  REQUIRE(r.status == 0);
  CHECK(nlohmann::json::parse(r.out)["holds"].get<int>() > 0);
}
