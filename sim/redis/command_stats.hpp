#pragma once
// INFO commandstats and errorstats of the model (internal header), counted as Redis 7.0
// counts them: a command rejected before it runs (arity, OOM, a script's refusals) adds
// to its rejected_calls, one that ran adds a call and, if it answered an error, a
// failed call; every error reply counts once by its code (ERR, OOM, WRONGTYPE ...),
// where it is made. An error a script got from redis.call or redis.pcall was counted
// when the command made it, so the script's own error reply that passes it on is not
// counted again (Redis's ignore_error_stats_update). Time is not measured: usec is 0.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/sim/redis/reply.hpp"
#include "locksim/sim/redis/resp.hpp"

namespace locksim::redis {

struct CommandSpec;

// How Redis's processCommand words two refusals (the counts depend on them).
inline constexpr std::string_view kUnknownSubcommand = "ERR unknown subcommand '";
inline constexpr std::string_view kWrongArity = "ERR wrong number of arguments for '";

struct CommandCounts {
  uint64_t calls = 0, rejected = 0, failed = 0;
};

class CommandStats {
 public:
  // The name Redis counts a command under: "set", or "config|get" for a subcommand.
  static std::string name_of(const CommandSpec& spec, const Command& command);

  void rejected(const CommandSpec& spec, const Command& command, std::string_view error);
  void ran(const CommandSpec& spec, const Command& command, const Reply& reply, bool error_counted);
  // As ran(), for a command without subcommands (its place in the command table: `slot`)
  // that answered no error: every GET and SET of a simulation passes here.
  void ran_plain(uint16_t slot) {
    if (paused) return;
    if (slot < place_.size() && place_[slot] != 0) {
      ++by_spec_[place_[slot] - 1u].second.calls;
      return;
    }
    ++counts_of_slot(slot).calls;
  }
  void error(std::string_view text);  // one error reply, by its code
  // A command a host answered itself (`name` as Redis counts it); `reply` is its RESP text.
  // `refused`: refused before it ran (Redis's rejectCommand), e.g. when queued in MULTI.
  void host_ran(std::string_view name, std::string_view reply, bool refused = false);
  void reset();
  bool paused = false;  // a host's own query of the model (Server::query) counts nothing

  std::string commandstats_section() const;  // INFO commandstats
  std::string errorstats_section() const;    // INFO errorstats
  uint64_t total_error_replies() const { return total_errors_; }

 private:
  CommandCounts& counts_of(const CommandSpec& spec, const Command& command, bool whole_container);
  CommandCounts& counts_of_slot(size_t slot);  // a command without subcommands
  // Commands without subcommands, in the order first counted, found through place_ (their
  // place in the command table -> index + 1 here): a simulation counts a handful of
  // commands, so it holds a few entries and 2 bytes per command of the table, not a
  // counter per command.
  std::vector<std::pair<uint16_t, CommandCounts>> by_spec_;
  std::vector<uint16_t> place_;
  std::map<std::string, CommandCounts, std::less<>> by_name_;  // "config|get", and the host's commands
  std::map<std::string, uint64_t, std::less<>> errors_;  // at most 128 codes, as Redis
  uint64_t total_errors_ = 0;
};

}  // namespace locksim::redis
