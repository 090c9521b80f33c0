// CONFIG GET and SET of the server's own limits (limits.hpp) and protected mode, with
// Redis 7.0's names, units, ranges and error texts.
#include <limits>

#include "locksim/server/core.hpp"
#include "locksim/sim/redis/arguments.hpp"

namespace locksim::server {

using redis::Reply;

namespace {
constexpr int64_t kLongMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kOneMb = 1024 * 1024;

bool ours(const std::string& name) { return is_limit_parameter(name); }

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}
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

std::optional<Reply> config_set_limits(Server::Core& core, const redis::Command& argv) {
  bool any = false;
  for (size_t i = 2; i < argv.size(); i += 2) any = any || ours(argv[i]);
  if (!any) return std::nullopt;
  if (argv.size() % 2 == 1)
    return Reply::error("ERR Unknown option or number of arguments for CONFIG SET - '" + argv[2] + "'");
  ClientLimits limits = core.options.limits;  // all or nothing, as Redis's CONFIG SET
  bool protected_mode = core.options.protected_mode;
  for (size_t i = 2; i + 1 < argv.size(); i += 2) {
    if (!ours(argv[i])) return Reply::error("ERR Unknown option or number of arguments for CONFIG SET - '" + argv[i] + "'");
    const std::string failed =
        set_limit_parameter(argv[i], argv[i + 1], limits, protected_mode, core.options.model.maxmemory_bytes);
    if (!failed.empty())
      return Reply::error("ERR CONFIG SET failed (possibly related to argument '" + argv[i] + "') - " + failed);
  }
  core.options.limits = limits;
  core.options.protected_mode = protected_mode;
  return Reply::ok();
}

}  // namespace locksim::server
