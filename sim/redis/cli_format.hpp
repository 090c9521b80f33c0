#pragma once
// Formats a reply exactly as `redis-cli --no-raw` prints it.
#include <string>

#include "locksim/sim/redis/reply.hpp"

namespace locksim::redis {

// The text redis-cli prints for `reply`, ending with a newline.
std::string format_cli_reply(const Reply& reply);

// redis-cli's quoting of a bulk string (sdscatrepr): "a\nb", "\xff".
std::string cli_quote(const std::string& bytes);

}  // namespace locksim::redis
