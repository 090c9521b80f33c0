#pragma once
// Redis 7.0's script shebang (`#!lua flags=no-writes,allow-oom`), internal.
#include <optional>
#include <string>
#include <string_view>

#include "locksim/sim/redis/reply.hpp"

namespace locksim::redis {

struct ScriptFlags {
  bool shebang = false;    // flags were declared (even none): the script is "flagged"
  bool no_writes = false;  // flags=no-writes: may run with EVAL_RO, refuses writes
  bool allow_oom = false;  // flags=allow-oom: runs, and writes, over maxmemory
};

// Parses the first line when it starts with "#!". On success returns nullopt, sets
// `flags` and `lua_body` (the body with that line emptied, so line numbers stay).
// Otherwise returns Redis's error reply.
std::optional<Reply> parse_shebang(std::string_view body, ScriptFlags& flags, std::string& lua_body);

}  // namespace locksim::redis
