#pragma once
// Lua 5.1 scripting as Redis 7.0 embeds it: EVAL, EVALSHA, SCRIPT (internal).
#include <memory>
#include <string>
#include <string_view>

#include "sim/redis/server_state.hpp"

namespace locksim::redis {

struct LuaRuntime;

class ScriptEngine {
 public:
  explicit ScriptEngine(const ServerOptions& options);
  ~ScriptEngine();
  ScriptEngine(const ScriptEngine&) = delete;
  ScriptEngine& operator=(const ScriptEngine&) = delete;

  // argv is the full EVAL / EVALSHA command.
  // argv is the full EVAL / EVALSHA (/ _RO) command.
  Reply eval(ExecContext& ctx, const Command& argv, bool by_sha, bool read_only = false);
  // SCRIPT LOAD: compiles and caches; the SHA-1 or a compile error.
  Reply load(std::string_view body);
  bool exists(std::string_view sha) const;
  // SCRIPT FLUSH: a fresh Lua state, no cached scripts.
  void flush();

 private:
  std::unique_ptr<LuaRuntime> runtime_;
};

}  // namespace locksim::redis
