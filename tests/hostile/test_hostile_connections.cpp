// fuzz_connections' sequences as regression tests: the fuzzer's own corpus
// (fuzz/corpus/fuzz_connections) replayed against `locksim serve` on a Unix socket,
// with SIGALRM arriving every millisecond as libFuzzer's -timeout makes it arrive (every
// timeout/2+1 s). A poll a signal interrupted returns EINTR at once; the fuzzer took that
// for a server that did not answer in 5 s, and CI's fuzz stage stopped on a stall that
// was not one (found with seed 99 after ~50,000 inputs; the input it blamed passed alone).
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "connection_sequence.hpp"
#include "locksim/server/server.hpp"

using namespace locksim;

namespace {
// SIGALRM every `interval_us`, handled without SA_RESTART (as libFuzzer installs it),
// for the life of this object; the old handler and timer come back after.
class AlarmStorm {
 public:
  explicit AlarmStorm(int interval_us) {
    struct sigaction action {};
    action.sa_handler = [](int) { ++count_; };
    sigemptyset(&action.sa_mask);
    action.sa_flags = 0;
    ::sigaction(SIGALRM, &action, &old_action_);
    const itimerval every{{0, interval_us}, {0, interval_us}};
    ::setitimer(ITIMER_REAL, &every, &old_timer_);
  }
  ~AlarmStorm() {
    ::setitimer(ITIMER_REAL, &old_timer_, nullptr);
    ::sigaction(SIGALRM, &old_action_, nullptr);
  }
  AlarmStorm(const AlarmStorm&) = delete;
  AlarmStorm& operator=(const AlarmStorm&) = delete;
  static int count() { return count_; }

 private:
  static inline std::atomic<int> count_{0};  // lock-free: safe in a handler
  struct sigaction old_action_ {};
  itimerval old_timer_{};
};

std::vector<uint8_t> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
}  // namespace

TEST_CASE("serve: fuzz_connections' corpus replays clean while signals interrupt every wait", "[hostile]") {
  const std::string path = "/tmp/locksim-test-connections-" + std::to_string(::getpid()) + ".sock";
  server::Options options;
  options.port = -1;
  options.unix_path = path;
  options.time = server::TimeMode::Manual;
  options.log = [](std::string_view) {};
  server::Server server(options);
  server.start();

  std::vector<std::filesystem::path> inputs;
  for (const auto& entry : std::filesystem::directory_iterator(LOCKSIM_FUZZ_CONNECTIONS_CORPUS)) inputs.push_back(entry.path());
  std::sort(inputs.begin(), inputs.end());
  // The three that stopped fuzz runs: a RESTART with a subscriber open, a BLPOP closed
  // while blocked, kills between pipelined sends.
  for (const char* name : {"restart_with_subscriber", "blocked_then_closed", "kills_between_sends"})
    REQUIRE(std::find(inputs.begin(), inputs.end(), std::filesystem::path(LOCKSIM_FUZZ_CONNECTIONS_CORPUS) / name) !=
            inputs.end());

  const int before = AlarmStorm::count();
  {
    AlarmStorm storm(1000);
    for (int round = 0; round < 40; ++round)
      for (const auto& input : inputs) {
        const std::vector<uint8_t> bytes = read_bytes(input);
        const std::string failed = fuzz::run_connection_sequence(server, bytes.data(), bytes.size());
        INFO("input " << input.filename().string() << ", round " << round);
        REQUIRE(failed.empty());
      }
  }
  // The storm did interrupt: otherwise this test would check nothing.
  CHECK(AlarmStorm::count() - before > 50);
  server.stop();
}
