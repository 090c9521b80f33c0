// Redis 7.0.15's script sandbox over Debian's stock Lua 5.1.
#include "locksim/sim/redis/script_sandbox.hpp"

#include <cstdio>

#include "locksim/sim/redis/script_lua.hpp"
#include "locksim/sim/redis/scripting_libs.hpp"

namespace locksim::redis {

// Redis 7.0.15 marks _G and the library tables read-only inside its patched Lua.
// Debian's stock Lua has no such flag, so each protected table is an empty proxy
// whose metatable reads through to the real table and refuses writes.

namespace {

constexpr const char* kReadonlyError = "Attempt to modify a readonly table";

// Redis 7.0 replaces pcall so that a caught error table reads as its message.
int lua_redis_style_pcall(lua_State* L) {
  luaL_checkany(L, 1);
  const int argc = lua_gettop(L);
  lua_pushboolean(L, 1);
  lua_insert(L, 1);
  if (lua_pcall(L, argc - 1, LUA_MULTRET, 0) != 0) {
    lua_remove(L, 1);
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "err");
      if (lua_isstring(L, -1))
        lua_replace(L, -2);
      else
        lua_pop(L, 1);
    }
    lua_pushboolean(L, 0);
    lua_insert(L, 1);
  }
  return lua_gettop(L);
}


bool backing_of(lua_State* L, int index) {  // pushes the backing table if index is a proxy
  LuaRuntime& rt = runtime_of(L);
  index = index < 0 ? lua_gettop(L) + index + 1 : index;
  lua_rawgeti(L, LUA_REGISTRYINDEX, rt.proxies_ref);
  lua_pushvalue(L, index);
  lua_rawget(L, -2);
  lua_remove(L, -2);
  if (lua_istable(L, -1)) return true;
  lua_pop(L, 1);
  return false;
}

int readonly_newindex(lua_State* L) { return luaL_error(L, "%s", kReadonlyError); }

int missing_global(lua_State* L) {
  const char* name = lua_tostring(L, 2);
  return luaL_error(L, "Script attempted to access nonexistent global variable '%s'", name ? name : "?");
}

int guarded_rawset(lua_State* L) {
  note_table_write(L);
  luaL_checktype(L, 1, LUA_TTABLE);
  if (backing_of(L, 1)) {
    lua_pushstring(L, kReadonlyError);  // no position: the real error comes from inside C
    return lua_error(L);
  }
  luaL_checkany(L, 2);
  luaL_checkany(L, 3);
  lua_settop(L, 3);
  lua_rawset(L, 1);
  return 1;
}

int guarded_rawget(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  if (backing_of(L, 1)) lua_replace(L, 1);
  lua_settop(L, 2);
  lua_rawget(L, 1);
  return 1;
}

