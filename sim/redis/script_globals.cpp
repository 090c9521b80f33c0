// Reads a Lua 5.1 binary chunk (ldump.c's layout, sizes from its own header) far enough
// to see every function's instructions.
#include "locksim/sim/redis/script_globals.hpp"

#include <lua.hpp>

#include <cstdint>
#include <cstring>
#include <set>
#include <string_view>

namespace locksim::redis {

namespace {

constexpr uint32_t kOpcodeMask = 0x3F;  // an instruction's low 6 bits (lopcodes.h)
constexpr uint32_t kSetGlobal = 7;      // OP_SETGLOBAL in Lua 5.1's opcode order
constexpr uint32_t kSetTable = 9;       // OP_SETTABLE
constexpr uint32_t kGetGlobal = 5;      // OP_GETGLOBAL, whose Bx (bits 14..31) names a constant
constexpr int kDeepestNesting = 200;    // Lua's parser allows fewer (LUAI_MAXCCALLS)

// A cursor over the chunk; any read past its end makes it fail, and it stays failed.
struct ChunkReader {
  std::string_view in;
  size_t at = 0;
  size_t int_size = 0, size_t_size = 0, number_size = 0;
  bool failed = false;

  bool take(uint64_t n) {
    if (failed || n > in.size() - at) return !(failed = true);
    at += n;
    return true;
  }
  uint64_t unsigned_of(size_t n) {  // little endian, n <= 8 (the header said so)
    uint64_t v = 0;
    if (take(n))
      for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(in[at - n + i])) << (8 * i);
    return v;
  }
  uint64_t count() { return unsigned_of(int_size); }  // an int that counts (never negative in a dump)
  void skip_string() { take(unsigned_of(size_t_size)); }
  std::string_view string() {  // a dumped string: its length counts a closing NUL
    const uint64_t n = unsigned_of(size_t_size);
    if (!take(n) || n == 0) return {};
    return in.substr(at - n, n - 1);
  }
};

bool header_ok(ChunkReader& r) {
  if (r.in.size() < 12 || std::memcmp(r.in.data(), LUA_SIGNATURE, 4) != 0) return false;
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(r.in[i]); };
  // version 5.1, official format, little endian, 4-byte instructions
  if (byte(4) != 0x51 || byte(5) != 0 || byte(6) != 1 || byte(9) != 4) return false;
  r.int_size = byte(7);
  r.size_t_size = byte(8);
  r.number_size = byte(10);
  if (r.int_size == 0 || r.int_size > 8 || r.size_t_size == 0 || r.size_t_size > 8) return false;
  r.at = 12;
  return true;
}

// Skips one function (and its nested ones), noting what their instructions write.
void scan_function(ChunkReader& r, int depth, ChunkWrites& writes) {
  if (depth > kDeepestNesting) {
    r.failed = true;
    return;
  }
  r.skip_string();                        // source
  r.take(2 * r.int_size + 4);             // line defined, last line, nups, params, vararg, stack
  const uint64_t code = r.count();
  if (code > r.in.size()) {
    r.failed = true;
    return;
  }
  std::set<uint64_t> globals_read;  // the constants naming them
  for (uint64_t i = 0; i < code && !r.failed; ++i) {
    const auto instruction = static_cast<uint32_t>(r.unsigned_of(4));
    const uint32_t opcode = instruction & kOpcodeMask;
    writes.globals = writes.globals || opcode == kSetGlobal;
    writes.fields = writes.fields || opcode == kSetTable;
    if (opcode == kGetGlobal) globals_read.insert(instruction >> 14);
  }
  const uint64_t constants = r.count();
  for (uint64_t i = 0; i < constants && !r.failed; ++i) {
    const uint64_t type = r.unsigned_of(1);
    if (type == LUA_TBOOLEAN)
      r.take(1);
    else if (type == LUA_TNUMBER)
      r.take(r.number_size);
    else if (type == LUA_TSTRING && globals_read.count(i)) {
      const std::string_view name = r.string();
      writes.table_library = writes.table_library || name == "table" || name == "_G";
    } else if (type == LUA_TSTRING)
      r.skip_string();
    else if (type != LUA_TNIL)
      r.failed = true;
  }
  const uint64_t nested = r.count();
  for (uint64_t i = 0; i < nested && !r.failed; ++i) scan_function(r, depth + 1, writes);
  const uint64_t lines = r.count();  // line info: an int each
  if (lines > r.in.size()) {
    r.failed = true;
    return;
  }
  r.take(lines * r.int_size);
  const uint64_t locals = r.count();
  for (uint64_t i = 0; i < locals && !r.failed; ++i) {
    r.skip_string();
    r.take(2 * r.int_size);
  }
  const uint64_t upvalues = r.count();
  for (uint64_t i = 0; i < upvalues && !r.failed; ++i) r.skip_string();
}

}  // namespace

ChunkWrites chunk_writes(std::string_view chunk) {
  ChunkReader r{chunk};
  if (!header_ok(r)) return {};
  ChunkWrites writes{false, false, false};
  scan_function(r, 0, writes);
  if (r.failed || r.at != chunk.size()) return {};
  return writes;
}

}  // namespace locksim::redis
