#pragma once
// The sandbox Redis 7.0.15 puts scripts in (internal to the script_*.cpp files): no
// files, printing or environments; read-only libraries and globals; a pcall that reads
// error tables; tostring and load that stay deterministic and safe. build_state
// (script_state.cpp) calls these in Redis's order.
#include <lua.hpp>

#include "locksim/sim/redis/lua_runtime.hpp"

namespace locksim::redis {

// What Redis takes away from scripts, once the error handler has kept debug.getinfo.
void remove_unsafe_globals(lua_State* L, int globals);
// The registry of read-only proxies (proxy -> backing, weak keys), left on the stack; returns its index.
int push_proxy_registry(LuaRuntime& rt, lua_State* L);
// Base functions that must see through (or refuse) the proxies, Redis's pcall, and the
// deterministic tostring and safe load.
void install_guarded_builtins(lua_State* L, int globals);
// Replaces the table at the top of the stack by a read-only proxy of it, registered in the
// proxies table; getmetatable(proxy) answers `shared_metatable_marker` (a stack index) unless it is 0.
void make_proxy(lua_State* L, int proxies_index, int shared_metatable_marker);
// The libraries behind read-only proxies; marker is what getmetatable() of a protected table answers.
void protect_libraries(lua_State* L, int globals, int proxies, int marker);
// Globals: reading a missing one is an error, writing any is an error.
void protect_globals(lua_State* L, int globals, int proxies, int marker);

}  // namespace locksim::redis
