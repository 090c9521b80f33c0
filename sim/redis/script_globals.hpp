#pragma once
// Whether a compiled script can assign a global (internal to the script engine).
//
// Redis 7 makes the globals read-only; stock Lua 5.1 has no such flag, so a script's
// environment is a proxy that refuses writes and reads through to the real globals
// (script_sandbox.cpp), at the price of a metatable hop on every global read. A
// function can write its environment only with SETGLOBAL: a chunk none of whose
// functions holds one may run with the real global table as its environment, which
// reads the same values and raises the same error for a missing name (that table's
// own metatable), while every other way to a global (_G, rawset, a chunk it loads)
// still meets the proxy.
#include <string_view>

namespace locksim::redis {

// True if the lua_dump of a chunk (Lua 5.1's format) holds a SETGLOBAL in any of its
// functions, or is not a chunk this reader knows (the safe answer).
bool chunk_writes_globals(std::string_view chunk);

}  // namespace locksim::redis
