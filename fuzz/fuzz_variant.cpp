// The variant loader (Lua variants): any text loads as a variant or gives an
// error naming the file; a hostile top level is stopped by the sandbox's budget.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "locksim/lock/lua_variant.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::string error;
  auto variant = locksim::lock::load_lua_variant_text(text, "fuzz.lua", &error);
  if (!variant && error.empty()) std::abort();  // a refusal always says why
  return 0;
}
