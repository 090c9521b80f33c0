// The RESP command decoder as a server reads a socket: any bytes give a command,
// "need more", or a RespError; a decoded command re-encodes to the bytes consumed.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sim/redis/resp.hpp"

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
    // Inline commands are not RESP arrays: only check the arrays' round trip.
    if (input[0] == '*' && !decoded->command.empty() &&
        encode_resp(decoded->command) != input.substr(0, decoded->consumed))
      std::abort();
    input.remove_prefix(decoded->consumed);
  }
  return 0;
}
