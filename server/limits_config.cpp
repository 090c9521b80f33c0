// CONFIG GET and SET (config_set.cpp) of the server's own limits (limits.hpp) and protected mode, with
// Redis 7.0's names, units, ranges and error texts.
#include <limits>

#include "locksim/server/core.hpp"
#include "locksim/server/lower.hpp"
#include "locksim/sim/redis/arguments.hpp"

namespace locksim::server {

using redis::Reply;

namespace {
constexpr int64_t kLongMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kOneMb = 1024 * 1024;
}  // namespace

bool is_limit_parameter(std::string_view name) {
  for (const char* known : {"proto-max-bulk-len", "client-query-buffer-limit", "client-output-buffer-limit",
                            "maxmemory-clients", "protected-mode"})
    if (redis::equals_lower(name, known)) return true;
  return false;
}

std::string set_limit_parameter(const std::string& name, const std::string& value, ClientLimits& limits,
                                bool& protected_mode, size_t maxmemory) {
  const std::string key = lower(name);
  if (key == "protected-mode") {
    const std::string v = lower(value);
    if (v != "yes" && v != "no") return "argument must be 'yes' or 'no'";
    protected_mode = v == "yes";
    return "";
  }
  if (key == "client-output-buffer-limit")
    return parse_output_limits(value, limits) ? "" : "Wrong number of arguments in buffer limit configuration.";
  if (key == "maxmemory-clients" && !value.empty() && value.back() == '%') {
    const auto percent = parse_memory(std::string_view(value).substr(0, value.size() - 1));
    if (!percent || *percent > 100) return "argument must be a memory or percent value";
    limits.maxmemory_clients = static_cast<size_t>(maxmemory / 100 * *percent);
    return "";
  }
  const auto bytes = parse_memory(value);
  if (!bytes) return "argument must be a memory value";
  const int64_t least = key == "maxmemory-clients" ? 0 : kOneMb;
  if (*bytes > static_cast<uint64_t>(kLongMax) || static_cast<int64_t>(*bytes) < least)
    return "argument must be between " + std::to_string(least) + " and " + std::to_string(kLongMax) + " inclusive";
  if (key == "proto-max-bulk-len") limits.proto_max_bulk_len = static_cast<int64_t>(*bytes);
  if (key == "client-query-buffer-limit") limits.query_buffer_limit = static_cast<size_t>(*bytes);
  if (key == "maxmemory-clients") limits.maxmemory_clients = static_cast<size_t>(*bytes);
  return "";
}

std::vector<std::pair<std::string, std::string>> limit_parameters(const Server::Core& core) {
  const ClientLimits& l = core.options.limits;
  return {{"proto-max-bulk-len", std::to_string(l.proto_max_bulk_len)},
          {"client-query-buffer-limit", std::to_string(l.query_buffer_limit)},
          {"client-output-buffer-limit", format_output_limits(l)},
          {"maxmemory-clients", std::to_string(l.maxmemory_clients)},
          {"protected-mode", core.options.protected_mode ? "yes" : "no"}};
}

}  // namespace locksim::server
