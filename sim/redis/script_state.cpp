// The Lua state Redis 7.0.15 gives scripts, built and closed: its libraries (with
// Redis's math.random), its error handler, its sandbox, and its memory in the runtime's arena.
#include <lua.hpp>

#include <cmath>
#include <cstring>
#include <new>

#include "locksim/sim/redis/lua_runtime.hpp"
#include "locksim/sim/redis/script_lua.hpp"
#include "locksim/sim/redis/script_redis_api.hpp"
#include "locksim/sim/redis/script_sandbox.hpp"
#include "locksim/sim/redis/scripting_libs.hpp"

namespace locksim::redis {

namespace {

void srand48_state(LuaRuntime& rt, int64_t seed) {
  rt.rand48 = ((static_cast<uint64_t>(static_cast<uint32_t>(seed)) << 16) | 0x330E) & ((uint64_t{1} << 48) - 1);
}

int32_t lrand48_next(LuaRuntime& rt) {
  rt.rand48 = (0x5DEECE66DULL * rt.rand48 + 0xB) & ((uint64_t{1} << 48) - 1);
  return static_cast<int32_t>(rt.rand48 >> 17);
}

// Redis's redis_math_random: Lua 5.1's math.random over rand48.
int redis_math_random(lua_State* L) {
  constexpr int32_t kMax = 2147483647;
  const lua_Number r = static_cast<lua_Number>(lrand48_next(runtime_of(L)) % kMax) / static_cast<lua_Number>(kMax);
  switch (lua_gettop(L)) {
    case 0: lua_pushnumber(L, r); break;
    case 1: {
      int u = luaL_checkint(L, 1);
      luaL_argcheck(L, 1 <= u, 1, "interval is empty");
      lua_pushnumber(L, std::floor(r * u) + 1);
      break;
    }
    case 2: {
      int l = luaL_checkint(L, 1);
      int u = luaL_checkint(L, 2);
      luaL_argcheck(L, l <= u, 2, "interval is empty");
      // Redis computes u - l + 1 in int, which wraps on x86-64 (math.random(-2^31, 0));
      // the same wrap, without the signed overflow.
      const auto span = static_cast<int32_t>(static_cast<uint32_t>(u) - static_cast<uint32_t>(l) + 1u);
      lua_pushnumber(L, std::floor(r * span) + l);
      break;
    }
    default: return luaL_error(L, "wrong number of arguments");
  }
  return 1;
}

int redis_math_randomseed(lua_State* L) {
  srand48_state(runtime_of(L), luaL_checkint(L, 1));
  return 0;
}

void* capped_alloc(void* ud, void* ptr, size_t osize, size_t nsize) {
  auto* rt = static_cast<LuaRuntime*>(static_cast<LuaMeter*>(ud));
  if (nsize == 0) {
    rt->arena.reallocate(ptr, osize, 0);
    rt->used_bytes -= osize;
    return nullptr;
  }
  if (rt->enforce_memory && nsize > osize && rt->used_bytes + (nsize - osize) > rt->options.lua_memory_limit_bytes) {
    rt->memory_exceeded = true;
    return nullptr;  // Lua raises "not enough memory"
  }
  void* grown = rt->arena.reallocate(ptr, osize, nsize);
  if (!grown) return nullptr;
  rt->used_bytes = rt->used_bytes - osize + nsize;
  return grown;
}

constexpr const char* kErrorHandlerSource = R"lua(
local getinfo, note_table_write = ...
return function(err)
  local i = getinfo(2, 'nSl')
  if i and i.what == 'C' then
    i = getinfo(3, 'nSl')
  end
  if type(err) ~= 'table' then
    err = {err = 'ERR ' .. tostring(err)}
  else
    note_table_write()  -- a script may call it on KEYS (lua_runtime.hpp)
  end
  if i then
    err['source'] = i.source
    err['line'] = i.currentline
  end
  return err
end
)lua";

void open_library(lua_State* L, lua_CFunction open, const char* name) {
  lua_pushcfunction(L, open);
  lua_pushstring(L, name);
  lua_call(L, 1, 0);
}

// The libraries Redis opens, with its own math.random.
void open_libraries(lua_State* L) {
  open_library(L, luaopen_base, "");
  open_library(L, luaopen_table, LUA_TABLIBNAME);
  open_library(L, luaopen_string, LUA_STRLIBNAME);
  open_library(L, luaopen_math, LUA_MATHLIBNAME);
  lua_getglobal(L, LUA_MATHLIBNAME);
  lua_pushcfunction(L, redis_math_random);
  lua_setfield(L, -2, "random");
  lua_pushcfunction(L, redis_math_randomseed);
  lua_setfield(L, -2, "randomseed");
  lua_pop(L, 1);
  open_library(L, luaopen_debug, LUA_DBLIBNAME);
  open_redis_libraries(L);
}

int lua_note_table_write(lua_State* L) {
  note_table_write(L);
  return 0;
}

// The error handler keeps debug.getinfo; the debug library itself goes away.
void install_error_handler(LuaRuntime& rt, lua_State* L, int globals) {
  luaL_loadbuffer(L, kErrorHandlerSource, std::strlen(kErrorHandlerSource), "=redis_error_handler");
  lua_getfield(L, globals, "debug");
  lua_getfield(L, -1, "getinfo");
  lua_remove(L, -2);
  lua_pushcfunction(L, lua_note_table_write);
  lua_call(L, 2, 1);
  lua_pushvalue(L, -1);
  rt.handler_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_setfield(L, globals, "__redis__err__handler");
}


// cjson.new makes a config with malloc'd memory of its own (lua_runtime.hpp).
int cjson_new_tracked(lua_State* L) {
  runtime_of(L).cjson_instances = true;
  lua_pushvalue(L, lua_upvalueindex(1));  // the original cjson.new
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

// Notes where lua-cjson's config lives (the upvalue of its functions) and wraps cjson.new.
void track_cjson(LuaRuntime& rt, lua_State* L, int globals) {
  lua_getfield(L, globals, "cjson");
  lua_getfield(L, -1, "encode_keep_buffer");  // not encode, which lua_lib_guards.cpp wraps
  if (lua_getupvalue(L, -1, 1)) {
    if (lua_type(L, -1) == LUA_TUSERDATA) {
      rt.cjson_config = lua_touserdata(L, -1);
      rt.cjson_config_size = lua_objlen(L, -1);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  lua_getfield(L, -1, "new");
  lua_pushcclosure(L, cjson_new_tracked, 1);
  lua_setfield(L, -2, "new");
  lua_pop(L, 1);
}

// An empty global table `name` (KEYS, ARGV), kept in the registry: its reference.
int make_script_array(lua_State* L, int globals, const char* name) {
  lua_newtable(L);
  lua_pushstring(L, name);
  lua_pushvalue(L, -2);
  lua_rawset(L, globals);
  return luaL_ref(L, LUA_REGISTRYINDEX);
}

// Room for the state as built (47 KiB in 16-byte blocks); what scripts make later goes to chunks.
constexpr size_t kRegionBytes = 56 * 1024;

}  // namespace

void build_state(LuaRuntime& rt) {
  rt.arena.begin_region(kRegionBytes);
  rt.cjson_config = nullptr;
  rt.cjson_config_size = 0;
  rt.cjson_instances = false;
  lua_State* L = lua_newstate(capped_alloc, static_cast<LuaMeter*>(&rt));
  if (!L) throw std::bad_alloc();
  rt.L = L;
  // Building makes no garbage worth collecting: the collector waits until it is done.
  lua_gc(L, LUA_GCSTOP, 0);
  open_libraries(L);
  lua_pushvalue(L, LUA_GLOBALSINDEX);
  const int globals = lua_gettop(L);
  install_metered_builtins(L, globals);
  install_error_handler(rt, L, globals);
  remove_unsafe_globals(L, globals);
  const int proxies = push_proxy_registry(rt, L);
  install_guarded_builtins(L, globals);
  install_redis_table(L, globals);
  track_cjson(rt, L, globals);
  // getmetatable() of a protected table answers with this read-only empty table.
  lua_newtable(L);
  make_proxy(L, proxies, 0);
  const int marker = lua_gettop(L);
  protect_libraries(L, globals, proxies, marker);
  protect_globals(L, globals, proxies, marker);

  lua_pushvalue(L, globals);
  rt.globals_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  rt.keys_ref = make_script_array(L, globals, "KEYS");
  rt.argv_ref = make_script_array(L, globals, "ARGV");
  rt.keys_filled = rt.argv_filled = 0;
  rt.arrays_as_filled = false;
  rt.keys_shadow.clear();
  rt.argv_shadow.clear();
  lua_settop(L, 0);
  lua_gc(L, LUA_GCRESTART, 0);
  rt.built_bytes = rt.used_bytes;
  rt.arena.seal();
}

void close_state(LuaRuntime& rt) {
  if (rt.L) lua_close(rt.L);
  rt.L = nullptr;
  rt.arena.release();
  rt.used_bytes = 0;
  rt.forget_scripts();
}

LuaRuntime::~LuaRuntime() { close_state(*this); }

}  // namespace locksim::redis
