// Resident memory of `locksim serve` and of redis-server after the same redis-benchmark
// run (its default tests, 50 clients), both started here as processes. Prints each
// figure and goal.serve_memory_after_benchmark: serve's RSS within 2x redis-server's.
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

namespace {
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
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

// A server process on a free port (redis-server's arguments for both); killed when it goes.
struct ServerProcess {
  int port = free_port();
  pid_t pid = -1;
  explicit ServerProcess(const std::string& program, bool is_locksim) {
    pid = ::fork();
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      const std::string p = std::to_string(port);
      std::vector<std::string> args = {program};
      if (is_locksim) args.emplace_back("serve");
      for (const char* a : {"--port", p.c_str(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                            "--loglevel", "warning", "--logfile", "/dev/null"})
        args.emplace_back(a);
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execvp(argv[0], argv.data());
      ::_exit(127);
    }
    for (int i = 0; i < 500 && !can_connect(port); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ~ServerProcess() {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
  double rss_mib() const {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line))
      if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
    return 0;
  }
};

void run_benchmark(int port, int requests) {
  const std::string command = "redis-benchmark -h 127.0.0.1 -p " + std::to_string(port) + " -n " +
                              std::to_string(requests) + " -q >/dev/null 2>&1";
  if (std::system(command.c_str()) != 0) std::cerr << "bench_serve_memory: redis-benchmark failed on " << port << "\n";
}
}  // namespace

int main(int argc, char** argv) {
  const int requests = argc > 1 ? std::stoi(argv[1]) : 100000;
  ServerProcess serve(LOCKSIM_PROGRAM, true);
  ServerProcess redis("redis-server", false);
  if (!can_connect(serve.port) || !can_connect(redis.port)) {
    std::cerr << "bench_serve_memory: a server did not start (install redis-server, build locksim)\n";
    return 1;
  }
  std::printf("serve_rss_idle: %.1f MiB\nredis_rss_idle: %.1f MiB\n", serve.rss_mib(), redis.rss_mib());
  run_benchmark(serve.port, requests);
  run_benchmark(redis.port, requests);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // clients gone, buffers freed
  const double ours = serve.rss_mib(), theirs = redis.rss_mib();
  std::printf("serve_rss_after_benchmark: %.1f MiB\nredis_rss_after_benchmark: %.1f MiB\n", ours, theirs);
  std::printf("goal.serve_memory_after_benchmark: %.2f x redis-server's (goal <= 2 x): %s\n", ours / theirs,
              ours <= 2 * theirs ? "met" : "NOT met");
  return 0;
}
