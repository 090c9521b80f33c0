#pragma once
// RESP2 wire encoding of replies and commands, and an incremental decoder.
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/sim/redis/reply.hpp"

namespace locksim::redis {

using Command = std::vector<std::string>;

// A reply as a server writes it (+OK\r\n, $3\r\nabc\r\n, *-1\r\n ...).
std::string encode_resp(const Reply& reply);
// A command as a client writes it: an array of bulk strings.
std::string encode_resp(const Command& command);

// Thrown when the input cannot be RESP2 (bad type byte, bad length, missing CRLF).
struct RespError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Decoded {
  Reply reply;
  size_t consumed = 0;  // bytes of the input that made up this reply
};
// Decodes one reply from the front of `input`; nullopt if more bytes are needed.
std::optional<Decoded> decode_resp(std::string_view input);

struct DecodedCommand {
  Command command;
  size_t consumed = 0;
};
// Decodes one command (array of bulk strings) as a server reads it; nullopt if incomplete.
std::optional<DecodedCommand> decode_command(std::string_view input);

}  // namespace locksim::redis
