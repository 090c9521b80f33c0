#pragma once
// The server's side of a long script (Redis's scriptInterrupt, internal): once a script
// has run past busy-reply-threshold in real time, the server serves its other clients
// from inside it. They get -BUSY but for the allow-busy commands (SCRIPT KILL, FUNCTION
// KILL, SHUTDOWN NOSAVE, AUTH, HELLO, QUIT, RESET, MULTI, DISCARD, WATCH, UNWATCH); the
// script's own client is read no further until it ends.
#include <chrono>

#include "locksim/server/server.hpp"
#include "locksim/sim/redis/script_host.hpp"

namespace locksim::server {

class ScriptWatch final : public redis::ScriptHost {
 public:
  explicit ScriptWatch(Server::Core& core) : core_(core) {}

  void script_started() override;
  bool script_progress(const redis::RunningScript& script) override;
  void script_ended() override;

 private:
  Server::Core& core_;
  std::chrono::steady_clock::time_point started_{};
};

}  // namespace locksim::server
