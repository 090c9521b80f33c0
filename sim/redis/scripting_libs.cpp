#include "locksim/sim/redis/scripting_libs.hpp"

#include "locksim/sim/redis/lua_lib_guards.hpp"

extern "C" {
int luaopen_cjson(lua_State* L);  // liblua5.1-cjson (lua-cjson 2.1.0, as Redis bundles)
int luaopen_bit(lua_State* L);    // liblua5.1-bitop (LuaBitOp 1.0.2, as Redis bundles)
}

namespace locksim::redis {

int open_struct_library(lua_State* L);    // lua_struct.cpp
int open_cmsgpack_library(lua_State* L);  // lua_cmsgpack.cpp

namespace {
// Opens a library as a global; `guard` (if any) then replaces its unsafe functions.
void open_as_global(lua_State* L, lua_CFunction open, const char* name, void (*guard)(lua_State*, int) = nullptr) {
  lua_pushcfunction(L, open);
  lua_pushstring(L, name);
  lua_call(L, 1, 1);  // the module table
  if (guard) guard(L, lua_gettop(L));
  lua_setglobal(L, name);
}
}  // namespace

// Every Lua state that gives scripts these libraries opens them here: the Redis
// model's script engine, hence EVAL in the console, in `serve` and in a variant's
// simulated Redis alike.
void open_redis_libraries(lua_State* L) {
  open_as_global(L, luaopen_cjson, "cjson", guard_cjson_library);
  open_as_global(L, luaopen_bit, "bit", guard_bit_library);
  open_as_global(L, open_struct_library, "struct");
  open_as_global(L, open_cmsgpack_library, "cmsgpack");
}

}  // namespace locksim::redis
