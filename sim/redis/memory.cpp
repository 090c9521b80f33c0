#include "locksim/sim/redis/memory.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string_view>
#include <vector>

#include "locksim/sim/redis/arguments.hpp"

namespace locksim::redis {

namespace {

constexpr size_t kKeyOverhead = 64;    // dict entry, robj, expire slot
constexpr size_t kFieldOverhead = 16;  // listpack / dict entry per field

size_t growth_bound(const CommandSpec& spec, const Command& command) {
  size_t bytes = kKeyOverhead;
  for (size_t i = 1; i < command.size(); ++i) bytes += command[i].size() + kFieldOverhead;
  int64_t offset = 0;  // SETRANGE pads up to its offset
  if (spec.handler == cmd_setrange && command.size() > 2 && parse_int64(command[2], offset) && offset > 0)
    bytes += static_cast<size_t>(offset);
  return bytes;
}

// The length of Entry::render() (every member and its separators), counted without
// building it: a walk over a 256 MB hash must not first copy 256 MB.
size_t rendered_size(const Entry& entry) {
  size_t bytes = 0;
  switch (entry.type) {
    case ValueType::String: return entry.str.size();
    case ValueType::Hash:
      bytes = 2;  // {}
      for (const auto& [field, value] : entry.hash().fields()) bytes += field.size() + 1 + value.size() + 1;
      return bytes - (entry.hash().size() ? 1 : 0);
    case ValueType::List:
      bytes = 7;  // {list:}
      for (const std::string& item : entry.list()) bytes += item.size() + 1;
      return bytes - (entry.list().empty() ? 0 : 1);
    case ValueType::Set:
      bytes = 6;  // {set:}
      for (const std::string& member : entry.set().members) bytes += member.size() + 1;
      return bytes - (entry.set().members.empty() ? 0 : 1);
    case ValueType::ZSet:
      bytes = 7;  // {zset:}
      for (const auto& [score, member] : entry.zset().items()) {
        char buf[32];
        const int n = std::snprintf(buf, sizeof buf, "%.17g", score);
        bytes += member.size() + 1 + static_cast<size_t>(n) + 1;
      }
      return bytes - (entry.zset().size() ? 1 : 0);
  }
  return entry.str.size();
}

}  // namespace

size_t dataset_bytes(const Server::State& server) {
  size_t bytes = 0;
  for (const Database& db : server.dbs) {
    for (const auto& [key, entry] : db.keys) bytes += kKeyOverhead + key.size() + rendered_size(entry);
  }
  return bytes;
}

bool over_maxmemory(Server::State& server) {
  const size_t cap = server.options.maxmemory_bytes;
  if (cap == 0) return false;
  MemoryMeter& meter = server.memory;
  const size_t host = server.host_memory ? server.host_memory() : 0;
  if (meter.measured + meter.grown + host <= cap) return false;  // not even the bound is over
  meter.measured = dataset_bytes(server);
  meter.grown = 0;
  return meter.measured + host > cap;
}

namespace {
// No cap: nothing is refused and nothing is counted (SET should not pay for a bound no
// one reads). What was added meanwhile is unknown, so a cap set later (CONFIG SET
// maxmemory) first measures the data set.
bool memory_uncapped(Server::State& server) {
  if (server.options.maxmemory_bytes != 0) return false;
  server.memory.grown = MemoryMeter::kUnknown;
  return true;
}
}  // namespace

std::optional<Reply> refuse_if_over_maxmemory(Server::State& server, const CommandSpec& spec, const Command& command) {
  if (!may_grow(spec)) return std::nullopt;
  if (memory_uncapped(server)) return std::nullopt;
  // over_maxmemory, its common case inline: with no host, the bound alone under the cap.
  MemoryMeter& meter = server.memory;
  const bool under = !server.host_memory && meter.measured + meter.grown <= server.options.maxmemory_bytes;
  if (!under && over_maxmemory(server)) return Reply::error(kOomError);
  meter.grown += growth_bound(spec, command);
  return std::nullopt;
}

std::optional<Reply> refuse_on_oom(Server::State& server, const ConnectionState& conn, const CommandSpec& spec,
                                   const Command& command) {
  const bool exec = spec.handler == cmd_exec;
  if (!may_grow(spec) && !exec && !conn.in_multi) return std::nullopt;  // a read: nothing to refuse or count
  if (memory_uncapped(server)) return std::nullopt;
  bool refusable = may_grow(spec);
  if (exec) {
    for (const Command& queued : conn.queued) {
      const CommandSpec* q = find_command(queued[0]);
      refusable = refusable || (q && may_grow(*q));
    }
  }
  // Queuing may take memory without end: inside MULTI anything is refused but the ends.
  if (conn.in_multi && !exec && spec.name != "discard" && spec.name != "quit" && spec.name != "reset")
    refusable = true;
  if (!refusable) return std::nullopt;
  if (over_maxmemory(server)) return Reply::error(kOomError);
  if (may_grow(spec) && !conn.in_multi) server.memory.grown += growth_bound(spec, command);  // EXEC counts queued ones
  return std::nullopt;
}

}  // namespace locksim::redis
