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
// say so, or table.sort and table.remove, which it can reach only through the globals
// `table` or `_G` (script_run.cpp then refills those tables knowing what they hold).
#include <string_view>

namespace locksim::redis {

struct ChunkWrites {
  bool globals = true;  // a SETGLOBAL in any of its functions
  bool fields = true;   // a SETTABLE in any of its functions
  // It reads the global `table` or `_G` (a global's name is always a constant), so it may
  // reach table.sort and table.remove, which move a table's values without a note.
  bool table_library = true;
};

// What the lua_dump of a chunk (Lua 5.1's format) writes; everything, if it is not a
// chunk this reader knows (the safe answer).
ChunkWrites chunk_writes(std::string_view chunk);

}  // namespace locksim::redis
