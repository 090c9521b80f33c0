#pragma once
// Lua 5.1 scripting as Redis 7.0 embeds it: EVAL, EVALSHA, SCRIPT (internal).
#include <memory>
#include <string>
#include <string_view>

#include "locksim/sim/redis/script_host.hpp"
#include "locksim/sim/redis/script_shebang.hpp"
#include "locksim/sim/redis/server_state.hpp"

namespace locksim::redis {

struct LuaRuntime;
}  // namespace locksim::redis
struct lua_State;
namespace locksim::redis {

class ScriptEngine {
 public:
  explicit ScriptEngine(const ServerOptions& options);
  ~ScriptEngine();
  ScriptEngine(const ScriptEngine&) = delete;
  ScriptEngine& operator=(const ScriptEngine&) = delete;

  // argv is the full EVAL / EVALSHA command.
  // argv is the full EVAL / EVALSHA (/ _RO) command.
  // `function` (FCALL): runs the function registered under that name instead.
  Reply eval(ExecContext& ctx, const Command& argv, bool by_sha, bool read_only = false,
             std::string_view function = {});
  // SCRIPT LOAD: compiles and caches; the SHA-1 or a compile error.
  Reply load(std::string_view body);
  bool exists(std::string_view sha) const;
  size_t cached_scripts() const;  // INFO memory: number_of_cached_scripts
  size_t lua_bytes() const;       // INFO memory: used_memory_lua
  // SCRIPT FLUSH: a fresh Lua state, no cached scripts.
  void flush();
  // While a script runs (only another client's command, through a ScriptHost, sees one):
  bool running() const;
  // The running script (FUNCTION STATS), or null.
  const RunningScript* running_script() const;
  // Redis's -BUSY for a command that is not allow-busy.
  Reply busy_error() const;
  // SCRIPT KILL (by_script_kill) or FUNCTION KILL: OK and the script stops, or why not.
  Reply kill(bool by_script_kill);

  // Hooks for Redis 7 functions (functions.cpp), which live in the same Lua state.
  lua_State* lua();
  uint64_t generation() const;  // changes when flush() replaced the state
  void set_limits(bool on);     // the memory cap, as while a script runs
  bool memory_exceeded() const;
  // Registers the Lua function at the top of the stack (popped) as FCALL's `name`.
  void register_function(const std::string& name, ScriptFlags flags);
  void unregister_function(const std::string& name);

 private:
  std::unique_ptr<LuaRuntime> runtime_;
  uint64_t generation_ = 0;
};

}  // namespace locksim::redis
