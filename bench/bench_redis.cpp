// Throughput of the Redis model (direct calls) against a real redis-server over
// a loopback TCP connection with hiredis, unpipelined and pipelined 64 deep.
// Prints "name: value unit" lines; medians of 5 runs. The same commands on
// both sides: GET of a present key; SET NX PX that wins half the time (the
// share that won is printed); a Lua compare-and-delete that finds its token
// and deletes (the keys are set before the timing, not inside it).
// The model is timed in CPU time, the real server (two processes) in wall time;
// the embedded peers (fakeredis, ioredis-mock: bench/peers/), where installed, in CPU time.
// The model alone is also timed on plain SET, INCR, LPUSH and the compare-and-delete by
// EVALSHA (the commands a dispatch change shows on, each its own line).
//   bench_redis [--model-only]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "cpu_clock.hpp"
#include "locksim/lock/scripts.hpp"
#include "locksim/real/process.hpp"
#include "locksim/real/sync_client.hpp"
#include "locksim/sim/redis/server.hpp"

namespace {

using WallClock = std::chrono::steady_clock;
using locksim::bench::CpuClock;
using locksim::redis::Command;
using locksim::redis::Server;

// The lock's own release script, as the lock algorithms send it.
const std::string kCompareAndDelete(locksim::lock::scripts::kCompareAndDelete);

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Runs `batch` (which performs `ops` operations) repeatedly for ~`seconds`, 5 times; median ops/s.
// The model is timed in CPU time (bench::CpuClock), the real server in wall time.
template <class Clock = WallClock>
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

// Runs setup (untimed) then `timed` (which performs `ops` operations), 5 times; median ops/s.
template <class Clock = WallClock>
double timed_rate(const std::function<void()>& setup, const std::function<void()>& timed, int ops) {
  std::vector<double> runs;
  for (int run = 0; run < 5; ++run) {
    setup();
    const auto start = Clock::now();
    timed();
    runs.push_back(ops / std::chrono::duration<double>(Clock::now() - start).count());
  }
  return median(runs);
}

// SET NX PX over kNxKeys keys, each twice in a row: the first finds the key
// absent (or expired: PX 5 ms, and a key comes round again only after all the
// others) and wins, the second finds it held. Half win, on both sides.
constexpr int kNxKeys = 20'000;
std::vector<Command> set_nx_commands() {
  std::vector<Command> out;
  for (int i = 0; i < kNxKeys; ++i) out.push_back({"SET", "nx:" + std::to_string(i), "token", "NX", "PX", "5"});
  return out;
}

// Compare-and-delete of keys that all hold the token: they are set before the
// timing, so only the deletes are timed.
Command set_token(int i) { return {"SET", "cad:" + std::to_string(i), "token"}; }
Command compare_and_delete(int i) { return {"EVAL", kCompareAndDelete, "1", "cad:" + std::to_string(i), "token"}; }

struct Rates {
  double get = 0, set_nx_px = 0, set_nx_px_won = 0, compare_and_delete = 0;
};

// The model's other figures: commands whose cost is mostly the dispatch around them.
struct ModelRates {
  double set = 0, incr = 0, lpush = 0, evalsha_compare_and_delete = 0;
};

// Runs `command` 1000 times a batch on one connection; median ops per CPU second.
double model_rate(Server& server, locksim::redis::ConnectionId conn, const Command& command, int64_t now,
                  const Command* after_batch = nullptr) {
  return rate<CpuClock>(
      [&] {
        for (int i = 0; i < 1000; ++i) server.execute(conn, command, now);
        if (after_batch) server.execute(conn, *after_batch, now);
      },
      1000, 0.2);
}

ModelRates bench_model_more() {
  Server server;
  const auto conn = server.connect();
  const int64_t now = 1'700'000'000'000;
  ModelRates r;
  r.set = model_rate(server, conn, Command{"SET", "lock", "token"}, now);
  r.incr = model_rate(server, conn, Command{"INCR", "counter"}, now);
  // The list is deleted after each batch, so it stays at most 1000 long (that DEL is
  // timed too: one command in a thousand and one).
  const Command del{"DEL", "list"};
  r.lpush = model_rate(server, conn, Command{"LPUSH", "list", "element"}, now, &del);
  const std::string sha = server.execute(conn, Command{"SCRIPT", "LOAD", kCompareAndDelete}, now).str;
  constexpr int kKeys = 100'000;
  std::vector<Command> sets, deletes;
  for (int i = 0; i < kKeys; ++i) {
    sets.push_back(set_token(i));
    deletes.push_back({"EVALSHA", sha, "1", "cad:" + std::to_string(i), "token"});
  }
  r.evalsha_compare_and_delete = timed_rate<CpuClock>(
      [&] {
        for (const auto& c : sets) server.execute(conn, c, now);
      },
      [&] {
        for (const auto& c : deletes) server.execute(conn, c, now);
      },
      kKeys);
  return r;
}

Rates bench_model() {
  Server server;
  const auto conn = server.connect();
  int64_t now = 1'700'000'000'000;
  server.execute(conn, Command{"SET", "lock", "token"}, now);
  const Command get{"GET", "lock"};
  Rates r;
  r.get = rate<CpuClock>(
      [&] {
        for (int i = 0; i < 1000; ++i) server.execute(conn, get, now);
      },
      1000, 0.2);
  const std::vector<Command> set_nx = set_nx_commands();
  long sent = 0, won = 0;
  size_t next = 0;
  r.set_nx_px = rate<CpuClock>(
      [&] {
        for (int i = 0; i < 500; ++i, next = (next + 1) % set_nx.size()) {
          for (int twice = 0; twice < 2; ++twice) {
            ++now;  // a millisecond per command: a key comes round again long after its PX
            won += server.execute(conn, set_nx[next], now).type == locksim::redis::Reply::Type::Status;
          }
        }
        sent += 1000;
      },
      1000, 0.2);
  r.set_nx_px_won = static_cast<double>(won) / static_cast<double>(sent);
  constexpr int kKeys = 100'000;
  std::vector<Command> sets, deletes;
  for (int i = 0; i < kKeys; ++i) {
    sets.push_back(set_token(i));
    deletes.push_back(compare_and_delete(i));
  }
  r.compare_and_delete = timed_rate<CpuClock>(
      [&] {
        for (const auto& c : sets) server.execute(conn, c, now);
      },
      [&] {
        for (const auto& c : deletes) server.execute(conn, c, now);
      },
      kKeys);
  return r;
}

// ---- the real server ---------------------------------------------------------------

using locksim::real::SyncClient;

// Reads n replies; returns how many were a status reply (OK: a SET NX that won).
int receive(SyncClient& client, int n) {
  int status = 0;
  for (int i = 0; i < n; ++i) {
    void* reply = nullptr;
    if (redisGetReply(client.context(), &reply) != REDIS_OK)
      throw std::runtime_error("connection to redis-server lost");
    status += static_cast<redisReply*>(reply)->type == REDIS_REPLY_STATUS;
    freeReplyObject(reply);
  }
  return status;
}

// Sends the commands `depth` at a time, reading each group's replies.
void pipelined(SyncClient& client, const std::vector<Command>& commands, int depth) {
  for (size_t i = 0; i < commands.size(); i += static_cast<size_t>(depth)) {
    const size_t end = std::min(commands.size(), i + static_cast<size_t>(depth));
    for (size_t j = i; j < end; ++j) client.append(commands[j]);
    receive(client, static_cast<int>(end - i));
  }
}

Rates bench_real(SyncClient& client, int depth) {
  const Command get{"GET", "lock"};
  client.append({"SCRIPT", "LOAD", kCompareAndDelete});
  client.append({"SET", "lock", "token"});
  receive(client, 2);
  auto send = [&client](const Command& c) { client.append(c); };
  auto batch_of = [&](const Command& c) {
    return [&, c] {
      for (int i = 0; i < depth; ++i) send(c);
      receive(client, depth);
    };
  };
  rate(batch_of(get), depth, 0.05);  // warm up the connection and the server
  Rates r;
  r.get = rate(batch_of(get), depth, 0.3);
  const std::vector<Command> set_nx = set_nx_commands();
  long sent = 0, won = 0;
  size_t next = 0;
  r.set_nx_px = rate(
      [&] {
        for (int i = 0; i < depth; ++i, next = (next + 1) % set_nx.size()) {
          send(set_nx[next]);
          send(set_nx[next]);
        }
        won += receive(client, 2 * depth);
        sent += 2 * depth;
      },
      2 * depth, 0.3);
  r.set_nx_px_won = static_cast<double>(won) / static_cast<double>(sent);
  const int keys = depth == 1 ? 10'000 : 100'000;
  std::vector<Command> sets, deletes;
  for (int i = 0; i < keys; ++i) {
    sets.push_back(set_token(i));
    deletes.push_back(compare_and_delete(i));
  }
  r.compare_and_delete =
      timed_rate([&] { pipelined(client, sets, 64); }, [&] { pipelined(client, deletes, depth); }, keys);
  return r;
}

void print(const char* name, double per_second) { std::printf("%s: %.3f M/s\n", name, per_second / 1e6); }

// The embedded peers on the same workload, in this run (bench/peers/): each line
// they print is passed on; their figures are kept by name for the goal lines.
struct Peers {
  std::map<std::string, double> rate;  // "peer.fakeredis.get" -> ops per CPU second
  std::string beside(const std::string& what) const {
    std::string out;
    for (const char* peer : {"fakeredis", "ioredis_mock"}) {
      auto it = rate.find(std::string("peer.") + peer + "." + what);
      if (it == rate.end()) continue;
      char text[96];
      std::snprintf(text, sizeof text, "; %s %.4f M/s", peer, it->second / 1e6);
      out += text;
    }
    return out;
  }
};

Peers run_peers() {
  Peers peers;
  const std::string script = "/tmp/locksim-bench-compare-and-delete-" + std::to_string(::getpid()) + ".lua";
  if (FILE* f = std::fopen(script.c_str(), "w")) {
    std::fwrite(kCompareAndDelete.data(), 1, kCompareAndDelete.size(), f);
    std::fclose(f);
  }
  const std::string commands[] = {
      "/usr/bin/python3 " LOCKSIM_BENCH_DIR "/peers/fakeredis_peer.py " + script,
      "NODE_PATH=" LOCKSIM_NODE_MODULES " node " LOCKSIM_BENCH_DIR "/peers/ioredis_mock_peer.js " + script,
  };
  for (const std::string& command : commands) {
    FILE* out = ::popen((command + " 2>&1").c_str(), "r");
    if (!out) continue;
    char line[512];
    while (std::fgets(line, sizeof line, out)) {
      std::fputs(line, stdout);
      char name[128];
      double value = 0;
      if (std::sscanf(line, "%127[^:]: %lf M/s", name, &value) == 2 && std::string_view(name).starts_with("peer."))
        peers.rate[name] = value * 1e6;
    }
    ::pclose(out);
  }
  std::remove(script.c_str());
  return peers;
}

// The goals, each beside the real server's and the embedded peers' figures from this run.
void print_goals(const Rates& model, const Rates& piped, const Peers& peers) {
  const bool get_met = model.get >= 25e6;
  std::printf("goal.redis_get: %.2f M/s, the median of 5 rounds (goal >= 25 M/s; redis-server pipelined x64 %.3f M/s%s): %s\n",
              model.get / 1e6, piped.get / 1e6, peers.beside("get").c_str(), get_met ? "met" : "NOT met");
  const bool eval_met = model.compare_and_delete >= 1.5e6;
  std::printf(
      "goal.eval_compare_and_delete: %.3f M/s (goal >= 1.5 M/s; redis-server pipelined x64 %.3f M/s%s): %s\n",
      model.compare_and_delete / 1e6, piped.compare_and_delete / 1e6, peers.beside("lua_compare_and_delete").c_str(),
      eval_met ? "met" : "NOT met");
}

}  // namespace

