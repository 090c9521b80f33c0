#pragma once
// The Redis model embedded in a unit test, with a virtual clock: nothing
// expires until the test advances time, and then exactly what Redis would
// expire has expired.
//
//   locksim::testing::VirtualRedis redis;
//   redis.run("SET lock me NX PX 100");          // redis-cli quoting
//   redis.advance_ms(100); CHECK(redis.text("GET lock") == "\"me\"");  // expired after, not at, the deadline
//   redis.advance_ms(1);   CHECK(redis.run("GET lock").is_nil());
//
// The model is the one the simulator runs (Lua scripts included); see
// docs/redis-model.md for what it covers.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/sim/redis/server.hpp"

namespace locksim::testing {

class VirtualRedis {
 public:
  // Time starts at start_ms on the server's clock (Unix milliseconds).
  explicit VirtualRedis(int64_t start_ms = 1'700'000'000'000, redis::ServerOptions options = {});

  // One command on the default connection: a line with redis-cli quoting, or
  // the arguments themselves. A line with unbalanced quotes throws
  // std::invalid_argument.
  redis::Reply run(std::string_view line);
  redis::Reply command(const std::vector<std::string>& args);
  // The reply as redis-cli prints it: OK, (nil), (integer) 1, "abc", (error) ERR ...
  std::string text(std::string_view line);

  // More clients, each with its own MULTI/WATCH state.
  redis::ConnectionId connect();
  redis::Reply run_on(redis::ConnectionId conn, std::string_view line);

  void advance_ms(int64_t ms);  // throws std::invalid_argument when ms < 0
  int64_t now_ms() const { return now_ms_; }
  // A restart without persistence: every key and cached script forgotten.
  void restart() { server_.flushall(); }

  redis::Server& server() { return server_; }

 private:
  redis::Server server_;
  redis::ConnectionId default_conn_;
  int64_t now_ms_;
};

}  // namespace locksim::testing
