#pragma once
// What the kit's tests share: running the locksim program, temporary files,
// and finding one failure in a report.
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <set>
#include <string>
#include <tuple>

#include "locksim/testing/lock_check.hpp"

namespace kit_test {

struct Outcome {
  int status = -1;
  std::string out;  // standard output and error together
};

// Runs a shell command line and collects what it prints.
inline Outcome shell(const std::string& command) {
  Outcome r;
  FILE* p = popen((command + " 2>&1 </dev/null").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  const int status = pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// A buggy Lua variant of examples/: it compares the token, then deletes in a second call.
inline const std::string kBuggy = LOCKSIM_EXAMPLES_DIR "/buggy/compare_then_del.lua";

// The locksim program under test, with its arguments.
inline Outcome locksim(const std::string& args) { return shell(std::string("'") + LOCKSIM_BIN + "' " + args); }

inline std::string temp_path(const std::string& name) {
  return "/tmp/locksim_test_kit_" + std::to_string(getpid()) + "_" + name;
}

// The report's failure of this property (the first, by first run), or null.
inline const locksim::testing::Failure* failure_of(const locksim::testing::CheckReport& report,
                                                   locksim::props::Property p) {
  for (const auto& f : report.failures)
    if (f.property == p) return &f;
  return nullptr;
}

// The failures as (property, cause, first run, replay line).
using FailureSet = std::set<std::tuple<std::string, std::string, uint32_t, std::string>>;

inline FailureSet failure_set(const locksim::testing::CheckReport& report) {
  FailureSet out;
  for (const auto& f : report.failures)
    out.emplace(locksim::props::to_string(f.property), locksim::props::to_string(f.cause), f.first_run, f.replay);
  return out;
}

// What `locksim check ARGS --json` lists, and how many runs it made.
inline std::pair<FailureSet, uint32_t> check_json(const std::string& args) {
  const Outcome out = locksim("check " + args + " --json --jobs 2");
  const auto json = nlohmann::json::parse(out.out, nullptr, false);
  FailureSet set;
  if (json.is_discarded()) return {set, 0};
  for (const auto& f : json["failures"]) set.emplace(f["property"], f["cause"], f["first_run"], f["replay"]);
  return {set, json["runs"].get<uint32_t>()};
}

}  // namespace kit_test
