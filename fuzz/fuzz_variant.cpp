// The variant-file loader: any text is a variant or an error naming the line.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lock/variant_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string error;
  auto spec = locksim::lock::parse_variant(text, "fuzz.variant", &error);
  if (!spec && error.empty()) std::abort();
  return 0;
}
