#pragma once
// The script budget seen from Lua's C functions: work done inside C (pattern
// matching, string building, sorting) is invisible to the instruction hook, so
// those functions charge it here. Internal to the scripting engine.
#include <lua.hpp>

#include <cstdint>

namespace locksim::redis {

// Adds `cost` instruction-equivalents to the running script; raises the
// budget error (a Lua error) once the script's or the run's budget is spent.
void lua_charge(lua_State* L, uint64_t cost);
// The Lua heap cap: string building refuses results above it before allocating.
size_t lua_memory_cap(lua_State* L);
// Raises "not enough memory" as an out-of-memory of the script (an OOM reply).
int lua_raise_out_of_memory(lua_State* L);

// Replaces string.find, match, gmatch and gsub in the table at `string_table`
// by metered versions with a recursion limit ("pattern too complex", as Lua 5.2).
void install_pattern_functions(lua_State* L, int string_table);
// Replaces string.rep and wraps the other C functions whose work grows with
// their input (string.*, table.concat/sort, unpack, xpcall) by metered versions.
void install_metered_builtins(lua_State* L, int globals);

}  // namespace locksim::redis
