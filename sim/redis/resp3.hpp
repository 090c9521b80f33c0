#pragma once
// Reply encoding for a network front-end: RESP2, or RESP3 once a client said HELLO 3,
// appended to an output buffer with no temporary strings.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/redis/reply.hpp"

namespace locksim::redis {

enum class Protocol : uint8_t { Resp2 = 2, Resp3 = 3 };

// What a top-level array stands for: RESP3 sends maps ('%') and sets ('~') with their
// own types (HGETALL, CONFIG GET, HELLO); RESP2 sends every one as an array.
enum class Aggregate : uint8_t { Array, Map, Set };

void append_reply(std::string& out, const Reply& reply, Protocol protocol, Aggregate top = Aggregate::Array);

// An out-of-band message (pub/sub): a '>' push in RESP3, a plain array in RESP2.
void append_push(std::string& out, const std::vector<Reply>& elements, Protocol protocol);

}  // namespace locksim::redis
