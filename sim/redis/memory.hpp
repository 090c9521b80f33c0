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

namespace locksim::redis {

inline constexpr const char* kOomError = "OOM command not allowed when used memory > 'maxmemory'.";

// The data set's size in bytes over every database: keys, values and a fixed overhead per key.
size_t dataset_bytes(const Server::State& server);

// The OOM error when `command` may grow the data set and it is over the cap;
// otherwise nothing (and the command's possible growth is counted).
std::optional<Reply> refuse_if_over_maxmemory(Server::State& server, const CommandSpec& spec, const Command& command);

}  // namespace locksim::redis
