// How a script runs (Redis's script.c): KEYS and ARGV set, the instruction budget and
// memory cap enforced, the host told of a long run, SCRIPT KILL honoured, and the result
// or error turned into the reply.
#include <lua.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "locksim/sim/redis/arguments.hpp"
#include "locksim/sim/redis/memory.hpp"
#include "locksim/sim/redis/script_cache.hpp"
#include "locksim/sim/redis/script_lua.hpp"
#include "locksim/sim/redis/scripting.hpp"

namespace locksim::redis {

namespace {

bool run_budget_spent(const LuaRuntime& rt) {
  return rt.options.lua_run_budget != 0 && rt.run_instructions >= rt.options.lua_run_budget;
}

void count_hook(lua_State* L, lua_Debug*);

// Adds work to the running script; once over budget it keeps raising, so a
// script cannot pcall its way out.
void charge_work(lua_State* L, uint64_t cost) {
  LuaRuntime& rt = runtime_of(L);
  const LuaRuntime::Stop stop = rt.account(L, cost);
  if (stop != LuaRuntime::Stop::None) rt.raise_stop(L, stop);
}

// Deterministic script timeout: counts VM instructions, never wall time.
void count_hook(lua_State* L, lua_Debug*) { charge_work(L, static_cast<uint64_t>(runtime_of(L).hook_step)); }

// A new global table `name` holding argv[from, from + count), for a function (FCALL):
// a library's code may keep what it is given, so each call gets tables of its own.
void set_new_script_array(lua_State* L, int globals, const char* name, const Command& argv, size_t from,
                          size_t count) {
  lua_createtable(L, static_cast<int>(count), 0);
  for (size_t i = 0; i < count; ++i) {
    lua_pushlstring(L, argv[from + i].data(), argv[from + i].size());
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  lua_pushstring(L, name);
  lua_insert(L, -2);
  lua_rawset(L, globals);
}

// Overwrites the table at `table` with argv[from, from + count) if it holds nothing but
// what the last fill left: no metatable, and exactly the keys 1..filled, which one
// traversal meets in that order (the array part's); false otherwise, and the caller
// refills it from scratch. The values are rewritten during that traversal, which Lua
// allows for existing fields (clearing included), so a table a script left alone costs
// one pass. An element that already holds its argument is left as it is: a lock sends
// the same token, and often the same key, call after call, and pushing a string
// (hashing it into Lua's string table) is most of what a fill costs.
bool refill_in_place(lua_State* L, int table, size_t filled, const Command& argv, size_t from, size_t count) {
  if (lua_getmetatable(L, table)) {
    lua_pop(L, 1);
    return false;
  }
  size_t i = 0;
  lua_pushnil(L);
  while (lua_next(L, table) != 0) {  // key at -2, value at -1
    if (i == filled || lua_type(L, -2) != LUA_TNUMBER || lua_tonumber(L, -2) != static_cast<lua_Number>(i + 1)) {
      lua_pop(L, 2);
      return false;
    }
    if (i < count) {
      const std::string& arg = argv[from + i];
      size_t len = 0;
      const char* s = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : nullptr;
      if (!s || len != arg.size() || std::memcmp(s, arg.data(), len) != 0) {
        lua_pushlstring(L, arg.data(), arg.size());
        lua_rawseti(L, table, static_cast<int>(i + 1));
      }
    } else {
      lua_pushnil(L);
      lua_rawseti(L, table, static_cast<int>(i + 1));
    }
    lua_pop(L, 1);  // the value; the key stays for lua_next
    ++i;
  }
  if (i != filled) return false;
  for (; i < count; ++i) {
    lua_pushlstring(L, argv[from + i].data(), argv[from + i].size());
    lua_rawseti(L, table, static_cast<int>(i + 1));
  }
  return true;
}

using Shadow = std::vector<std::optional<std::string>>;

// What `shadow` records of an element just filled with `arg`.
void note_filled(Shadow& shadow, size_t i, const std::string& arg) {
  if (arg.size() > LuaRuntime::kShadowedBytes)
    shadow[i].reset();
  else if (shadow[i])
    shadow[i]->assign(arg);  // (its capacity kept)
  else
    shadow[i].emplace(arg);
}

// Whether element i of the table at `table` is the string `arg` (read from the table).
bool element_is(lua_State* L, int table, size_t i, const std::string& arg) {
  lua_rawgeti(L, table, static_cast<int>(i + 1));
  size_t len = 0;
  const char* s = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : nullptr;
  lua_pop(L, 1);  // (a string in the table stays alive)
  return s && len == arg.size() && std::memcmp(s, arg.data(), len) == 0;
}

// Overwrites the table (`ref` in the registry), known to hold exactly what the last fill
// put there (LuaRuntime::arrays_as_filled, `shadow`: as many elements as `filled`), with
// argv[from, from + count): an element whose argument is the one it holds is not touched,
// nor even read when `shadow` knows it, and a table left as it is is not even fetched.
void refill_known(lua_State* L, int ref, size_t filled, Shadow& shadow, const Command& argv, size_t from,
                  size_t count) {
  int table = 0;  // its stack index once fetched
  const auto fetched = [&] {
    if (table == 0) {
      lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
      table = lua_gettop(L);
    }
    return table;
  };
  if (shadow.size() < count) shadow.resize(count);
  for (size_t i = 0; i < count; ++i) {
    const std::string& arg = argv[from + i];
    if (i < filled && (shadow[i] ? *shadow[i] == arg : element_is(L, fetched(), i, arg))) continue;
    fetched();
    lua_pushlstring(L, arg.data(), arg.size());
    lua_rawseti(L, table, static_cast<int>(i + 1));
    note_filled(shadow, i, arg);
  }
  for (size_t i = count; i < filled; ++i) {
    fetched();
    lua_pushnil(L);
    lua_rawseti(L, table, static_cast<int>(i + 1));
  }
  if (shadow.size() > count) shadow.resize(count);
  if (table != 0) lua_settop(L, table - 1);
}

// Fills the global KEYS or ARGV table (`ref` in the registry) with argv[from, from + count),
// for EVAL: a script's body cannot keep anything past its run (the globals and libraries
// are read-only), so the state's own table is refilled.
// The table is the state's own, refilled rather than made anew at each EVAL (a new
// table per call was a fifth of a compare-and-delete, most of it the garbage collected
// later). What a script left in it goes first: any field, any metatable, so the script
// sees exactly the array Redis's luaCreateArray makes. One a script grew large is
// replaced, so that clearing it does not cost every later call. `reinstall`: a function
// had tables of its own as the globals; this one goes back (into the real global table,
// `globals_ref`). `filled`: how many elements the last fill left; `shadow`: what it put
// there, which `as_filled` (LuaRuntime::arrays_as_filled) says the table still holds.
void fill_script_array(lua_State* L, int globals_ref, const char* name, int& ref, size_t& filled, Shadow& shadow,
                       const Command& argv, size_t from, size_t count, bool reinstall, bool as_filled) {
  constexpr int kMostFieldsKept = 64;
  if (!reinstall && as_filled) {
    refill_known(L, ref, filled, shadow, argv, from, count);
    filled = count;
    return;
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
  const int table = lua_gettop(L);
  shadow.resize(count);
  for (size_t i = 0; i < count; ++i) note_filled(shadow, i, argv[from + i]);
  if (!reinstall && refill_in_place(L, table, filled, argv, from, count)) {
    filled = count;
    lua_pop(L, 1);
    return;
  }
  int fields = 0;
  lua_pushnil(L);
  while (lua_next(L, table) != 0) {
    lua_pop(L, 1);  // the value
    lua_pushvalue(L, -1);
    lua_pushnil(L);
    lua_rawset(L, table);  // clearing a field while traversing is allowed (lua_next)
    ++fields;
  }
  if (fields > kMostFieldsKept) {
    lua_pop(L, 1);
    lua_createtable(L, static_cast<int>(count), 0);
    lua_pushvalue(L, -1);
    lua_rawseti(L, LUA_REGISTRYINDEX, ref);
    reinstall = true;
  } else if (lua_getmetatable(L, table)) {
    lua_pop(L, 1);
    lua_pushnil(L);
    lua_setmetatable(L, table);
  }
  if (reinstall) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, globals_ref);
    lua_pushstring(L, name);
    lua_pushvalue(L, -3);
    lua_rawset(L, -3);
    lua_pop(L, 1);
  }
  for (size_t i = 0; i < count; ++i) {
    lua_pushlstring(L, argv[from + i].data(), argv[from + i].size());
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  filled = count;
  lua_pop(L, 1);
}

// KEYS and ARGV for this run: EVAL's refilled, a function's (FCALL) new.
void set_script_arrays(LuaRuntime& rt, const Command& argv, size_t keys, bool is_eval) {
  lua_State* L = rt.L;
  const bool as_filled = rt.arrays_as_filled;  // as the last run left them
  rt.arrays_as_filled = false;                 // unless this run is known to leave them so
  if (is_eval) {
    fill_script_array(L, rt.globals_ref, "KEYS", rt.keys_ref, rt.keys_filled, rt.keys_shadow, argv, 3, keys,
                      rt.script_arrays_displaced, as_filled);
    fill_script_array(L, rt.globals_ref, "ARGV", rt.argv_ref, rt.argv_filled, rt.argv_shadow, argv, 3 + keys,
                      argv.size() - 3 - keys, rt.script_arrays_displaced, as_filled);
    rt.script_arrays_displaced = false;
    return;
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, rt.globals_ref);
  const int globals = lua_gettop(L);
  set_new_script_array(L, globals, "KEYS", argv, 3, keys);
  set_new_script_array(L, globals, "ARGV", argv, 3 + keys, argv.size() - 3 - keys);
  rt.script_arrays_displaced = true;
  lua_pop(L, 1);
}

Reply error_from_lua(lua_State* L, const std::string& sha) {
  if (!lua_istable(L, -1)) {
    const char* msg = lua_isstring(L, -1) ? lua_tostring(L, -1) : "execution failure";
    return Reply::error(without_newlines("ERR Error running script f_" + sha + ", " + std::string(msg).substr(0, 100)));
  }
  auto field = [&](const char* name) -> std::optional<std::string> {
    lua_pushstring(L, name);
    lua_rawget(L, -2);
    std::optional<std::string> out;
    if (lua_isstring(L, -1)) out = lua_tostring(L, -1);
    lua_pop(L, 1);
    return out;
  };
  std::string text = field("err").value_or("");
  auto source = field("source");
  auto line = field("line");
  if (source && line) text += " script: " + sha + ", on " + *source + ":" + *line + ".";
  return Reply::error(without_newlines(std::move(text)));
}

// The reply of a finished run, the Lua stack as the run left it (reply_of_run clears it).
Reply answer_of_run(LuaRuntime& rt, int status, const std::string& sha, std::string_view function,
                    Server::State& server) {
  lua_State* L = rt.L;
  if (rt.budget_exceeded)
    return Reply::error("BUSY Script exceeded the instruction budget of " +
                        std::to_string(rt.options.lua_instruction_budget) +
                        " and was stopped; its earlier writes are kept");
  if (rt.memory_exceeded)
    return Reply::error("OOM Script exceeded the Lua memory limit of " +
                        std::to_string(rt.options.lua_memory_limit_bytes) + " bytes");
  if (status != 0) {
    if (error_counted(L, -1)) server.error_already_counted = true;
    return error_from_lua(L, function.empty() ? sha : std::string(function));
  }
  if (rt.killed) return Reply::error("ERR Script killed by user with SCRIPT KILL...");  // no instruction left to raise in
  size_t budget = 1'000'000;
  // Only a table converts to an error reply: anything else is made in the caller's place.
  if (lua_type(L, -1) != LUA_TTABLE) return lua_to_reply(L, -1, budget);
  Reply reply = lua_to_reply(L, -1, budget);
  if (reply.is_error() && error_counted(L, -1)) server.error_already_counted = true;
  return reply;
}

// What a finished run answers: its stopped budget or memory, its error, or its value.
// `server` learns whether an error reply passes on one already counted (command_stats.hpp).
// (Made in place and returned as it is: no move of the reply on the way.)
Reply reply_of_run(LuaRuntime& rt, int status, const std::string& sha, std::string_view function,
                   Server::State& server) {
  Reply reply = answer_of_run(rt, status, sha, function, server);
  lua_settop(rt.L, 0);
  if (rt.memory_exceeded || rt.budget_exceeded) lua_gc(rt.L, LUA_GCCOLLECT, 0);
  return reply;
}

constexpr const char* kBusyEval = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
constexpr const char* kBusyFunction =
    "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";

}  // namespace

Reply ScriptEngine::eval(ExecContext& ctx, const Command& argv, bool by_sha, bool read_only,
                         std::string_view function) {
  LuaRuntime& rt = *runtime_;
  lua_State* L = rt.L;
  int64_t numkeys = 0;
  if (!parse_int64(argv[2], numkeys)) return error_reply(kNotInteger);
  if (numkeys > static_cast<int64_t>(argv.size()) - 3)
    return error_reply("ERR Number of keys can't be greater than number of args");
  if (numkeys < 0) return error_reply("ERR Number of keys can't be negative");
  // The keys a script declares are the ones it reads: their lookups start loading now.
  constexpr int64_t kKeysPrefetched = 4;
  for (int64_t i = 0; i < numkeys && i < kKeysPrefetched; ++i)
    ctx.db().keys.prefetch(argv[3 + static_cast<size_t>(i)]);
  std::string scratch;
  ScriptRef script;
  rt.touched = true;
  if (auto error = find_script(rt, argv, by_sha, function, scratch, script)) return *error;
  const std::string& sha = *script.sha;

  lua_settop(L, 0);
  lua_rawgeti(L, LUA_REGISTRYINDEX, rt.handler_ref);
  set_script_arrays(rt, argv, static_cast<size_t>(numkeys), function.empty());
  lua_rawgeti(L, LUA_REGISTRYINDEX, script.function);

  if (run_budget_spent(rt))
    return Reply::error("BUSY this run's Lua budget of " + std::to_string(rt.options.lua_run_budget) +
                        " instructions is spent: no more scripts run");
  const ScriptFlags flags = script.flags;
  if (read_only && flags.shebang && !flags.no_writes)
    return error_reply("ERR Can not execute a script with write flag using *_ro command.");
  // Redis marks a flagged script that may write and lacks allow-oom deny-oom: over
  // maxmemory it is refused before it runs (an unflagged one fails at its first write).
  if (flags.shebang && !flags.no_writes && !flags.allow_oom && over_maxmemory(ctx.server))
    return Reply::error(kOomError);
  rt.read_only = read_only || flags.no_writes;
  rt.allow_oom = flags.allow_oom;
  rt.resp = 2;
  rt.ctx = &ctx;
  const ExecContext saved = ctx;
  rt.instructions = 0;
  rt.budget_exceeded = false;
  rt.memory_exceeded = false;
  rt.running = RunningScript{.is_eval = function.empty(),
                             .wrote = false,
                             .name = function.empty() ? std::string_view(sha) : function,
                             .command = &argv,
                             .started_ms = ctx.now_ms};
  rt.killed = false;
  rt.host_due = kScriptProgressInstructions;
  ScriptHost* host = ctx.server.script_host;
  if (host) host->script_started();
  lua_sethook(L, count_hook, LUA_MASKCOUNT, rt.hook_step);
  rt.enforce_memory = true;
  rt.gc_useful = true;
  rt.arrays_as_filled = function.empty() && !script.may_change_arrays;  // until a writer is called
  const int status = lua_pcall(L, 0, 1, 1);
  rt.arrays_as_filled = rt.arrays_as_filled && status == 0;  // (the error handler writes an error table)
  rt.enforce_memory = false;
  lua_sethook(L, nullptr, 0, 0);
  rt.ctx = nullptr;
  if (host) host->script_ended();
  ctx.in_script = saved.in_script;  // a SELECT inside the script stays there
  ctx.db_index = saved.db_index;
  ctx.may_block = saved.may_block;
  return reply_of_run(rt, status, sha, function, ctx.server);
}

bool ScriptEngine::running() const { return runtime_->ctx != nullptr; }

const RunningScript* ScriptEngine::running_script() const { return running() ? &runtime_->running : nullptr; }


Reply ScriptEngine::busy_error() const { return Reply::error(runtime_->running.is_eval ? kBusyEval : kBusyFunction); }

// Redis scriptKill: a script that wrote cannot be undone, so it cannot be stopped; each
// KILL stops only its own kind.
Reply ScriptEngine::kill(bool by_script_kill) {
  if (!running()) return Reply::error("NOTBUSY No scripts in execution right now.");
  LuaRuntime& rt = *runtime_;
  if (rt.running.wrote)
    return Reply::error(
        "UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the "
        "script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.");
  if (by_script_kill != rt.running.is_eval) return busy_error();
  rt.killed = true;
  return Reply::ok();
}

void LuaRuntime::charge(lua_State* state, uint64_t cost) {
  if (ctx) charge_work(state, cost);  // outside a script (building the state): free
}

LuaRuntime::Stop LuaRuntime::account(lua_State*, uint64_t cost) {
  if (!ctx) return Stop::None;  // outside a script (building the state): free
  instructions += cost;
  run_instructions += cost;
  if (instructions >= options.lua_instruction_budget || run_budget_spent(*this)) budget_exceeded = true;
  if (budget_exceeded) return Stop::Budget;
  ScriptHost* host = ctx->server.script_host;
  if (host && !killed && instructions >= host_due) {
    host_due = instructions + kScriptProgressInstructions;
    running.busy_reply_threshold_ms = ctx->server.config.lua_time_limit_ms;
    if (host->script_progress(running)) killed = true;
  }
  return killed ? Stop::Killed : Stop::None;  // Redis luaMaskCountHook: uncatchable, like the budget
}

void LuaRuntime::raise_stop(lua_State* state, Stop stop) {
  // From now on fire at every instruction of this thread, so an error caught by a
  // pcall inside a loop is raised again as soon as control is back in the loop.
  lua_sethook(state, count_hook, LUA_MASKCOUNT, 1);
  if (stop == Stop::Budget)
    lua_pushstring(state, "Script exceeded the instruction budget");
  else
    push_error_table(state, "ERR Script killed by user with SCRIPT KILL...");
  lua_error(state);
  __builtin_unreachable();
}

int LuaRuntime::raise_out_of_memory(lua_State* state) {
  memory_exceeded = true;
  lua_pushliteral(state, "not enough memory");
  return lua_error(state);
}

}  // namespace locksim::redis
