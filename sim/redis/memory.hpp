#pragma once
// maxmemory for the model (internal): once the data set is over the cap, the
// commands that may grow it are refused with Redis's own OOM error, from a
// client or from a script alike, as Redis does with maxmemory-policy noeviction.
// Usage is tracked as an upper bound (the bytes of each growing command's
// arguments) and measured exactly by walking the keys only when that bound
// crosses the cap, so the common case costs nothing per key.
#include <cstddef>
#include <optional>

#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/connection.hpp"

namespace locksim::redis {

inline constexpr const char* kOomError = "OOM command not allowed when used memory > 'maxmemory'.";

// Redis 7.0's used_memory when it holds nothing: INFO's used_memory adds it to the
// data set. In a simulation the cap (ServerOptions::maxmemory_bytes) counts the data
// alone; a host process counts its own bytes too (Server::set_host_memory).
inline constexpr size_t kEmptyServerBytes = 880'000;

// The data set's size in bytes over every database: keys, values and a fixed overhead per key.
size_t dataset_bytes(const Server::State& server);

// Over the cap (measured only when the bound of what was added since the last
// measure says it may be).
bool over_maxmemory(Server::State& server);

// Whether `spec` is one of Redis's deny-oom commands (those that may add data).
inline bool may_grow(const CommandSpec& spec) { return (spec.flags & kDenyOom) != 0; }

// The OOM error when `command` may grow the data set and it is over the cap;
// otherwise nothing (and the command's possible growth is counted).
std::optional<Reply> refuse_if_over_maxmemory(Server::State& server, const CommandSpec& spec, const Command& command);

// Redis processCommand's maxmemory rule, before a client's command runs or is
// queued: over the cap, a deny-oom command is refused, so is any command inside
// MULTI but EXEC, DISCARD, QUIT and RESET, and an EXEC whose queue holds a
// deny-oom command. The OOM error, or nothing.
std::optional<Reply> refuse_on_oom(Server::State& server, const ConnectionState& conn, const CommandSpec& spec,
                                   const Command& command);

}  // namespace locksim::redis
