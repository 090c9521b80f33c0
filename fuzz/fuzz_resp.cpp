// The RESP command decoder as a server reads a socket: any bytes give a command,
// "need more", or a RespError, consuming only bytes it was given. Numbers are read
// as Redis's string2ll reads them (no "$03", "$+3"), so a decoded command re-encodes
// to exactly the bytes it was decoded from.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "locksim/sim/redis/resp.hpp"

using namespace locksim::redis;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  for (int i = 0; i < 64 && !input.empty(); ++i) {
    std::optional<DecodedCommand> decoded;
    try {
      decoded = decode_command(input);
    } catch (const RespError&) {
      return 0;
    }
    if (!decoded) return 0;
    if (decoded->consumed == 0 || decoded->consumed > input.size()) std::abort();
    // What was decoded encodes to the bytes it came from, and decodes back to itself.
    if (!decoded->command.empty()) {
      const std::string again = encode_resp(decoded->command);
      if (again != input.substr(0, decoded->consumed)) std::abort();
      auto back = decode_command(again);
      if (!back || back->command != decoded->command || back->consumed != again.size()) std::abort();
    }
    input.remove_prefix(decoded->consumed);
  }
  return 0;
}
