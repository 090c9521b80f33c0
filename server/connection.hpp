#pragma once
// One client of the server: reads requests, runs them on the model in order, and
// writes the replies of a whole read in one write (internal).
#include <asio.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "locksim/server/core.hpp"
#include "locksim/server/request_parser.hpp"
#include "locksim/server/resp3_forms.hpp"
#include "locksim/sim/redis/resp3.hpp"

namespace locksim::server {

using Socket = asio::generic::stream_protocol::socket;

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(Server::Core& core, Socket socket, redis::ConnectionId id, bool is_tcp);

  void start();
  // Closes the socket now; pending replies are lost (a dropped connection). What the
  // connection holds is released by the core after the command that runs (retire).
  void close();
  bool closed() const { return closed_; }
  // Continues after a pause or a push: runs what was read, writes, reads more.
  void pump();

  redis::ConnectionId id() const { return id_; }
  // Replies from the model's outbox: the late reply of a blocked command, else pushes.
  void receive(std::vector<redis::Reply>& replies);
  // A push of the front-end's own (CLIENT TRACKING's invalidation): after the reply of a
  // command of this client that runs now, else at once.
  void push_out(redis::Reply reply);
  // RESET's part in the front-end: RESP2, no name, no MULTI queue.
  void reset_connection_state();
  // The CLIENT INFO / CLIENT LIST line (without the newline).
  std::string info_line() const;
  // What the client holds: its query buffer, the arguments read, the replies not yet
  // written (maxmemory-clients).
  size_t memory_bytes() const;
  // Brings the core's running total of the clients' memory up to date with this one's
  // buffers (closed: none). Called after whatever changes them, before the loop goes on.
  void report_memory();
  bool subscribed() const { return subscriptions_ > 0; }  // to channels or patterns (CLIENT LIST TYPE pubsub)
  const std::string& peer() const { return peer_; }
  const std::string& local_address() const { return local_; }
  int64_t age_seconds() const;

  // Front-end state the connection commands change.
  redis::Protocol protocol = redis::Protocol::Resp2;
  bool authenticated = false;
  bool close_after_reply = false;
  std::string name;
  // CLIENT REPLY: OFF silences every reply, SKIP the next command's; the CLIENT REPLY
  // OFF/SKIP command itself answers nothing (reply_suppressed).
  bool reply_off = false, skip_next = false, reply_suppressed = false;
  // CLIENT REPLY ON: every reply from this one on, even if SKIP came just before (Redis
  // clears its skip flags before it answers OK).
  void replies_on() { reply_off = skip_next = skipping_ = false; }
  bool monitor = false;      // MONITOR: receives every other client's commands
  ClientTracking tracking;   // CLIENT TRACKING's settings
  int64_t hold_reply_ms = 0;  // the next write waits this long (a DELAY fault, DEBUG SLEEP)
  int64_t last_active_ms = Clock::host_ms();  // the last read (CONFIG SET timeout)

 private:
  void pump_io();  // pump() but the memory report
  void start_read();
  void on_read(const std::error_code& ec, size_t n);
  bool write_at_once();
  void start_write();
  void write_now();
  void on_written(const std::error_code& ec);
  void run_commands();
  void execute(const redis::Command& argv, const Verdict& verdict);
  void answer(const redis::Command& argv);
  void write_exec_reply(const redis::Reply& reply);
  void append_reply_releasing(redis::Reply reply, Resp3Form form);
  void track_transaction(const redis::Command& argv, const redis::Reply& reply);
  redis::Reply execute_on_model(const redis::Command& argv);
  // The RESP3 form of argv's reply; RESP2 writes every reply plainly (no need to look).
  Resp3Form form_of(const redis::Command& argv) const {
    return protocol == redis::Protocol::Resp2 ? Resp3Form::Plain : resp3_form(argv);
  }
  void prepare_input_space();
  ProtocolLimits protocol_limits() const;
  // client-output-buffer-limit for this client's class; closes it (logged) when reached.
  void check_output_limits();
  void note_subscriptions(const redis::Reply& reply);
  void note_slow(int64_t duration_us, const redis::Command& argv);

  Server::Core& core_;
  Socket socket_;
  redis::ConnectionId id_;
  bool is_tcp_;
  int64_t created_ms_;
  std::string peer_, local_;

  std::vector<char> in_;
  size_t in_begin_ = 0, in_end_ = 0;
  RequestParser parser_;
  redis::Command argv_;
  std::string out_;      // replies produced, not yet handed to the socket
  std::string sending_;  // replies the socket is writing
  bool reading_ = false, writing_ = false, closed_ = false;
  std::vector<redis::Reply> pending_pushes_;  // push_out while its command runs
  bool executing_ = false;  // its command runs (a busy script may serve the others meanwhile)
  bool answered_by_model_ = false;  // the command now running went to the model (which counts it)
  bool yielded_ = false;  // its turn ended with commands left to run (kTurn)
  bool waiting_ = false;                       // a blocking command (BLPOP) waits for its reply from the outbox
  Resp3Form blocked_form_ = Resp3Form::Plain;  // ... and is typed as this in RESP3
  bool held_ = false;
  std::chrono::steady_clock::time_point command_ended_;  // when the last command's run ended (the turn's clock)  // argv_ waits for CLIENT PAUSE to end (traffic.hpp)
  bool skipping_ = false;                      // this command's reply is skipped (CLIENT REPLY SKIP came before)
  bool in_multi_ = false;                      // MULTI answered OK; EXEC, DISCARD or RESET not yet
  std::vector<redis::Command> queued_;         // the commands MULTI queued, in order
  asio::steady_timer delay_timer_;
  int64_t subscriptions_ = 0;     // channels and patterns, as the last (un)subscribe notice counted them
  int64_t soft_limit_since_ = 0;  // host ms since the output is over its soft limit (0: it is not)
  size_t reported_bytes_ = 0;     // memory_bytes() as last added to core_.clients_bytes
};

// Connection commands the front-end answers itself (HELLO, AUTH, CLIENT, QUIT, CONFIG,
// COMMAND, INFO, SELECT); nullopt for the model's commands. (frontend_commands.cpp)
std::optional<redis::Reply> run_frontend_command(Server::Core& core, Connection& conn, const redis::Command& argv);
// The front-end's commands that MULTI queues (in the model's queue, run by its EXEC).
bool queued_for_frontend(std::string_view name);
// Has the model queue them and hand them back at EXEC (redis::HostCommands).
void wire_frontend_commands(Server::Core& core);

}  // namespace locksim::server
