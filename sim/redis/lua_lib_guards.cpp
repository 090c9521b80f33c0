// Guards around Debian's lua-bitop 1.0.2 and lua-cjson 2.1.0 (internal): the fixes
// Redis made to its own copies of these libraries, which Debian's packages lack, and
// the script's instruction budget and memory cap reaching inside them. Each guard
// checks the arguments before the C function runs and leaves the work to it.
// C style on purpose: every error is a Lua error (longjmp), so no frame here owns
// C++ objects.
#include "locksim/sim/redis/lua_lib_guards.hpp"

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "locksim/sim/redis/lua_budget.hpp"

namespace locksim::redis {

namespace {

// ---- bit.tohex: CVE-2024-31449 -------------------------------------------------

// lua-bitop's barg(): the number plus 2^52+2^51, whose low 32 bits are the argument
// rounded to an integer modulo 2^32 (so 2^31 and -2^31 both read as INT32_MIN).
int32_t bitop_argument(lua_Number n) {
  n += 6755399441055744.0;
  uint64_t bits = 0;
  std::memcpy(&bits, &n, sizeof bits);
  return static_cast<int32_t>(static_cast<uint32_t>(bits));
}

// bit.tohex(x, n) negates a negative n to ask for upper case; -2^31 stays negative,
// and lua-bitop 1.0.2 then pushes (size_t)n bytes of an 8-byte buffer: SIGSEGV.
// Redis's fix (CVE-2024-31449) reads -2^31 as -(2^31-1), i.e. eight upper-case
// digits, which is what tohex gives for -8: that is the argument it gets instead.
// The type checks are done here, in the frame the script called, so that an error
// names 'tohex' as lua-bitop's own would.
int guarded_tohex(lua_State* L) {
  if (!lua_isnumber(L, 1)) luaL_typerror(L, 1, "number");
  if (!lua_isnone(L, 2)) {
    if (!lua_isnumber(L, 2)) luaL_typerror(L, 2, "number");
    if (bitop_argument(lua_tonumber(L, 2)) == INT32_MIN) {
      lua_pushnumber(L, -8);
      lua_replace(L, 2);
    }
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

// ---- cjson.encode: CVE-2022-24834 and its siblings --------------------------------

// lua-cjson 2.1.0 sizes its buffer in `int` and grows it by doubling: a request
// past 2^30 bytes overflows (a string reserves 6 bytes per byte, so a 358 MB string
// wraps negative and is written past the buffer: CVE-2022-24834, which Redis fixed
// in its copy), and doubling from 2^30 wraps to 0 and never ends (an array made
// sparse on purpose, {[2^31-1]=1} with encode_sparse_array(true, 0), spins in C
// with gigabytes held). The guard measures the output before encoding and refuses
// what would reach this limit or the script's memory cap.
constexpr double kCjsonBufferLimit = 1 << 30;
constexpr double kNumberBytes = 24;  // "%.14g" of a double: at most 21 characters ("-1.2345678901234e-308")

// The settings of the instance being encoded with, as its own config functions
// answer them when called without arguments.
struct JsonSettings {
  bool sparse_convert = false;
  double sparse_ratio = 2;
  double sparse_safe = 10;
  double max_depth = 1000;
};

struct Measure {
  lua_State* L;
  JsonSettings settings;
  double bytes = 0;    // the encoded length, bounded above
  double longest = 0;  // the longest string: lua-cjson reserves 6 bytes for each of its bytes
  double cap = 0;            // the script's memory cap: the result is a Lua string
  bool over = false;
};

// Over when the result could not fit the memory cap, or lua-cjson's reservation
// for the longest string, on top of what precedes it, could reach its buffer limit.
void add(Measure& m, double bytes) {
  m.bytes += bytes;
  if (m.bytes > m.cap || m.bytes + 6 * m.longest + 2 >= kCjsonBufferLimit) m.over = true;
}

// lua-cjson's escapes: control bytes and DEL as \u00XX (some are shorter: an upper
// bound), '"', '\\' and '/' as two bytes.
// The limits are checked on the string's length first: one too long for them is
// refused without being read.
void add_string(Measure& m, int index) {
  size_t len = 0;
  const char* s = lua_tolstring(m.L, index, &len);
  if (static_cast<double>(len) > m.longest) m.longest = static_cast<double>(len);
  add(m, 2 + static_cast<double>(len));  // the quotes and the bytes
  if (m.over) return;
  lua_charge(m.L, 1 + len / kBytesPerInstruction);
  double escapes = 0;  // the bytes escapes add
  for (size_t i = 0; i < len; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    escapes += c < 0x20 || c == 0x7f ? 5 : c == '"' || c == '\\' || c == '/' ? 1 : 0;
  }
  add(m, escapes);
}

void measure(Measure& m, int depth);

int absolute(lua_State* L, int index) { return index > 0 || index <= LUA_REGISTRYINDEX ? index : lua_gettop(L) + index + 1; }

// lua-cjson's lua_array_length: a table whose keys are all integers >= 1 is an
// array up to its largest key (holes encode as null), unless it is excessively
// sparse, which is then an error or (encode_sparse_array(true)) an object.
// Returns the array's length, 0 for an object, -1 when lua-cjson will refuse it.
double array_length(Measure& m, int table) {
  lua_State* L = m.L;
  double max = 0;
  double items = 0;
  lua_pushnil(L);
  while (lua_next(L, table)) {
    lua_pop(L, 1);
    lua_charge(L, 1);
    const lua_Number k = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : 0;
    if (k == 0 || std::floor(k) != k || k < 1) {
      lua_pop(L, 1);
      return 0;
    }
    if (k > max) max = k;
    ++items;
  }
  const JsonSettings& s = m.settings;
  if (s.sparse_ratio > 0 && max > items * s.sparse_ratio && max > s.sparse_safe) return s.sparse_convert ? 0 : -1;
  return max;
}

void measure_table(Measure& m, int depth) {
  lua_State* L = m.L;
  // lua-cjson refuses what is deeper than its limit or than the Lua stack allows:
  // it raises its own error there, so nothing below need be measured.
  if (depth + 1 > m.settings.max_depth || !lua_checkstack(L, 3)) return;
  const int table = lua_gettop(L);
  const double length = array_length(m, table);
  if (length < 0) return;
  if (length > 0) {
    double present = 0;
    lua_pushnil(L);
    while (!m.over && lua_next(L, table)) {
      ++present;
      measure(m, depth + 1);
      lua_pop(L, 1);
    }
    add(m, 2 + (length - 1) + (length - present) * 4);  // brackets, commas, nulls in the holes
    return;
  }
  add(m, 2);
  lua_pushnil(L);
  while (!m.over && lua_next(L, table)) {
    const int key_type = lua_type(L, -2);
    if (key_type == LUA_TNUMBER) {
      add(m, kNumberBytes + 2);
    } else if (key_type == LUA_TSTRING) {
      add_string(m, lua_gettop(L) - 1);
    } else {
      return lua_pop(L, 2);  // lua-cjson refuses the key
    }
    add(m, 2);  // the colon and a comma
    measure(m, depth + 1);
    lua_pop(L, 1);
  }
}

// The value on top of the stack (left there). Charges a step per value, so that a
// table reachable along many paths (t = {t, t} nested 1000 deep) ends in the budget.
// Once over the limit it stops at once, leaving the stack to guarded_encode to reset.
void measure(Measure& m, int depth) {
  if (m.over) return;
  lua_charge(m.L, 1);
  switch (lua_type(m.L, -1)) {
    case LUA_TSTRING: add_string(m, lua_gettop(m.L)); break;
    case LUA_TNUMBER: add(m, kNumberBytes); break;
    case LUA_TBOOLEAN: add(m, 5); break;
    case LUA_TTABLE: measure_table(m, depth); break;
    default: add(m, 4); break;  // nil, null; other types lua-cjson refuses itself
  }
}

double number_or(lua_State* L, int index, double fallback) {
  return lua_isnumber(L, index) ? lua_tonumber(L, index) : fallback;
}

JsonSettings read_settings(lua_State* L) {
  JsonSettings s;
  lua_pushvalue(L, lua_upvalueindex(2));  // encode_sparse_array
  lua_call(L, 0, 3);
  s.sparse_convert = lua_toboolean(L, -3) != 0;
  s.sparse_ratio = number_or(L, -2, s.sparse_ratio);
  s.sparse_safe = number_or(L, -1, s.sparse_safe);
  lua_pop(L, 3);
  lua_pushvalue(L, lua_upvalueindex(3));  // encode_max_depth
  lua_call(L, 0, 1);
  s.max_depth = number_or(L, -1, s.max_depth);
  lua_pop(L, 1);
  return s;
}

// cjson.encode(value), measured first: refused with "not enough memory" (the
// script's OOM) when the output could reach the memory cap or lua-cjson's buffer
// limit, and its formatting work charged to the budget before it runs in C.
int guarded_encode(lua_State* L) {
  luaL_argcheck(L, lua_gettop(L) == 1, 1, "expected 1 argument");
  Measure m{L, read_settings(L)};
  m.cap = static_cast<double>(lua_memory_cap(L));
  lua_pushvalue(L, 1);
  measure(m, 0);
  if (m.over) return lua_raise_out_of_memory(L);
  lua_settop(L, 1);
  lua_charge(L, static_cast<uint64_t>(m.bytes) / kBytesPerInstruction);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, 1, 1);
  return 1;
}

// cjson.decode(text): lua-cjson copies the text into an `int`-sized buffer of its
// own and parses it in C; the length is bounded and the parse charged by it first.
// Its nesting is bounded by decode_max_depth and the Lua stack (lua_checkstack).
int guarded_decode(lua_State* L) {
  luaL_argcheck(L, lua_gettop(L) == 1, 1, "expected 1 argument");
  size_t len = 0;
  luaL_checklstring(L, 1, &len);
  if (static_cast<double>(len) >= kCjsonBufferLimit) return lua_raise_out_of_memory(L);
  lua_charge(L, 1 + len / kBytesPerInstruction);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, 1, 1);
  return 1;
}

void guard_cjson_table(lua_State* L, int table);

// cjson.new(): a new instance with its own settings, guarded the same way.
int guarded_new(lua_State* L) {
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_call(L, 0, 1);
  if (lua_type(L, -1) == LUA_TTABLE) guard_cjson_table(L, lua_gettop(L));
  return 1;
}

void guard_cjson_table(lua_State* L, int table) {
  lua_getfield(L, table, "encode");
  lua_getfield(L, table, "encode_sparse_array");
  lua_getfield(L, table, "encode_max_depth");
  lua_pushcclosure(L, guarded_encode, 3);
  lua_setfield(L, table, "encode");
  lua_getfield(L, table, "decode");
  lua_pushcclosure(L, guarded_decode, 1);
  lua_setfield(L, table, "decode");
  lua_getfield(L, table, "new");
  lua_pushcclosure(L, guarded_new, 1);
  lua_setfield(L, table, "new");
}

}  // namespace

void guard_bit_library(lua_State* L, int table) {
  table = absolute(L, table);
  lua_getfield(L, table, "tohex");
  lua_pushcclosure(L, guarded_tohex, 1);
  lua_setfield(L, table, "tohex");
}

void guard_cjson_library(lua_State* L, int table) { guard_cjson_table(L, absolute(L, table)); }

}  // namespace locksim::redis
