// The scenario parser as a round trip: whatever parses prints to a line that
// parses back to the same scenario, which prints the same line.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "locksim/props/scenario.hpp"

using namespace locksim::props;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string error;
  auto first = parse_scenario(text, &error);
  if (!first) {
    if (error.empty()) std::abort();  // a refusal always says why
    return 0;
  }
  const std::string printed = to_string(*first);
  auto second = parse_scenario(printed, &error);
  if (!second) {
    std::fprintf(stderr, "printed scenario does not parse: %s\n  %s\n", printed.c_str(), error.c_str());
    std::abort();
  }
  if (!(*second == *first) || to_string(*second) != printed) {
    std::fprintf(stderr, "round trip differs: %s\n", printed.c_str());
    std::abort();
  }
  return 0;
}
