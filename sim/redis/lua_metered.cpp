// The C functions of Lua's libraries whose work grows with their input, made to
// charge that work to the script's budget (see lua_budget.hpp). Without this a
// loop of a few VM instructions per turn could spend seconds per turn in C:
// `string.rep('', 2^31)`, `table.sort` of a large table, a full collectgarbage().
// No C++ object lives in these frames: a Lua error may unwind any of them.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "locksim/sim/redis/lua_budget.hpp"

namespace locksim::redis {

namespace {

uint64_t string_bytes(lua_State* L, int from, int to) {
  uint64_t bytes = 0;
  for (int i = from; i <= to; ++i)
    if (lua_type(L, i) == LUA_TSTRING) bytes += lua_objlen(L, i);
  return bytes;
}

// Calls the original function (upvalue 1), charging its string arguments
// before and its string results after.
int metered_call(lua_State* L) {
  const int argc = lua_gettop(L);
  lua_charge(L, 1 + string_bytes(L, 1, argc) / kBytesPerInstruction);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, argc, LUA_MULTRET);
  lua_charge(L, string_bytes(L, 1, lua_gettop(L)) / kBytesPerInstruction);
  return lua_gettop(L);
}

// A string of at most 15 decimal digits with an optional minus sign: its value, which
// strtod (Lua's luaO_str2d) would give exactly (below 2^53; "-0" is -0.0). Else nothing.
bool plain_decimal(const char* s, size_t len, lua_Number& value) {
  const bool negative = len > 0 && s[0] == '-';
  const size_t digits = len - (negative ? 1 : 0);
  if (digits == 0 || digits > 15) return false;
  int64_t magnitude = 0;
  for (size_t i = negative ? 1 : 0; i < len; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    magnitude = magnitude * 10 + (s[i] - '0');
  }
  value = static_cast<lua_Number>(magnitude);
  if (negative) value = -value;
  return true;
}

// tonumber(s) of a plain decimal string (a ticket, a counter a script read), answered
// here: Lua's own goes through strtod, and through a C call level for metered_call.
// Charged as metered_call charges it; anything else goes to the original.
int metered_tonumber(lua_State* L) {
  if (lua_gettop(L) == 1 && lua_type(L, 1) == LUA_TSTRING) {
    size_t len = 0;
    const char* s = lua_tolstring(L, 1, &len);
    lua_Number value = 0;
    if (plain_decimal(s, len, value)) {
      lua_charge(L, 1 + len / kBytesPerInstruction);
      lua_pushnumber(L, value);
      return 1;
    }
  }
  return metered_call(L);
}

// The number of elements a (table, i, j) call walks: j - i + 1, or the table's length.
uint64_t span_of(lua_State* L, int table, int first_index) {
  if (lua_type(L, table) != LUA_TTABLE) return 1;
  const double i = lua_isnumber(L, first_index) ? lua_tonumber(L, first_index) : 1;
  const double j =
      lua_isnumber(L, first_index + 1) ? lua_tonumber(L, first_index + 1) : static_cast<double>(lua_objlen(L, table));
  if (!(j >= i)) return 1;
  return j - i > 1e15 ? uint64_t{1'000'000'000'000'000} : static_cast<uint64_t>(j - i) + 1;
}

// unpack(t, i, j) and table.concat(t, sep, i, j): charged by the range they walk.
int metered_range_call(lua_State* L) {
  const int first_index = static_cast<int>(lua_tointeger(L, lua_upvalueindex(2)));
  lua_charge(L, span_of(L, 1, first_index));
  return metered_call(L);
}

// Lua 5.1's unpack, charged by the range it walks and the strings it returns. Not
// wrapped like the others: called straight from the script, its errors name the
// script's line ("user_script:1: too many results to unpack") and it adds no C level.
int metered_unpack(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_charge(L, span_of(L, 1, 2));
  int i = luaL_optint(L, 2, 1);
  const int e = luaL_opt(L, luaL_checkint, 3, luaL_getn(L, 1));
  if (i > e) return 0;
  const int n = e - i + 1;
  if (n <= 0 || !lua_checkstack(L, n)) return luaL_error(L, "too many results to unpack");
  lua_rawgeti(L, 1, i);
  while (i++ < e) lua_rawgeti(L, 1, i);
  lua_charge(L, string_bytes(L, lua_gettop(L) - n + 1, lua_gettop(L)) / kBytesPerInstruction);
  return n;
}

// table.sort: n log n comparisons (those of a Lua comparator are counted again by the hook).
int metered_sort(lua_State* L) {
  const double n = lua_type(L, 1) == LUA_TTABLE ? static_cast<double>(lua_objlen(L, 1)) : 1;
  lua_charge(L, static_cast<uint64_t>(n * (std::log2(n + 1) + 1)));
  return metered_call(L);
}

// collectgarbage: a full collection walks the whole heap.
int metered_collectgarbage(lua_State* L) {
  lua_charge(L, 1 + static_cast<uint64_t>(lua_gc(L, LUA_GCCOUNT, 0)) * 16);
  return metered_call(L);
}

// table.maxn walks every key: counted key by key.
int metered_maxn(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_Number max = 0;
  uint64_t walked = 0;
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    lua_pop(L, 1);
    if (++walked % 1024 == 0) lua_charge(L, 1024);
    if (lua_type(L, -1) == LUA_TNUMBER && lua_tonumber(L, -1) > max) max = lua_tonumber(L, -1);
  }
  lua_charge(L, walked % 1024);
  lua_pushnumber(L, max);
  return 1;
}

// string.rep: refused before allocating when the result cannot fit the Lua heap cap.
int bounded_rep(lua_State* L) {
  size_t l = 0;
  const char* s = luaL_checklstring(L, 1, &l);
  const lua_Integer n = luaL_checkinteger(L, 2);
  if (n <= 0 || l == 0) {
    lua_charge(L, 1);
    lua_pushliteral(L, "");
    return 1;
  }
  const uint64_t count = static_cast<uint64_t>(n);
  if (count > lua_memory_cap(L) / l) return lua_raise_out_of_memory(L);
  lua_charge(L, 1 + count + count * l / kBytesPerInstruction);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (uint64_t i = 0; i < count; ++i) luaL_addlstring(&b, s, l);
  luaL_pushresult(&b);
  return 1;
}

// xpcall whose message handler runs after the error has unwound, under the
// instruction hook: Lua 5.1 runs it with hooks off when the error comes from the
// hook itself, so `xpcall(loop, loop)` would escape the budget.
int hooked_xpcall(lua_State* L) {
  luaL_checkany(L, 2);
  lua_settop(L, 2);
  lua_pushvalue(L, 1);
  if (lua_pcall(L, 0, LUA_MULTRET, 0) == 0) {
    lua_pushboolean(L, 1);
    lua_replace(L, 1);
    lua_remove(L, 2);
    return lua_gettop(L);
  }
  lua_pushvalue(L, 2);  // the handler
  lua_insert(L, -2);    // under the error object
  if (lua_pcall(L, 1, 1, 0) != 0) {
    lua_pop(L, 1);
    lua_pushliteral(L, "error in error handling");
  }
  lua_pushboolean(L, 0);
  lua_insert(L, -2);
  return 2;
}

void wrap(lua_State* L, int table, const char* name, lua_CFunction wrapper, int extra_upvalue = -1) {
  lua_getfield(L, table, name);
  if (!lua_iscfunction(L, -1)) {
    lua_pop(L, 1);
    return;
  }
  int upvalues = 1;
  if (extra_upvalue >= 0) {
    lua_pushinteger(L, extra_upvalue);
    upvalues = 2;
  }
  lua_pushcclosure(L, wrapper, upvalues);
  lua_setfield(L, table, name);
}

}  // namespace

