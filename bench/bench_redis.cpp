// Throughput of the Redis model (direct calls) against a real redis-server over
// a loopback TCP connection with hiredis, unpipelined and pipelined 64 deep.
// Prints "name: value unit" lines; medians of 5 runs.
#include <hiredis/hiredis.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "lock/scripts.hpp"
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

std::string find_redis_server() {
  for (const char* dir : {"/usr/bin", "/usr/local/bin", "/usr/sbin"}) {
    std::string path = std::string(dir) + "/redis-server";
    if (::access(path.c_str(), X_OK) == 0) return path;
  }
  return {};
}

struct RealServer {
  pid_t pid = -1;
  int port = 0;
  std::string dir;
  ~RealServer() {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      int status = 0;
      ::waitpid(pid, &status, 0);
    }
    std::error_code ignored;
    if (!dir.empty()) std::filesystem::remove_all(dir, ignored);
  }
};

bool start(RealServer& server, const std::string& binary) {
  char dir[] = "/tmp/locksim-bench-XXXXXX";
  if (!::mkdtemp(dir)) return false;
  server.dir = dir;
  for (int attempt = 0; attempt < 20; ++attempt) {
    const int port = 20000 + (::getpid() * 7 + attempt * 131) % 40000;
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(1);
      const std::string port_text = std::to_string(port);
      ::execl(binary.c_str(), binary.c_str(), "--port", port_text.c_str(), "--bind", "127.0.0.1", "--save", "",
              "--appendonly", "no", "--dir", dir, "--daemonize", "no", "--loglevel", "warning", "--logfile",
              (std::string(dir) + "/redis.log").c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    for (int wait = 0; wait < 200; ++wait) {
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid) break;  // port taken: try another
      redisContext* probe = redisConnect("127.0.0.1", port);
      const bool up = probe && !probe->err;
      if (probe) redisFree(probe);
      if (up) {
        server.pid = pid;
        server.port = port;
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
  }
  return false;
}

void send(redisContext* ctx, const Command& c) {
  std::vector<const char*> argv;
  std::vector<size_t> len;
  for (const auto& a : c) {
    argv.push_back(a.data());
    len.push_back(a.size());
  }
  redisAppendCommandArgv(ctx, static_cast<int>(argv.size()), argv.data(), len.data());
}

void receive(redisContext* ctx, int n) {
  for (int i = 0; i < n; ++i) {
    void* reply = nullptr;
    if (redisGetReply(ctx, &reply) != REDIS_OK) {
      std::fprintf(stderr, "bench_redis: connection to redis-server failed\n");
      std::exit(1);
    }
    freeReplyObject(reply);
  }
}

struct RealRates {
  double get, set_nx_px, compare_and_delete;
};

RealRates bench_real(redisContext* ctx, int depth) {
  const Command set_value{"SET", "lock", "token"};
  const Command get{"GET", "lock"};
  const Command set_nx{"SET", "lock", "token", "NX", "PX", "30000"};
  const Command del{"DEL", "lock"};
  send(ctx, {"SCRIPT", "LOAD", kCompareAndDelete});
  receive(ctx, 1);
  send(ctx, set_value);
  receive(ctx, 1);
  const Command cad{"EVAL", kCompareAndDelete, "1", "lock", "token"};
  auto batch_of = [&](const Command& c) {
    return [&, c] {
      for (int i = 0; i < depth; ++i) send(ctx, c);
      receive(ctx, depth);
    };
  };
  rate(batch_of(get), depth, 0.05);  // warm up the connection and the server
  RealRates r{};
  r.get = rate(batch_of(get), depth, 0.3);
  r.set_nx_px = rate(batch_of(set_nx), depth, 0.3);
  r.compare_and_delete = rate(
      [&] {
        for (int i = 0; i < depth; ++i) {
          send(ctx, set_value);
          send(ctx, cad);
        }
        receive(ctx, 2 * depth);
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

  const std::string binary = find_redis_server();
  RealServer server;
  if (binary.empty() || !start(server, binary)) {
    std::fprintf(stderr, "bench_redis: no redis-server could be started; real-server figures skipped\n");
    return 0;
  }
  redisContext* ctx = redisConnect("127.0.0.1", server.port);
  if (!ctx || ctx->err) {
    std::fprintf(stderr, "bench_redis: cannot connect to redis-server\n");
    return 1;
  }
  const RealRates single = bench_real(ctx, 1);
  const RealRates piped = bench_real(ctx, 64);
  redisFree(ctx);
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
