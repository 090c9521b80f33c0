#pragma once
// The Lua binding of the model's scripting, shared by the script_*.cpp files (as
// Redis's script_lua.c is by eval.c and function_lua.c): the runtime behind a state,
// Redis's error tables, and values between Lua and replies.
//
// Lua reports errors with longjmp, which must never cross a C++ frame that owns
// objects. Every C function here therefore does its C++ work inside an inner scope
// (HostScope: the memory cap lifted, so the only Lua error possible there is a
// genuine out-of-memory) and raises Lua errors only after that scope has ended.
#include <lua.hpp>

#include <cstddef>
#include <string>
#include <string_view>

#include "locksim/sim/redis/lua_budget.hpp"
#include "locksim/sim/redis/lua_runtime.hpp"

namespace locksim::redis {

// The allocator's user data is the runtime (lua_runtime.hpp).
inline LuaRuntime& runtime_of(lua_State* L) { return static_cast<LuaRuntime&>(lua_meter(L)); }

// A C function that may write a table it is given, or run code whose writes were not
// scanned, is being called: KEYS and ARGV may no longer be as filled (lua_runtime.hpp).
inline void note_table_write(lua_State* L) { runtime_of(L).arrays_as_filled = false; }

// Lifts the memory cap while host code runs inside a Lua call.
class HostScope {
 public:
  explicit HostScope(LuaRuntime& rt) : rt_(rt), saved_(rt.enforce_memory) { rt.enforce_memory = false; }
  ~HostScope() { rt_.enforce_memory = saved_; }
  HostScope(const HostScope&) = delete;
  HostScope& operator=(const HostScope&) = delete;

 private:
  LuaRuntime& rt_;
  bool saved_;
};

// Redis replaces CR and LF in reply and error texts by spaces.
std::string without_newlines(std::string text);

// Redis luaPushErrorBuff: "-CODE msg" keeps its code, a bare "msg" gets ERR;
// the text becomes the table {err="CODE msg"}.
std::string error_table_text(std::string_view text);

// Pushes {err=text}.
void push_error_table(lua_State* L, std::string_view text);

// An error table whose error a command made from redis.call/pcall was counted in
// errorstats when it was made: Redis marks it so, and the script's reply that passes
// it on is not counted again (the field is Redis's own, visible to scripts as there).
inline constexpr char kErrorCountedField[] = "ignore_error_stats_update";
void mark_error_counted(lua_State* L);        // on the table at the top of the stack
bool error_counted(lua_State* L, int index);  // the table at `index` is so marked

// Redis redisProtocolToLuaType: a RESP2 reply as a Lua value.
void push_reply(lua_State* L, const Reply& reply);

// Redis luaReplyToRedisReply: the value at `index` as a RESP2 client gets it (ReplyBuilder in
// script_lua.cpp); `budget` counts the elements still allowed.
Reply lua_to_reply(lua_State* L, int index, size_t& budget);

}  // namespace locksim::redis
