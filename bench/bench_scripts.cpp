// SCRIPT LOAD and the script cache (issue 33): N distinct scripts loaded into the model,
// for N = 10k, 30k, 60k, 120k, in CPU time; then EVALSHA of the last one. Linear means
// the time per script stays flat as N grows (goal: 120k per script within 2x of 10k).
// The model's Lua heap cap (64 MB by default, scripts and their cache together) holds
// about 109k such scripts, so the measure raises it to 512 MB; then it counts how many
// fit under the default cap (beyond it SCRIPT LOAD answers a compile error).
//   bench_scripts [max_scripts]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cpu_clock.hpp"
#include "locksim/sim/redis/server.hpp"

namespace {
using locksim::bench::CpuClock;
using locksim::redis::Server;
using locksim::redis::ServerOptions;

double load_seconds(size_t count, std::string& last_sha) {
  ServerOptions options;
  options.lua_memory_limit_bytes = 512u << 20;
  Server server(options);
  const auto conn = server.connect();
  const auto start = CpuClock::now();
  for (size_t i = 0; i < count; ++i) {
    const std::string body = "return " + std::to_string(i) + " + tonumber(ARGV[1] or 0)";
    auto reply = server.execute(conn, {"SCRIPT", "LOAD", body}, 0);
    if (reply.is_error()) {
      std::fprintf(stderr, "SCRIPT LOAD %zu: %s\n", i, reply.str.c_str());
      std::exit(1);
    }
    last_sha = reply.str;
  }
  const double seconds = std::chrono::duration<double>(CpuClock::now() - start).count();
  const auto evalsha = server.execute(conn, {"EVALSHA", last_sha, "0", "1"}, 0);
  if (evalsha.integer != static_cast<int64_t>(count)) {
    std::fprintf(stderr, "EVALSHA of the last script answered %lld\n", static_cast<long long>(evalsha.integer));
    std::exit(1);
  }
  return seconds;
}
}  // namespace

int main(int argc, char** argv) {
  const size_t most = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 120'000;
  double first_per_script = 0, last_per_script = 0;
  for (size_t count : {10'000, 30'000, 60'000, 120'000}) {
    if (count > most) break;
    std::string sha;
    const double seconds = load_seconds(count, sha);
    const double per_script_us = seconds * 1e6 / static_cast<double>(count);
    std::printf("script_load_%zuk: %.3f s\n", count / 1000, seconds);
    std::printf("script_load_%zuk_per_script: %.2f us\n", count / 1000, per_script_us);
    if (first_per_script == 0) first_per_script = per_script_us;
    last_per_script = per_script_us;
  }
  {
    Server server;  // the default cap
    const auto conn = server.connect();
    size_t loaded = 0;
    const auto start = CpuClock::now();
    while (loaded < 200'000 && !server.execute(conn, {"SCRIPT", "LOAD", "return " + std::to_string(loaded)}, 0).is_error())
      ++loaded;
    const double seconds = std::chrono::duration<double>(CpuClock::now() - start).count();
    std::printf("script_cache_default_cap_fits: %zu scripts (%.3f s to fill it)\n", loaded, seconds);
  }
  const double growth = first_per_script > 0 ? last_per_script / first_per_script : 0;
  std::printf("script_load_growth: %.2f x\n", growth);
  std::printf("goal.script_load_linear: %.2f x per script from 10k to 120k (goal <= 2 x): %s\n", growth,
              growth <= 2.0 ? "met" : "NOT met");
  return 0;
}
