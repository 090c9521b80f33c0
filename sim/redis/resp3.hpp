#pragma once
// Reply encoding for a network front-end: RESP2, or RESP3 once a client said HELLO 3,
// appended to an output buffer with no temporary strings.
#include <cstdint>
#include <string>

#include "locksim/sim/redis/reply.hpp"

namespace locksim::redis {

enum class Protocol : uint8_t { Resp2 = 2, Resp3 = 3 };

// What a top-level array stands for: RESP3 sends maps ('%'), sets ('~') and out-of-band
// pushes ('>': pub/sub messages, SUBSCRIBE's notices) with their own types; RESP2 sends
// every one as an array.
enum class Aggregate : uint8_t { Array, Map, Set, Push };

void append_reply(std::string& out, const Reply& reply, Protocol protocol, Aggregate top = Aggregate::Array);

}  // namespace locksim::redis
