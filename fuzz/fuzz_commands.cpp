// Command execution on the Redis model: the input is a sequence of console lines
// (redis-cli quoting) run on one server, EVAL with generated scripts included.
// Invariants after each command: a reply that encodes as RESP, KEYS * listing
// at most DBSIZE keys (DBSIZE also counts expired keys not yet deleted, as
// Redis's does), in order and without duplicates, and the Lua caps holding
// (scripts are given small budgets so that a hostile one ends fast).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "locksim/sim/redis/cli_split.hpp"
#include "locksim/sim/redis/resp.hpp"
#include "locksim/sim/redis/server.hpp"

using namespace locksim::redis;

namespace {

void check_keyspace(Server& server, ConnectionId conn, int64_t now) {
  const Reply keys = server.execute(conn, {"KEYS", "*"}, now);
  const Reply size = server.execute(conn, {"DBSIZE"}, now);
  if (keys.type != Reply::Type::Array || size.type != Reply::Type::Integer) std::abort();
  if (static_cast<int64_t>(keys.elements.size()) > size.integer) std::abort();
  for (size_t i = 1; i < keys.elements.size(); ++i)
    if (!(keys.elements[i - 1].str < keys.elements[i].str)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ServerOptions options;
  options.lua_instruction_budget = 200'000;
  options.lua_memory_limit_bytes = 8u * 1024 * 1024;
  options.lua_run_budget = 2'000'000;
  options.maxmemory_bytes = 16u * 1024 * 1024;
  Server server(options);
  const ConnectionId conn = server.connect();
  const ConnectionId probe = server.connect();  // outside the fuzzed connection's MULTI
  int64_t now = 1'700'000'000'000;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  for (int n = 0; n < 200 && !input.empty(); ++n) {
    const size_t nl = input.find('\n');
    std::string_view line = input.substr(0, nl);
    input.remove_prefix(nl == std::string_view::npos ? input.size() : nl + 1);
    auto args = split_cli_line(line);
    if (!args || args->empty()) continue;
    if ((*args)[0] == ".advance") {
      now += 1000;
      continue;
    }
    const Reply reply = server.execute(conn, *args, now);
    (void)encode_resp(reply);
    check_keyspace(server, probe, now);
  }
  return 0;
}
