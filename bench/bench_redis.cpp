// Throughput of the Redis model (direct calls) against a real redis-server over
// a loopback TCP connection with hiredis, unpipelined and pipelined 64 deep.
// Prints "name: value unit" lines; medians of 5 runs.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "lock/scripts.hpp"
#include "real/process.hpp"
#include "real/sync_client.hpp"
#include "sim/redis/server.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using locksim::redis::Command;
using locksim::redis::Server;

// The lock's own release script, as the lock algorithms send it.
const std::string kCompareAndDelete(locksim::lock::scripts::kCompareAndDelete);

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Runs `batch` (which performs `ops` operations) repeatedly for ~`seconds`, 5 times; median ops/s.
double rate(const std::function<void()>& batch, int ops, double seconds) {
  std::vector<double> runs;
  for (int run = 0; run < 5; ++run) {
    long done = 0;
    const auto start = Clock::now();
    double elapsed = 0;
    do {
      batch();
      done += ops;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < seconds);
    runs.push_back(static_cast<double>(done) / elapsed);
  }
  return median(runs);
}

struct ModelRates {
  double get, set_nx_px, compare_and_delete;
};

ModelRates bench_model() {
  Server server;
  const auto conn = server.connect();
  int64_t now = 1'700'000'000'000;
  const Command set_value{"SET", "lock", "token"};
  server.execute(conn, set_value, now);
  const Command get{"GET", "lock"};
  const Command set_nx{"SET", "lock", "token", "NX", "PX", "30000"};
  const Command cad_hit{"EVAL", kCompareAndDelete, "1", "lock", "token"};
  ModelRates r{};
  r.get = rate([&] { for (int i = 0; i < 1000; ++i) server.execute(conn, get, now); }, 1000, 0.2);
  // Alternating acquire and expiry: half the SETs succeed, half find the lock held.
  r.set_nx_px = rate(
      [&] {
        for (int i = 0; i < 1000; ++i) {
          now += 15001;
          server.execute(conn, set_nx, now);
        }
      },
      1000, 0.2);
  // Compare-and-delete that finds its token and deletes (the lock is re-set outside the timing).
  r.compare_and_delete = rate(
      [&] {
        for (int i = 0; i < 100; ++i) {
          server.execute(conn, set_value, now);
          server.execute(conn, cad_hit, now);
        }
      },
      100, 0.2);
  return r;
}

// ---- the real server ---------------------------------------------------------------

using locksim::real::SyncClient;

struct RealRates {
  double get, set_nx_px, compare_and_delete;
};

RealRates bench_real(SyncClient& client, int depth) {
  auto send = [&client](const Command& c) { client.append(c); };
  auto receive = [&client](int n) { client.drain(n); };
  const Command set_value{"SET", "lock", "token"};
  const Command get{"GET", "lock"};
  const Command set_nx{"SET", "lock", "token", "NX", "PX", "30000"};
  const Command del{"DEL", "lock"};
  send({"SCRIPT", "LOAD", kCompareAndDelete});
  receive(1);
  send(set_value);
  receive(1);
  const Command cad{"EVAL", kCompareAndDelete, "1", "lock", "token"};
  auto batch_of = [&](const Command& c) {
    return [&, c] {
      for (int i = 0; i < depth; ++i) send(c);
      receive(depth);
    };
  };
  rate(batch_of(get), depth, 0.05);  // warm up the connection and the server
  RealRates r{};
  r.get = rate(batch_of(get), depth, 0.3);
  r.set_nx_px = rate(batch_of(set_nx), depth, 0.3);
  r.compare_and_delete = rate(
      [&] {
        for (int i = 0; i < depth; ++i) {
          send(set_value);
          send(cad);
        }
        receive(2 * depth);
      },
      depth, 0.3);
  return r;
}

void print(const char* name, double per_second) { std::printf("%s: %.3f M/s\n", name, per_second / 1e6); }

}  // namespace

int main() {
  const ModelRates model = bench_model();
  print("redis.model.get", model.get);
  print("redis.model.set_nx_px", model.set_nx_px);
  print("redis.model.lua_compare_and_delete", model.compare_and_delete);

  namespace real = locksim::real;
  RealRates single{}, piped{};
  try {
    real::TempDir dir("locksim-bench");
    real::RedisOptions options;
    options.binary = real::redis_server_binary();
    options.dir = dir.path();
    options.port = real::free_loopback_port();
    real::RedisProcess server(options);
    server.start();
    SyncClient client = SyncClient::loopback(server.port());
    single = bench_real(client, 1);
    piped = bench_real(client, 64);
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "bench_redis: %s; real-server figures skipped\n", e.what());
    return 0;
  }
  print("redis.real.get", single.get);
  print("redis.real.set_nx_px", single.set_nx_px);
  print("redis.real.lua_compare_and_delete", single.compare_and_delete);
  print("redis.real_pipelined64.get", piped.get);
  print("redis.real_pipelined64.set_nx_px", piped.set_nx_px);
  print("redis.real_pipelined64.lua_compare_and_delete", piped.compare_and_delete);
  std::printf("redis.ratio_model_vs_real.get: %.1f x\n", model.get / single.get);
  std::printf("redis.ratio_model_vs_real.set_nx_px: %.1f x\n", model.set_nx_px / single.set_nx_px);
  std::printf("redis.ratio_model_vs_real.lua_compare_and_delete: %.1f x\n",
              model.compare_and_delete / single.compare_and_delete);
  std::printf("redis.ratio_model_vs_real_pipelined64.get: %.1f x\n", model.get / piped.get);
  std::printf("redis.ratio_model_vs_real_pipelined64.set_nx_px: %.1f x\n", model.set_nx_px / piped.set_nx_px);
  std::printf("redis.ratio_model_vs_real_pipelined64.lua_compare_and_delete: %.1f x\n",
              model.compare_and_delete / piped.compare_and_delete);
  return 0;
}
