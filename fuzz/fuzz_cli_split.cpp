// The console's redis-cli line splitter: any line gives words or a refusal, and
// words made only of plain characters split back to themselves.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "locksim/sim/redis/cli_split.hpp"

using namespace locksim::redis;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view line(reinterpret_cast<const char*>(data), size);
  auto words = split_cli_line(line);
  if (!words) return 0;
  // Quote every word redis-cli style and split again: the same words come back.
  std::string joined;
  for (const std::string& w : *words) {
    joined += '"';
    for (unsigned char c : w) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      joined += hex;
    }
    joined += "\" ";
  }
  auto again = split_cli_line(joined);
  if (!again || *again != *words) std::abort();
  return 0;
}
