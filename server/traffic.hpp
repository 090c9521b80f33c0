#pragma once
// What the front-end does to a client's traffic besides running it (internal): CLIENT
// PAUSE holding commands, LOCKSIM.FAULT rules aimed at chosen clients and commands,
// connections refused for a while, MONITOR's stream, and the counts INFO reports.
#include <asio.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "locksim/sim/redis/reply.hpp"
#include "locksim/sim/redis/resp.hpp"
#include "locksim/sim/redis/server.hpp"

namespace locksim::server {

class Connection;

// One LOCKSIM.FAULT rule: which commands of which clients it hits, and how.
struct FaultRule {
  enum class Kind { Delay, DropReply, DropRequest, Close, Error };
  uint64_t id = 0;
  Kind kind = Kind::Delay;
  int64_t delay_ms = 0;     // Delay: the reply waits this long
  std::string error;        // Error: the reply instead of running the command
  std::optional<redis::ConnectionId> client;
  std::string name, addr;   // globs on CLIENT SETNAME's name and the peer address (empty: any)
  std::string command;      // glob on the lower-case name, "client|kill" for subcommands (empty: any)
  std::string key;          // glob one of the command's keys must match (empty: any)
  bool handshakes = false;  // also HELLO, AUTH, SELECT, CLIENT SETNAME/SETINFO/ID/GETNAME
  int64_t remaining = -1;   // commands it may still hit (-1: no limit)
  int64_t until_ms = -1;    // host time it ends (-1: never)
  uint64_t hits = 0;

  std::string describe(int64_t now_ms) const;
};

// What happens to one command (screen_command).
struct Verdict {
  enum class Action { Run, Hold, Skip, Close, Error } action = Action::Run;
  bool drop_reply = false;
  int64_t delay_ms = 0;
  std::string error;
};

// CLIENT TRACKING's settings for one client (its invalidation messages: tracking.hpp).
struct ClientTracking {
  bool on = false, bcast = false, optin = false, optout = false, noloop = false;
  int caching = -1;  // CLIENT CACHING yes (1) or no (0) for the next command; -1: not given
  int64_t redirect = 0;
  std::vector<std::string> prefixes;
};

struct Traffic {
  explicit Traffic(asio::io_context& io) : pause_timer(io), idle_timer(io) {}

  const int64_t started_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
  size_t peak_rss = 0;  // INFO used_memory_peak: the largest resident size INFO saw

  // CLIENT PAUSE: until this host time, every command (or only writes) waits.
  int64_t pause_until_ms = 0;
  bool pause_writes_only = false;
  asio::steady_timer pause_timer;

  std::vector<FaultRule> rules;
  uint64_t next_rule_id = 1;
  int64_t refuse_until_ms = 0;  // new connections are closed at once until then

  std::vector<redis::ConnectionId> monitors;

  int64_t idle_timeout_s = 0;  // CONFIG SET timeout: idle clients are closed (0: never)
  asio::steady_timer idle_timer;

  uint64_t connections_received = 0, connections_rejected = 0, commands_processed = 0;
  uint64_t net_input_bytes = 0, net_output_bytes = 0;
};

}  // namespace locksim::server

#include "locksim/server/server.hpp"

namespace locksim::server {

// Before a command runs: held while CLIENT PAUSE lasts, else what the first fault rule
// that selects it does. LOCKSIM.* and CLIENT UNPAUSE are never held nor faulted.
Verdict screen_command(Server::Core& core, Connection& conn, const redis::Command& argv);
// After it ran: the counts INFO reports, and the line MONITOR clients receive.
// `reply` is what was written for it (empty when nothing was).
// One command's counts (INFO stats); `counted_by_model`: the model ran it and counted it in
// commandstats and errorstats, else the front-end answered it and the model is told.
void note_command(Server::Core& core, Connection& conn, const redis::Command& argv, std::string_view reply,
                  bool counted_by_model);
// A command the front-end answered, for INFO commandstats and errorstats (kept in the
// model): `reply` is its RESP text, or at least "-<error>" / "+".
// `refused`: refused when queued in MULTI (a rejected call).
void note_frontend_command(Server::Core& core, const redis::Command& argv, std::string_view reply,
                           bool refused = false);
// CONFIG RESETSTAT: INFO's counts (Stats, Commandstats, Errorstats) start again from zero.
void reset_stats(Traffic& traffic);
// A new connection: false while LOCKSIM.FAULT REFUSE lasts (the caller closes it).
bool admit_connection(Server::Core& core);

// CLIENT PAUSE ms [WRITE|ALL] (a later pause only ever extends it) and CLIENT UNPAUSE.
void pause_clients(Server::Core& core, int64_t ms, bool writes_only);
void unpause_clients(Server::Core& core);

// CONFIG SET timeout: a client idle this long is closed, checked every second as Redis's
// clientsCron does (blocked clients and MONITOR are spared); 0 turns it off.
void set_idle_timeout(Server::Core& core, int64_t seconds);

// LOCKSIM.FAULT ADD|LIST|CLEAR|REFUSE (fault_command.cpp).
redis::Reply run_fault_command(Server::Core& core, const redis::Command& argv);

// The commands the front-end answers itself (command_docs.cpp).
bool is_frontend_command(std::string_view lower_name);
// The keys a command names (by Redis 7.0's key positions; command_docs.cpp).
std::vector<std::string_view> command_keys(const redis::Command& argv);

}  // namespace locksim::server
