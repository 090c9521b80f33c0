#pragma once
// What a script is (internal to the script_*.cpp files, as Redis's eval.c keeps it):
// a body compiled once into the state under its SHA-1 with its shebang flags, found
// again by SHA-1, by body, or as a function's wrapper ("fn:<name>").
#include <optional>
#include <string>
#include <string_view>

#include "locksim/sim/redis/lua_runtime.hpp"

namespace locksim::redis {

// The script an EVAL, EVALSHA or FCALL runs: its SHA-1 (or "fn:<name>"), flags and function.
struct ScriptRef {
  const std::string* sha = nullptr;
  ScriptFlags flags;
  int function = LUA_NOREF;  // its reference in the registry (LuaRuntime::Compiled)
  bool may_change_arrays = true;   // LuaRuntime::Compiled's
};

// The compiled script EVAL, EVALSHA or FCALL names, compiling (and caching) an EVAL body first; an error reply
// when there is none. A known EVAL body needs no copy: `found` points into the cache, else into `scratch`.
std::optional<Reply> find_script(LuaRuntime& rt, const Command& argv, bool by_sha, std::string_view function,
                                 std::string& scratch, ScriptRef& found);

}  // namespace locksim::redis