int guarded_setmetatable(lua_State* L) {
  note_table_write(L);
  if (lua_istable(L, 1) && backing_of(L, 1)) {
    lua_pushstring(L, kReadonlyError);
    return lua_error(L);
  }
  lua_pushvalue(L, lua_upvalueindex(1));  // the original setmetatable
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

// table.insert writes with raw access, which a proxy cannot intercept.
int guarded_table_writer(lua_State* L) {
  note_table_write(L);
  if (lua_istable(L, 1) && backing_of(L, 1)) {
    lua_pushstring(L, kReadonlyError);
    return lua_error(L);
  }
  lua_pushvalue(L, lua_upvalueindex(1));  // the original function
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

// getmetatable("") answers a read-only view of the string metatable.
int guarded_getmetatable(lua_State* L) {
  luaL_checkany(L, 1);
  if (lua_type(L, 1) == LUA_TSTRING) {
    lua_pushvalue(L, lua_upvalueindex(2));
    return 1;
  }
  lua_pushvalue(L, lua_upvalueindex(1));  // the original getmetatable
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

int guarded_next(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  if (backing_of(L, 1)) lua_replace(L, 1);
  lua_settop(L, 2);
  if (lua_next(L, 1)) return 2;
  lua_pushnil(L);
  return 1;
}

int guarded_pairs(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_pushvalue(L, lua_upvalueindex(1));  // guarded_next
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

int ipairs_step(lua_State* L) {
  int i = luaL_checkint(L, 2) + 1;
  lua_pushinteger(L, i);
  lua_rawgeti(L, 1, i);
  return lua_isnil(L, -1) ? 0 : 2;
}

int guarded_ipairs(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_pushcfunction(L, ipairs_step);
  if (!backing_of(L, 1)) lua_pushvalue(L, 1);
  lua_pushinteger(L, 0);
  return 3;
}

// tostring() of a table, function or coroutine shows an address in stock Lua; the
// model shows a per-state sequence number instead so that replies stay deterministic.
int deterministic_tostring(lua_State* L) {
  luaL_checkany(L, 1);
  const int type = lua_type(L, 1);
  const bool by_address = type == LUA_TTABLE || type == LUA_TFUNCTION || type == LUA_TTHREAD || type == LUA_TUSERDATA ||
                          type == LUA_TLIGHTUSERDATA;
  if (!by_address || luaL_callmeta(L, 1, "__tostring")) {
    if (!by_address) {
      lua_pushvalue(L, lua_upvalueindex(1));  // the original tostring
      lua_pushvalue(L, 1);
      lua_call(L, 1, 1);
    }
    return 1;
  }
  lua_pushvalue(L, lua_upvalueindex(2));  // object -> id, weak keys
  lua_pushvalue(L, 1);
  lua_rawget(L, -2);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    lua_pushnumber(L, lua_tonumber(L, lua_upvalueindex(3)) + 1);
    lua_pushvalue(L, -1);
    lua_replace(L, lua_upvalueindex(3));
    lua_pushvalue(L, 1);
    lua_pushvalue(L, -2);
    lua_rawset(L, -4);
  }
  char text[64];
  std::snprintf(text, sizeof text, "%s: 0x%08llx", luaL_typename(L, 1),
                static_cast<unsigned long long>(lua_tonumber(L, -1)));
  lua_pushstring(L, text);
  return 1;
}

// loadstring/load without precompiled (binary) chunks, which could break the VM.
int safe_loadstring(lua_State* L) {
  note_table_write(L);
  size_t len = 0;
  const char* s = luaL_checklstring(L, 1, &len);
  lua_charge(L, 1 + len / 4);  // compiling is linear in the source
  const char* name = luaL_optstring(L, 2, s);
  if (len > 0 && s[0] == LUA_SIGNATURE[0]) {
    lua_pushnil(L);
    lua_pushstring(L, "binary chunks are not allowed");
    return 2;
  }
  if (luaL_loadbuffer(L, s, len, name) == 0) return 1;
  lua_pushnil(L);
  lua_insert(L, -2);
  return 2;
}

int safe_load(lua_State* L) {
  note_table_write(L);
  luaL_checktype(L, 1, LUA_TFUNCTION);
  const char* name = luaL_optstring(L, 2, "=(load)");
  lua_settop(L, 2);
  luaL_Buffer buffer;
  luaL_buffinit(L, &buffer);
  for (;;) {
    lua_pushvalue(L, 1);
    lua_call(L, 0, 1);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      break;
    }
    if (!lua_isstring(L, -1)) return luaL_error(L, "reader function must return a string");
    if (lua_objlen(L, -1) == 0) {
      lua_pop(L, 1);
      break;
    }
    luaL_addvalue(&buffer);
  }
  luaL_pushresult(&buffer);
  lua_pushcfunction(L, safe_loadstring);
  lua_insert(L, -2);
  lua_pushstring(L, name);
  lua_call(L, 2, 2);
  return 2;
}

}  // namespace

void make_proxy(lua_State* L, int proxies_index, int shared_metatable_marker) {
  // stack: ... backing
  const int backing = lua_gettop(L);
  lua_newtable(L);  // proxy
  const int proxy = lua_gettop(L);
  lua_newtable(L);  // its metatable
  lua_pushstring(L, "__index");
  lua_pushvalue(L, backing);
  lua_rawset(L, -3);
  lua_pushstring(L, "__newindex");
  lua_pushcfunction(L, readonly_newindex);
  lua_rawset(L, -3);
  if (shared_metatable_marker != 0) {  // getmetatable(proxy) yields this (read-only) table
    lua_pushstring(L, "__metatable");
    lua_pushvalue(L, shared_metatable_marker);
    lua_rawset(L, -3);
  }
  lua_setmetatable(L, proxy);
  lua_pushvalue(L, proxy);
  lua_pushvalue(L, backing);
  lua_rawset(L, proxies_index);
  lua_replace(L, backing);  // leaves the proxy where the backing was
  lua_settop(L, backing);
}

void remove_unsafe_globals(lua_State* L, int globals) {
  for (const char* removed : {"debug", "dofile", "loadfile", "print", "getfenv", "setfenv", "newproxy"}) {
    lua_pushnil(L);
    lua_setfield(L, globals, removed);
  }
}


int push_proxy_registry(LuaRuntime& rt, lua_State* L) {
  lua_newtable(L);
  lua_newtable(L);
  lua_pushstring(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_pushvalue(L, -1);
  rt.proxies_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  return lua_gettop(L);
}

// Base functions that must see through (or refuse) the proxies.
void install_guarded_builtins(lua_State* L, int globals) {
  lua_pushcfunction(L, lua_redis_style_pcall);
  lua_setfield(L, globals, "pcall");
  lua_pushcfunction(L, guarded_rawset);
  lua_setfield(L, globals, "rawset");
  lua_pushcfunction(L, guarded_rawget);
  lua_setfield(L, globals, "rawget");
  lua_getfield(L, globals, "setmetatable");
  lua_pushcclosure(L, guarded_setmetatable, 1);
  lua_setfield(L, globals, "setmetatable");
  lua_pushcfunction(L, guarded_next);
  lua_pushvalue(L, -1);
  lua_setfield(L, globals, "next");
  lua_pushcclosure(L, guarded_pairs, 1);
  lua_setfield(L, globals, "pairs");
  lua_pushcfunction(L, guarded_ipairs);
  lua_setfield(L, globals, "ipairs");
  lua_getfield(L, globals, "tostring");
  lua_newtable(L);
  lua_newtable(L);
  lua_pushstring(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_pushnumber(L, 0);
  lua_pushcclosure(L, deterministic_tostring, 3);
  lua_setfield(L, globals, "tostring");
  lua_pushcfunction(L, safe_loadstring);
  lua_setfield(L, globals, "loadstring");
  lua_pushcfunction(L, safe_load);
  lua_setfield(L, globals, "load");
}


void protect_libraries(lua_State* L, int globals, int proxies, int marker) {
  for (const char* name : {"string", "math", "table", "coroutine", "redis", kRedisLibraryNames[0],
                           kRedisLibraryNames[1], kRedisLibraryNames[2], kRedisLibraryNames[3]}) {
    lua_getfield(L, globals, name);
    make_proxy(L, proxies, marker);
    lua_setfield(L, globals, name);
  }
  // String methods ("x"):upper() resolve through the same read-only string table,
  // and scripts only ever see a read-only view of the string metatable.
  lua_pushstring(L, "");
  lua_getmetatable(L, -1);
  lua_pushstring(L, "__index");
  lua_getfield(L, globals, "string");
  lua_rawset(L, -3);
  lua_getfield(L, globals, "getmetatable");
  lua_insert(L, -2);
  make_proxy(L, proxies, marker);
  lua_pushcclosure(L, guarded_getmetatable, 2);
  lua_setfield(L, globals, "getmetatable");
  lua_pop(L, 1);
  lua_getfield(L, globals, "table");
  lua_getmetatable(L, -1);
  lua_getfield(L, -1, "__index");          // the real table library behind its proxy
  for (const char* writer : {"insert"}) {  // remove and sort of an empty proxy write nothing
    lua_getfield(L, -1, writer);
    lua_pushcclosure(L, guarded_table_writer, 1);
    lua_setfield(L, -2, writer);
  }
  lua_pop(L, 3);
}

// Globals: reading a missing one is an error, writing any is an error.
void protect_globals(lua_State* L, int globals, int proxies, int marker) {
  lua_newtable(L);
  lua_pushstring(L, "__index");
  lua_pushcfunction(L, missing_global);
  lua_rawset(L, -3);
  lua_setmetatable(L, globals);
  lua_pushvalue(L, globals);
  make_proxy(L, proxies, marker);
  lua_pushstring(L, "_G");
  lua_pushvalue(L, -2);
  lua_rawset(L, globals);
  lua_replace(L, LUA_GLOBALSINDEX);  // chunks loaded from now on see the proxy
}


}  // namespace locksim::redis
