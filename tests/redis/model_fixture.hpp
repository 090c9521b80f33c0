#pragma once
// A server with one connection at a controllable clock, for the model's unit tests.
#include <initializer_list>
#include <string>

#include "locksim/sim/redis/server.hpp"
#include "locksim/sim/redis/sha1.hpp"

namespace locksim::redis::testing {

struct Model {
  explicit Model(ServerOptions options = {}) : server(options), conn(server.connect()) {}

  Reply run(std::initializer_list<std::string> args) { return server.execute(conn, Command(args), now); }
  Reply run_on(ConnectionId c, std::initializer_list<std::string> args) {
    return server.execute(c, Command(args), now);
  }
  // The reply in its one-line debug form, which keeps expectations short.
  std::string text(std::initializer_list<std::string> args) { return to_string(run(args)); }

  Server server;
  ConnectionId conn;
  int64_t now = 1'700'000'000'000;
};

// What Redis appends to an error raised inside a script.
inline std::string suffix(const std::string& script) { return " script: " + sha1_hex(script) + ", on @user_script:1."; }

}  // namespace locksim::redis::testing
