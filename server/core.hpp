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
#include "locksim/server/script_watch.hpp"
#include "locksim/server/slowlog.hpp"
#include "locksim/server/server.hpp"
#include "locksim/server/tracking.hpp"
#include "locksim/server/traffic.hpp"
#include "locksim/sim/redis/server.hpp"

namespace locksim::server {

class Connection;

struct Server::Core {
  explicit Core(Options opts);

  Options options;
  // One thread does all the I/O (other threads only post to it): the reactor needs no
  // locks on its descriptors (a lock and an unlock a socket operation, per request).
  asio::io_context io{ASIO_CONCURRENCY_HINT_UNSAFE_IO};
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
  SlowLog slowlog;  // SLOWLOG's entries (slowlog.hpp), fed by Connection::execute
  TrackingTable tracking_table;  // CLIENT TRACKING's keys and readers (tracking.hpp)
  Traffic traffic{io};  // CLIENT PAUSE, LOCKSIM.FAULT rules, MONITOR, INFO's counts (traffic.hpp)

  void accept_tcp();
  void accept_local();
  // After an accept error (EMFILE: out of descriptors) accepting waits a moment instead of
  // spinning; one log line per episode. A timer per acceptor: re-arming a shared one
  // cancelled the other acceptor's wait, and that acceptor never accepted again.
  asio::steady_timer tcp_backoff{io}, local_backoff{io};
  bool accept_failing = false;
  void accept_failed(const std::error_code& ec, asio::steady_timer& backoff, void (Core::*again)());
  void log(std::string_view line) const;
  void fit_maxclients_to_descriptors();
  // maxmemory-clients: the clients' buffers together; the biggest ones are closed
  // until they fit (Redis's client eviction). Run on the tick.
  void evict_clients();
  size_t clients_memory() const;  // the open clients' query and output buffers together
  // clients_memory's running total: each connection reports its own change
  // (Connection::report_memory), so the model's check before every write reads one
  // number instead of walking every client.
  size_t clients_bytes = 0;
  template <class Socket>
  void admit(Socket socket, bool is_tcp);

  void pause_for(int64_t ms);
  // Closes every connection but `keep` (0 keeps none); returns how many.
  size_t drop_all_but(redis::ConnectionId keep);
  // Closes a connection (CLIENT KILL, LOCKSIM.DROP): the one whose command runs now
  // after its reply, as Redis does; false if there is no such (open) connection.
  bool drop(redis::ConnectionId id);
  void restart(redis::ConnectionId keep);
  void shutdown();

  // Connection lifetime. A closed connection's socket closes at once, but what it
  // holds - its Connection, its model state (MULTI, WATCH, a blocked command,
  // subscriptions, the outbox) - is released in one place, release_retired(), never
  // while a command runs: the command that killed it (an EXEC, say) may still be
  // running on that state.
  redis::ConnectionId running = 0;          // the connection whose command runs now
  int command_depth = 0;                    // > 0 while a command runs
  std::vector<redis::ConnectionId> retired; // closed, their state not yet released
  bool release_posted = false;
  void retire(redis::ConnectionId id);      // from Connection::close
  void release_retired();                   // after the command; no-op inside one
  // Runs one command of `id` (counts the depth, releases the retired afterwards).
  template <class F>
  void run_command(redis::ConnectionId id, F&& f);

  // A script past busy-reply-threshold: the other clients are served from inside it
  // (script_watch.hpp); the model, the clock-driven work and RESTART wait for its end.
  ScriptWatch script_watch{*this};
  bool script_busy = false;
  bool restart_pending = false;  // a restart asked for during a busy script

  // CONFIG SET parameters that change nothing in the model (persistence, encodings,
  // slowlog): CONFIG GET answers what was set (config_set.cpp).
  std::map<std::string, std::string> accepted_config{
      {"appendfsync", "everysec"}, {"slowlog-log-slower-than", "10000"}, {"slowlog-max-len", "128"}};

  // Runs f on the server's thread and waits for its result (directly if not running).
  template <class F>
  auto call(F f) -> decltype(f());
};

template <class F>
void Server::Core::run_command(redis::ConnectionId id, F&& f) {
  const redis::ConnectionId outer = running;
  running = id;
  ++command_depth;
  struct Restore {
    Server::Core& core;
    redis::ConnectionId outer;
    ~Restore() {
      core.running = outer;
      --core.command_depth;
    }
  } restore{*this, outer};
  f();
}

// CONFIG GET of the server's limits and protected mode (limits_config.cpp): the
// parameters and their values.
std::vector<std::pair<std::string, std::string>> limit_parameters(const Server::Core& core);

// LOCKSIM.* over the wire (admin_commands.cpp).
redis::Reply run_admin_command(Server::Core& core, Connection& caller, const redis::Command& argv);
// LOCKSIM.ENTER/EXIT/WRITE, a trial's marks (trial_commands.cpp); name: "enter", "exit" or "write".
redis::Reply run_trial_command(Server::Core& core, Connection& caller, const redis::Command& argv, std::string_view name);

}  // namespace locksim::server
