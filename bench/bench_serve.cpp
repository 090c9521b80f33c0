// `locksim serve` against a real redis-server, both started here in the same run and
// measured with redis-benchmark -t get,set,incr,lpush -P 16 -q. Prints, per command,
// requests per second of each and their ratio (goal: >= 1.0x on GET and SET). One run per
// command: redis-benchmark stops at an error reply, and the model may lack a command.
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "locksim/server/server.hpp"
#include "locksim/sim/redis/server.hpp"

namespace {
using Rates = std::map<std::string, double>;  // command -> requests per second

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

bool can_connect(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

// redis-server on a free port, persistence off; killed when this object dies.
struct RedisServerProcess {
  int port = free_port();
  pid_t pid = -1;
  RedisServerProcess() {
    pid = ::fork();
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      std::string p = std::to_string(port);
      ::execlp("redis-server", "redis-server", "--port", p.c_str(), "--bind", "127.0.0.1", "--save", "", "--appendonly",
               "no", "--loglevel", "warning", "--logfile", "/dev/null", nullptr);
      ::_exit(127);
    }
    for (int i = 0; i < 500 && !can_connect(port); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ~RedisServerProcess() {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
};

// One redis-benchmark per command: an error reply (a command the model lacks) stops it.
Rates run_benchmark(int port, int requests, const std::string& test) {
  const std::string command = "redis-benchmark -h 127.0.0.1 -p " + std::to_string(port) + " -n " +
                              std::to_string(requests) + " -t " + test + " -P 16 -q 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  std::string output;
  char buffer[4096];
  while (pipe && std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
  if (pipe) ::pclose(pipe);
  Rates rates;
  static const std::regex line(R"(([A-Z_]+): ([0-9.]+) requests per second)");
  for (std::sregex_iterator it(output.begin(), output.end(), line), end; it != end; ++it)
    rates[(*it)[1]] = std::stod((*it)[2]);
  return rates;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
}  // namespace

int main(int argc, char** argv) {
  const int requests = argc > 1 ? std::stoi(argv[1]) : 200000;
  locksim::server::Options options;
  options.port = 0;
  locksim::server::Server serve(options);
  serve.start();
  RedisServerProcess redis;
  if (!can_connect(redis.port)) {
    std::cerr << "bench_serve: redis-server did not start (install redis-server)\n";
    return 1;
  }
  // Paired runs, alternating, so that load from elsewhere on the machine hits both alike;
  // the medians of 5 rounds (of the rates and of the per-round ratios).
  constexpr int kRounds = 5;
  std::map<std::string, std::vector<double>> ours, theirs, ratios;
  locksim::redis::Server model;  // commands the model does not have are not compared
  const auto probe = model.connect();
  for (const char* test : {"get", "set", "incr", "lpush"}) {
    std::string name = test;
    for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (model.execute(probe, {name}, 0).str.starts_with("ERR unknown command")) {
      std::cerr << "bench_serve: " << name << " not compared: the model does not have it\n";
      continue;
    }
    for (int round = 0; round < kRounds; ++round) {
      Rates a = run_benchmark(serve.port(), requests, test), b = run_benchmark(redis.port, requests, test);
      if (!a.count(name) || !b.count(name) || b[name] <= 0) continue;
      ours[name].push_back(a[name]);
      theirs[name].push_back(b[name]);
      ratios[name].push_back(a[name] / b[name]);
    }
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
  };
  for (const auto& [name, ratio] : ratios) {
    std::cout << "serve_" << lower(name) << ": " << static_cast<int64_t>(median(ours[name])) << " requests/s\n";
    std::cout << "redis_" << lower(name) << ": " << static_cast<int64_t>(median(theirs[name])) << " requests/s\n";
    std::cout << "serve_vs_redis_" << lower(name) << ": " << median(ratio) << " x\n";
  }
  return 0;
}
