#pragma once
// Guards around the C libraries Redis gives scripts (internal; lua_lib_guards.cpp):
// Debian's lua-bitop and lua-cjson lack fixes Redis made to its own copies, and
// their work in C is invisible to the instruction hook and the memory cap.
#include <lua.hpp>

namespace locksim::redis {

// Replaces bit.tohex in the table at `table` (CVE-2024-31449).
void guard_bit_library(lua_State* L, int table);
// Replaces cjson.encode, decode and new in the table at `table` (CVE-2022-24834
// and the buffer limits of lua-cjson 2.1.0); instances made by new are guarded too.
void guard_cjson_library(lua_State* L, int table);

}  // namespace locksim::redis