void install_metered_builtins(lua_State* L, int globals) {
  lua_getfield(L, globals, "string");
  const int string_table = lua_gettop(L);
  for (const char* name : {"byte", "char", "format", "len", "lower", "upper", "reverse", "sub"})
    wrap(L, string_table, name, metered_call);
  lua_pushcfunction(L, bounded_rep);
  lua_setfield(L, string_table, "rep");
  install_pattern_functions(L, string_table);
  lua_getfield(L, globals, "table");
  const int table_table = lua_gettop(L);
  wrap(L, table_table, "concat", metered_range_call, 3);
  wrap(L, table_table, "sort", metered_sort);
  wrap(L, table_table, "insert", metered_call);
  wrap(L, table_table, "remove", metered_call);
  lua_pushcfunction(L, metered_maxn);
  lua_setfield(L, table_table, "maxn");
  lua_pushcfunction(L, metered_unpack);
  lua_setfield(L, globals, "unpack");
  wrap(L, globals, "collectgarbage", metered_collectgarbage);
  wrap(L, globals, "tostring", metered_call);
  wrap(L, globals, "tonumber", metered_tonumber);
  lua_pushcfunction(L, hooked_xpcall);
  lua_setfield(L, globals, "xpcall");
  lua_pop(L, 2);
}

}  // namespace locksim::redis
