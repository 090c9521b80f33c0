// Lua scripting with Redis 7.0.15's observable behaviour. This file is the engine's
// face: its runtime from the pool, and the commands EVAL, EVALSHA, their _RO forms and
// SCRIPT. What a script is: script_cache.cpp; how it runs: script_run.cpp; the Lua
// binding: script_lua.cpp (values), script_redis_api.cpp (the redis table),
// script_sandbox.cpp and script_state.cpp (the state scripts get).
#include "locksim/sim/redis/scripting.hpp"

#include <algorithm>
#include <vector>

#include "locksim/sim/redis/arguments.hpp"
#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/lua_runtime.hpp"

namespace locksim::redis {

ScriptEngine::ScriptEngine(const ServerOptions& options) : runtime_(acquire_lua_runtime()) {
  runtime_->options = options;
  runtime_->hook_step =
      static_cast<int>(std::min<uint64_t>(1000, std::max<uint64_t>(1, options.lua_instruction_budget)));
  runtime_->rand48 = LuaRuntime::kRand48Start;
  runtime_->run_instructions = 0;
}

ScriptEngine::~ScriptEngine() { release_lua_runtime(std::move(runtime_)); }

lua_State* ScriptEngine::lua() {  // functions.cpp runs Lua in the state
  runtime_->touched = true;
  return runtime_->L;
}
uint64_t ScriptEngine::generation() const { return generation_; }
void ScriptEngine::set_limits(bool on) {
  runtime_->memory_exceeded = false;
  runtime_->enforce_memory = on;
  runtime_->arrays_as_filled = false;  // a library's code may reach KEYS and ARGV
}
bool ScriptEngine::memory_exceeded() const { return runtime_->memory_exceeded; }

// ---- command handlers -------------------------------------------------------------

Reply cmd_eval(ExecContext& ctx, const Command& argv) { return ctx.server.script_engine().eval(ctx, argv, false); }

Reply cmd_evalsha(ExecContext& ctx, const Command& argv) { return ctx.server.script_engine().eval(ctx, argv, true); }

Reply cmd_eval_ro(ExecContext& ctx, const Command& argv) {
  return ctx.server.script_engine().eval(ctx, argv, false, true);
}

Reply cmd_evalsha_ro(ExecContext& ctx, const Command& argv) {
  return ctx.server.script_engine().eval(ctx, argv, true, true);
}

Reply cmd_script(ExecContext& ctx, const Command& argv) {
  ScriptEngine& engine = ctx.server.script_engine();
  if (equals_lower(argv[1], "load")) return engine.load(argv[2]);
  if (equals_lower(argv[1], "exists")) {
    std::vector<Reply> found;
    for (size_t i = 2; i < argv.size(); ++i) found.push_back(Reply::integer_(engine.exists(argv[i]) ? 1 : 0));
    return Reply::array(std::move(found));
  }
  if (equals_lower(argv[1], "kill")) return engine.kill(true);
  if (equals_lower(argv[1], "debug")) return error_reply("ERR SCRIPT DEBUG is not supported by the locksim model");
  if (equals_lower(argv[1], "help")) {
    static constexpr const char* kHelp[] = {
        "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "DEBUG (YES|SYNC|NO)",
        "    Set the debug mode for subsequent scripts executed.",
        "EXISTS <sha1> [<sha1> ...]",
        "    Return information about the existence of the scripts in the script cache.",
        "FLUSH [ASYNC|SYNC]",
        "    Flush the Lua scripts cache. Very dangerous on replicas.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the scripts cache.",
        "    * SYNC: Synchronously flush the scripts cache.",
        "KILL",
        "    Kill the currently executing Lua script.",
        "LOAD <script>",
        "    Load a script into the scripts cache without executing it.",
        "HELP",
        "    Prints this help.",
    };
    std::vector<Reply> lines;
    for (const char* line : kHelp) lines.push_back(Reply::status(line));
    return Reply::array(std::move(lines));
  }
  // flush
  if (argv.size() > 3 || (argv.size() == 3 && !equals_lower(argv[2], "async") && !equals_lower(argv[2], "sync")))
    return error_reply("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
  engine.flush();
  return Reply::ok();
}

}  // namespace locksim::redis
