#pragma once
// What `locksim serve` owes its host, as Redis 7.0 bounds it: the protocol's input limits
// (proto-max-bulk-len, client-query-buffer-limit), the output buffer limits per client
// class (client-output-buffer-limit) and the memory of all clients together
// (maxmemory-clients), with their CONFIG names, units and defaults.
//
// One deliberate difference: Redis's maxmemory-clients is 0 (off) by default, and its
// normal class has no output limit, so a client that asks for a 1 GB reply and never
// reads holds 1 GB. serve faces shared machines, so maxmemory-clients defaults to the
// model's maxmemory (256 MB): a client whose buffers pass it is closed (logged), as
// Redis's client eviction closes it. The class limits keep Redis's defaults.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace locksim::server {

enum class ClientClass { Normal, Replica, Pubsub };

// client-output-buffer-limit <class> <hard> <soft> <soft-seconds>; 0 disables a limit.
struct OutputLimit {
  size_t hard = 0, soft = 0;
  int64_t soft_seconds = 0;
  bool operator==(const OutputLimit&) const = default;
};

struct ClientLimits {
  int64_t proto_max_bulk_len = 512LL * 1024 * 1024;
  size_t query_buffer_limit = 1024ULL * 1024 * 1024;
  std::array<OutputLimit, 3> output = {OutputLimit{0, 0, 0},  // normal
                                       OutputLimit{256ULL << 20, 64ULL << 20, 60},  // replica (serve has none)
                                       OutputLimit{32ULL << 20, 8ULL << 20, 60}};   // pubsub
  size_t maxmemory_clients = 256ULL << 20;  // 0: off (see above)

  const OutputLimit& of(ClientClass c) const { return output[static_cast<size_t>(c)]; }
};

// Redis memtoull: a byte count with an optional unit (k=1000, kb=1024, m, mb, g, gb),
// any case; nullopt for anything else or an overflow.
std::optional<uint64_t> parse_memory(std::string_view text);

// CONFIG's text of client-output-buffer-limit ("normal 0 0 0 slave ... pubsub ...") and
// its parser (groups of four, any subset of classes; replica and slave are one class).
std::string format_output_limits(const ClientLimits& limits);
bool parse_output_limits(std::string_view text, ClientLimits& limits);

// The parameters CONFIG SET, a config file and serve's arguments set with Redis's
// names: proto-max-bulk-len, client-query-buffer-limit, client-output-buffer-limit,
// maxmemory-clients (a percent of `maxmemory` too) and protected-mode (any case).
bool is_limit_parameter(std::string_view name);
// One of them set into `limits` or `protected_mode`: empty, or why the value is refused
// (Redis's wording: "argument must be a memory value").
std::string set_limit_parameter(const std::string& name, const std::string& value, ClientLimits& limits,
                                bool& protected_mode, size_t maxmemory);

// Whether a client of this class, holding `bytes` of output, must be closed now. The
// soft limit counts from soft_since_ms (0: not over it yet), which it updates.
bool output_limit_reached(const OutputLimit& limit, size_t bytes, int64_t now_ms, int64_t& soft_since_ms);

}  // namespace locksim::server