int main(int argc, char** argv) {
  const Rates model = bench_model();
  print("redis.model.get", model.get);
  print("redis.model.set_nx_px", model.set_nx_px);
  std::printf("redis.model.set_nx_px_won: %.1f %%\n", 100 * model.set_nx_px_won);
  print("redis.model.lua_compare_and_delete", model.compare_and_delete);
  const ModelRates more = bench_model_more();
  print("redis.model.set", more.set);
  print("redis.model.incr", more.incr);
  print("redis.model.lpush", more.lpush);
  print("redis.model.evalsha_compare_and_delete", more.evalsha_compare_and_delete);
  if (argc > 1 && std::string_view(argv[1]) == "--model-only") return 0;  // for a profiler
  const Peers peers = run_peers();

  namespace real = locksim::real;
  Rates single, piped;
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
  std::printf("redis.real.set_nx_px_won: %.1f %%\n", 100 * single.set_nx_px_won);
  print("redis.real.lua_compare_and_delete", single.compare_and_delete);
  print("redis.real_pipelined64.get", piped.get);
  print("redis.real_pipelined64.set_nx_px", piped.set_nx_px);
  std::printf("redis.real_pipelined64.set_nx_px_won: %.1f %%\n", 100 * piped.set_nx_px_won);
  print("redis.real_pipelined64.lua_compare_and_delete", piped.compare_and_delete);
  std::printf("redis.ratio_model_vs_real.get: %.1f x\n", model.get / single.get);
  std::printf("redis.ratio_model_vs_real.set_nx_px: %.1f x\n", model.set_nx_px / single.set_nx_px);
  std::printf("redis.ratio_model_vs_real.lua_compare_and_delete: %.1f x\n",
              model.compare_and_delete / single.compare_and_delete);
  std::printf("redis.ratio_model_vs_real_pipelined64.get: %.1f x\n", model.get / piped.get);
  std::printf("redis.ratio_model_vs_real_pipelined64.set_nx_px: %.1f x\n", model.set_nx_px / piped.set_nx_px);
  std::printf("redis.ratio_model_vs_real_pipelined64.lua_compare_and_delete: %.1f x\n",
              model.compare_and_delete / piped.compare_and_delete);
  print_goals(model, piped, peers);
  return 0;
}
