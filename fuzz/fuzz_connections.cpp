// Connection lifetime in `locksim serve` (server/): any sequence of clients opening,
// sending commands (MULTI/EXEC, WATCH, blocking pops, subscriptions, CLIENT KILL of
// themselves or of others, LOCKSIM.DROP, LOCKSIM.RESTART, QUIT), reading or not, and
// closing, in any order (connection_sequence.hpp). The server must neither crash, trip
// a sanitizer nor an assertion (LOCKSIM_ASSERT on the connection-lifetime invariants),
// and must answer a fresh client afterwards with every earlier connection gone.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "connection_sequence.hpp"
#include "locksim/server/server.hpp"

namespace {
locksim::server::Server& server() {
  static const std::string path = "/tmp/locksim-fuzz-connections-" + std::to_string(::getpid()) + ".sock";
  static auto instance = [] {
    locksim::server::Options options;
    options.port = -1;
    options.unix_path = path;
    options.time = locksim::server::TimeMode::Manual;
    options.log = [](std::string_view) {};
    auto s = std::make_unique<locksim::server::Server>(options);
    s->start();
    return s;
  }();
  return *instance;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 256) return 0;
  const std::string failed = locksim::fuzz::run_connection_sequence(server(), data, size);
  if (!failed.empty()) {
    std::fprintf(stderr, "%s\n", failed.c_str());
    std::abort();
  }
  return 0;
}
