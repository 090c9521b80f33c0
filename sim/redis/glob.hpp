#pragma once
// Redis's glob matching for KEYS: * ? [abc] [^a] [a-z] and \ escapes (internal).
#include <string_view>

namespace locksim::redis {

bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace locksim::redis
