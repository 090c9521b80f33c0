// The entry points of the Lua libraries Redis gives scripts (cjson, cmsgpack,
// struct, bit), called from EVAL with the fuzzer's bytes as arguments: the first
// byte picks the call, the rest (split at the first NUL) are its arguments. Each
// ends in a reply or a script error within the budget and the memory cap.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "locksim/sim/redis/server.hpp"

using namespace locksim::redis;

namespace {

// Library calls on ARGV[1] and ARGV[2]; the settings some take first vary too.
const char* const kScripts[] = {
    "return cjson.decode(ARGV[1])",
    "return cjson.encode(cjson.decode(ARGV[1]))",
    "cjson.encode_sparse_array(true, 0) return cjson.encode(cjson.decode(ARGV[1]))",
    "cjson.decode_max_depth(2^31-1) cjson.encode_max_depth(2^31-1) return cjson.encode(cjson.decode(ARGV[1]))",
    "return cjson.encode(ARGV[1])",
    "return {cmsgpack.unpack(ARGV[1])}",
    "return cmsgpack.pack(cmsgpack.unpack(ARGV[1]))",
    "return {cmsgpack.unpack_one(ARGV[1], tonumber(ARGV[2]) or 0)}",
    "return {cmsgpack.unpack_limit(ARGV[1], tonumber(ARGV[2]) or 1, 0)}",
    "return {struct.unpack(ARGV[1], ARGV[2])}",
    "return struct.pack(ARGV[1], ARGV[2], ARGV[2], tonumber(ARGV[2]) or 0)",
    "return struct.size(ARGV[1])",
    "return bit.tohex(tonumber(ARGV[1]) or 0, tonumber(ARGV[2]) or 0)",
    "return cjson.encode({[tonumber(ARGV[1]) or 1] = ARGV[2]})",
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  ServerOptions options;
  options.lua_instruction_budget = 500'000;
  options.lua_memory_limit_bytes = 8u * 1024 * 1024;
  Server server(options);
  const ConnectionId conn = server.connect();
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const size_t nul = rest.find('\0');
  const std::string first = rest.substr(0, nul);
  const std::string second = nul == std::string::npos ? std::string() : rest.substr(nul + 1);
  const char* script = kScripts[data[0] % (sizeof kScripts / sizeof kScripts[0])];
  const Reply reply = server.execute(conn, {"EVAL", script, "0", first, second}, 1'700'000'000'000);
  // The server is still whole: a script runs after it.
  if (to_string(server.execute(conn, {"EVAL", "return 1", "0"}, 1'700'000'000'000)) != "(integer) 1") std::abort();
  (void)reply;
  return 0;
}
