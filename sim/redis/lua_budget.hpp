#pragma once
// The script budget seen from Lua's C functions: work done inside C (pattern
// matching, string building, sorting) is invisible to the instruction hook, so
// those functions charge it here. Internal to the scripting engine.
#include <lua.hpp>

#include <cstdint>

namespace locksim::redis {

// The host of a Lua state that uses these builtins: the state's allocator user
// data (lua_getallocf) must point to its LuaMeter. The Redis model's script
// engine is one; a Lua lock variant's client state (lock/lua_runtime) another.
class LuaMeter {
 public:
  // Adds `cost` instruction-equivalents; raises a Lua error once a budget is spent.
  virtual void charge(lua_State* L, uint64_t cost) = 0;
  virtual size_t memory_cap() const = 0;
  // Marks the out-of-memory and raises "not enough memory".
  virtual int raise_out_of_memory(lua_State* L) = 0;

 protected:
  ~LuaMeter() = default;
};

inline LuaMeter& lua_meter(lua_State* L) {
  void* ud = nullptr;
  lua_getallocf(L, &ud);
  return *static_cast<LuaMeter*>(ud);
}
// C work on strings (copying, scanning, building) is charged one instruction per
// this many bytes.
inline constexpr uint64_t kBytesPerInstruction = 8;

// Adds `cost` instruction-equivalents to the running script; raises the
// budget error (a Lua error) once the script's or the run's budget is spent.
inline void lua_charge(lua_State* L, uint64_t cost) { lua_meter(L).charge(L, cost); }
// The Lua heap cap: string building refuses results above it before allocating.
inline size_t lua_memory_cap(lua_State* L) { return lua_meter(L).memory_cap(); }
// Raises "not enough memory" as an out-of-memory of the script (an OOM reply).
inline int lua_raise_out_of_memory(lua_State* L) { return lua_meter(L).raise_out_of_memory(L); }

// Replaces string.find, match, gmatch and gsub in the table at `string_table`
// by metered versions with a recursion limit ("pattern too complex", as Lua 5.2).
void install_pattern_functions(lua_State* L, int string_table);
// Replaces string.rep and wraps the other C functions whose work grows with
// their input (string.*, table.concat/sort, unpack, xpcall) by metered versions.
void install_metered_builtins(lua_State* L, int globals);

}  // namespace locksim::redis
