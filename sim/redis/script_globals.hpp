#pragma once
// What a compiled script's own code can write (internal to the script engine).
//
// Redis 7 makes the globals read-only; stock Lua 5.1 has no such flag, so a script's
// environment is a proxy that refuses writes and reads through to the real globals
// (script_sandbox.cpp), at the price of a metatable hop on every global read. A
// function can write its environment only with SETGLOBAL: a chunk none of whose
// functions holds one may run with the real global table as its environment, which
// reads the same values and raises the same error for a missing name (that table's
// own metatable), while every other way to a global (_G, rawset, a chunk it loads)
// still meets the proxy.
//
// Likewise a chunk with no SETTABLE writes no field of a table its code did not make
// (SETLIST fills only a constructor's new table): the KEYS and ARGV it ran with then
// change only through the few C functions that write a table they are given, which
// say so (script_run.cpp refills those tables without searching them for new keys).
#include <string_view>

namespace locksim::redis {

struct ChunkWrites {
  bool globals = true;  // a SETGLOBAL in any of its functions
  bool fields = true;   // a SETTABLE in any of its functions
};

// What the lua_dump of a chunk (Lua 5.1's format) writes; everything, if it is not a
// chunk this reader knows (the safe answer).
ChunkWrites chunk_writes(std::string_view chunk);

}  // namespace locksim::redis
