#pragma once
// The server's shared state on its one thread: the model, the clock, the clients and
// the faults in force (internal).
#include <asio.hpp>

#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "locksim/server/clock.hpp"
#include "locksim/server/server.hpp"
#include "locksim/server/traffic.hpp"
#include "locksim/sim/redis/server.hpp"

namespace locksim::server {

class Connection;

struct Server::Core {
  explicit Core(Options opts);

  Options options;
  asio::io_context io{1};
  redis::Server model;
  Clock clock;
  std::optional<asio::ip::tcp::acceptor> tcp;
  std::optional<asio::local::stream_protocol::acceptor> local;
  uint16_t port = 0;
  std::map<redis::ConnectionId, std::shared_ptr<Connection>> clients;
  std::thread thread;
  bool stopped = false;

  // Connections whose outbox in the model has replies to take (pub/sub, blocked pops).
  std::vector<redis::ConnectionId> pushed;
  asio::steady_timer tick_timer{io};
  void wire_outbox();     // listens to the model's outbox and starts the tick, if it has one
  void tick();            // the model's clock-driven work, then deliver_pushes
  void deliver_pushes();  // outbox replies to their connections' output

  int64_t reply_delay_ms = 0;
  bool paused = false;
  asio::steady_timer pause_timer{io};
  Traffic traffic{io};  // CLIENT PAUSE, LOCKSIM.FAULT rules, MONITOR, INFO's counts (traffic.hpp)

  void accept_tcp();
  void accept_local();
  template <class Socket>
  void admit(Socket socket, bool is_tcp);

  void pause_for(int64_t ms);
  // Closes every connection but `keep` (0 keeps none); returns how many.
  size_t drop_all_but(redis::ConnectionId keep);
  bool drop(redis::ConnectionId id);
  void restart(redis::ConnectionId keep);
  void shutdown();

  // Runs f on the server's thread and waits for its result (directly if not running).
  template <class F>
  auto call(F f) -> decltype(f());
};

// LOCKSIM.* over the wire (admin_commands.cpp).
redis::Reply run_admin_command(Server::Core& core, Connection& caller, const redis::Command& argv);

}  // namespace locksim::server
