// merge's input: any bytes as one shard's 'check --json' output. Each is a shard
// or a UsageError with the reason, never a crash, a hang, an allocation sized by
// a number in the input or a recursion as deep as its nesting.
#include <cstdint>
#include <string>

#include "locksim/cli/commands.hpp"
#include "locksim/cli/merge.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    locksim::cli::check_shard_text(text, "fuzz.json");
  } catch (const locksim::cli::UsageError&) {
  }
  return 0;
}
