#pragma once
// `locksim serve`: the Redis model as a real server any Redis client can use, over TCP
// and a Unix socket, single-threaded like Redis (standalone Asio). Time runs with the
// host's clock or stands still until advanced, and faults (pause, dropped connections,
// delayed replies, restart, clock jumps) can be injected over the wire (LOCKSIM.*) or
// from C++. Real time lives here, never in the simulator.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "locksim/server/clock.hpp"
#include "locksim/server/limits.hpp"
#include "locksim/sim/redis/server.hpp"

namespace locksim::server {

class TrialBoard;  // trial_board.hpp

// The longest PAUSE or DELAY (a year): a steady-clock deadline this far ahead fits
// the host's clock without overflow; longer ones are refused.
inline constexpr int64_t kMaxDurationMs = 365LL * 24 * 3600 * 1000;

struct Options {
  std::string bind = "127.0.0.1";
  int port = 6379;        // 0 picks a free port (read it with Server::port()); -1: no TCP
  std::string unix_path;  // empty: no Unix socket
  TimeMode time = TimeMode::Wall;
  std::string requirepass;  // empty: no AUTH needed
  size_t maxclients = 10000;  // lowered at start to what the descriptor limit allows (logged)
  // Without a password, only loopback and Unix-socket clients are served (Redis's default).
  bool protected_mode = true;
  int64_t idle_timeout_s = 0;  // `timeout`: a client idle this long is closed (0: never)
  ClientLimits limits;  // input, output and client-memory limits (limits.hpp)
  redis::ServerOptions model;
  // Where the server's log lines go (warnings, closed clients); default: stderr.
  std::function<void(std::string_view)> log;
  bool stop_on_signals = false;  // run(): SIGINT/SIGTERM stop the server (the program)
  // Where LOCKSIM.ENTER/EXIT/WRITE marks go (shared by a trial's servers); none: a board of its own.
  std::shared_ptr<TrialBoard> trial;
};

class Server {
 public:
  // Binds at once; throws std::system_error (address in use, bad path) if it cannot.
  explicit Server(Options options = {});
  ~Server();  // stops the server and joins its thread
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  uint16_t port() const;  // the TCP port actually bound (0 without TCP)
  const std::string& unix_path() const;

  void run();    // serves on the calling thread until stop()
  void start();  // serves on a background thread (for tests in the same process)
  void stop();   // from any thread, also from a signal handler's loop; idempotent

  // Controls, callable from any thread; the same as the LOCKSIM.* commands.
  int64_t now_ms();
  // Clock moves and durations out of range (a negative advance, a clock leaving
  // 1970..2262, a pause or delay over kMaxDurationMs) throw std::out_of_range.
  void advance(int64_t ms);  // ms >= 0
  void jump(int64_t ms);     // either sign
  void freeze();
  void resume();
  void pause(int64_t ms);  // every client stalls, as under SIGSTOP
  size_t drop_all();       // closes every connection; returns how many
  void delay(int64_t ms);  // every reply is held back this long (0: off)
  void restart();          // all data forgotten and all connections closed
  size_t client_count();

  struct Core;

 private:
  std::unique_ptr<Core> core_;
};

}  // namespace locksim::server
