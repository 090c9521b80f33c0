#pragma once
// SHA-1 as lowercase hex: script ids for EVALSHA and redis.sha1hex.
#include <string>
#include <string_view>

namespace locksim::redis {

std::string sha1_hex(std::string_view data);

}  // namespace locksim::redis
