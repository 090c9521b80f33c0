// The Lua-variant client's state. Lua reports errors with longjmp, which must
// never cross a C++ frame that owns objects: the C functions below keep their
// C++ values in the runtime's context (never in locals with destructors) when
// they may raise a Lua error.
#include "locksim/lock/lua_runtime.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <tuple>

#include "locksim/lock/command_pool.hpp"
#include "locksim/lock/lock.hpp"
#include "locksim/lock/redis_node.hpp"
#include "locksim/sim/redis/lua_budget.hpp"

namespace locksim::lock {

// The allocator's user data, as the LuaMeter the metered builtins charge.
struct LuaRuntime::Context final : redis::LuaMeter {
  void charge(lua_State* L, uint64_t cost) override;
  size_t memory_cap() const override { return budget.memory_bytes; }
  int raise_out_of_memory(lua_State* L) override {
    memory_exceeded = true;
    lua_pushliteral(L, "not enough memory");
    return lua_error(L);
  }

  LuaRuntime* self = nullptr;
  redis::LuaArena* arena = nullptr;
  LuaBudget budget;
  LockParams params;
  size_t used_bytes = 0;
  uint64_t allocated_unpaid = 0;  // bytes allocated since the hook last charged them
  bool enforce_memory = false;
  bool memory_exceeded = false;
  uint64_t state_instructions = 0;
  uint64_t* call_instructions = nullptr;  // the running call's counter
  uint64_t* run_instructions = nullptr;   // the simulated run's, shared by its clients (Env)
  const char* running = "the top level";  // what the running call is, for messages
  bool budget_exceeded = false;
  std::string budget_error;
  Env* env = nullptr;        // none while the file loads
  bool synchronous = false;  // fence() / still_held(): no waiting
  bool loading = false;
  LuaRequest pending;
  std::string scratch;  // C++ text handed to Lua (see the note at the top)
  std::string client_id;
  std::map<std::string, int> defined;  // contract globals set while loading -> line
};

namespace {

constexpr int kHookStep = 1000;
// What a request to the simulator (a call, a sleep) costs in instructions: an
// event or two of the simulation, far more than one Lua instruction. So a task
// that loops on sleep(0) ends on its budget after thousands of events, not millions.
constexpr uint64_t kRequestCost = 100;
char sim_sentinel;    // yielded by call() and sleep(): "a request for the simulator"
char error_sentinel;  // resumed with: "the reply was an error"

LuaRuntime::Context& ctx(lua_State* L) { return static_cast<LuaRuntime::Context&>(redis::lua_meter(L)); }

void* capped_alloc(void* ud, void* ptr, size_t osize, size_t nsize) {
  auto* c = static_cast<LuaRuntime::Context*>(static_cast<redis::LuaMeter*>(ud));
  if (nsize == 0) {
    c->arena->reallocate(ptr, osize, 0);
    c->used_bytes -= osize;
    return nullptr;
  }
  if (c->enforce_memory && nsize > osize && c->used_bytes + (nsize - osize) > c->budget.memory_bytes) {
    c->memory_exceeded = true;
    return nullptr;  // Lua raises "not enough memory"
  }
  void* grown = c->arena->reallocate(ptr, ptr ? osize : 0, nsize);
  if (!grown) return nullptr;
  c->used_bytes = c->used_bytes - osize + nsize;
  if (nsize > osize) c->allocated_unpaid += nsize - osize;
  return grown;
}

// Bytes allocated per instruction charged: `s = s .. x` in a loop copies the whole
// string at every step, one instruction for work that grows with its length.
constexpr uint64_t kAllocatedBytesPerInstruction = 16;

std::string where_of(lua_State* L, int level) {
  lua_Debug ar;
  if (!lua_getstack(L, level, &ar) || !lua_getinfo(L, "Sl", &ar) || ar.currentline <= 0) return {};
  return fmt::format("{}:{}: ", ar.short_src, ar.currentline);
}

// The innermost line of the variant's own file on the stack (not the prelude's).
std::string where_in_file(lua_State* L, int from_level = 1) {
  lua_Debug ar;
  for (int level = from_level; lua_getstack(L, level, &ar); ++level)
    if (lua_getinfo(L, "Sl", &ar) && ar.source[0] == '@' && ar.currentline > 0)
      return fmt::format("{}:{}: ", ar.short_src, ar.currentline);
  return {};
}

// Every call into a variant is protected; an error outside them anyway (a bug of
// ours) would make Lua 5.1 end the process with exit status 1, which means
// "violation found". It is reported as the variant error it is: a message naming
// the file, and exit status 2 (exit, not _exit, so temporary files are removed).
int report_panic(lua_State* L) {
  const LuaRuntime::Context& c = ctx(L);
  const char* text = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : lua_typename(L, lua_type(L, -1));
  std::fprintf(stderr, "locksim: %s: error outside a protected call in %s: %s\n",
               c.self ? c.self->path().c_str() : "a Lua variant", c.running, text);
  std::fflush(stderr);
  std::exit(2);
}

// Counts instructions, and the bytes allocated meanwhile (never wall time); the
// allocator itself may not raise an error, so the hook charges them.
void count_hook(lua_State* L, lua_Debug*) {
  LuaRuntime::Context& c = ctx(L);
  const uint64_t allocated = c.allocated_unpaid / kAllocatedBytesPerInstruction;
  c.allocated_unpaid %= kAllocatedBytesPerInstruction;
  c.charge(L, kHookStep + allocated);
}

}  // namespace

// Instructions from the hook, and the work of the C functions in instruction
// equivalents (lua_budget.hpp). Once over a budget it raises at every
// instruction, so a pcall cannot swallow it.
void LuaRuntime::Context::charge(lua_State* L, uint64_t cost) {
  if (!budget_exceeded) {
    state_instructions += cost;
    const uint64_t call = call_instructions ? (*call_instructions += cost) : 0;
    const uint64_t run = run_instructions ? (*run_instructions += cost) : 0;
    const char* over = nullptr;
    uint64_t limit = 0;
    if (call > budget.instructions_per_call) {
      over = "in one call of";
      limit = budget.instructions_per_call;
    } else if (state_instructions > budget.instructions_per_state) {
      over = "in this client's life, the last in";
      limit = budget.instructions_per_state;
    } else if (run > budget.instructions_per_run) {
      over = "in this run (all clients together), the last in";
      limit = budget.instructions_per_run;
    }
    if (!over) return;
    budget_exceeded = true;
    // Where in the variant's file: a C function (string.rep, ...) has no line of its own.
    std::string where = where_of(L, 0);
    if (where.empty()) where = where_in_file(L, 0);
    budget_error = fmt::format("{}the variant ran more than {} Lua instructions {} {} (a loop that never ends?)",
                               where.empty() ? self->path() + ": " : where, limit, over, running);
    lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
  }
  lua_pushstring(L, budget_error.c_str());
  lua_error(L);
}

namespace {

// Raises "NAME() ..." when there is no simulation to ask (the file is loading,
// or fence()/still_held() must answer at once).
Env& need_env(lua_State* L, const char* name, bool waits) {
  LuaRuntime::Context& c = ctx(L);
  if (!c.env)
    luaL_error(L, "%s() is not available while the file loads; use it from acquire(), release() or a task", name);
  if (waits && c.synchronous)
    luaL_error(L, "%s() cannot wait inside %s: it must answer at once (remember what it needs in acquire())", name,
               c.running);
  return *c.env;
}

// A number argument as Redis converts it: an integer without a fraction, else %.17g.
// Written into `out` (no C++ object: the caller may still raise a Lua error).
size_t format_lua_number(lua_Number n, char (&out)[32]) {
  const bool whole = std::isfinite(n) && std::fabs(n) < 9.2e18 && n == std::floor(n);
  const auto end = whole ? fmt::format_to_n(out, sizeof out, "{}", static_cast<long long>(n))
                         : fmt::format_to_n(out, sizeof out, "{:.17g}", n);
  return std::min(end.size, sizeof out);
}

// Stores a request for the simulator and yields it; the command is the
// arguments from `first` on (none for a read). Every argument is checked
// before the command is built: an error raised midway would leave half a command.
int yield_request(lua_State* L, int first, LuaRequest::Kind kind, uint32_t server, Duration span) {
  const int top = lua_gettop(L);
  for (int i = first; i <= top; ++i) {
    const int t = lua_type(L, i);
    if (t != LUA_TSTRING && t != LUA_TNUMBER)
      luaL_error(L, "call arguments must be strings or numbers (argument %d is a %s)", i - first + 1,
                 lua_typename(L, t));
  }
  LuaRuntime::Context& c = ctx(L);
  c.pending.kind = kind;
  c.pending.server = server;
  c.pending.span = span;
  // Built in a spent command's strings (command_pool.hpp), as the built-in locks' are.
  c.pending.command = pooled_command(static_cast<size_t>(std::max(top - first + 1, 0)));
  for (int i = first; i <= top; ++i) {
    std::string& word = c.pending.command[static_cast<size_t>(i - first)];
    if (lua_type(L, i) == LUA_TNUMBER) {
      char digits[32];
      word.assign(digits, format_lua_number(lua_tonumber(L, i), digits));
      continue;
    }
    size_t len = 0;
    const char* str = lua_tolstring(L, i, &len);
    word.assign(str, len);
  }
  lua_settop(L, 0);
  lua_pushlightuserdata(L, &sim_sentinel);
  return lua_yield(L, 1);
}

// A wait in milliseconds (argument `index`), at most a day.
Duration check_wait(lua_State* L, int index, const char* name) {
  const lua_Number ms = luaL_checknumber(L, index);
  if (!(ms >= 0) || ms > 86'400'000) luaL_error(L, "%s: milliseconds must be between 0 and 86400000 (a day)", name);
  return Duration{std::llround(ms * 1e6)};
}

// raw_call(server, cmd, ...): server 0 is "the" Redis, i >= 1 is call_on's i.
int l_raw_call(lua_State* L) {
  Env& env = need_env(L, "call", true);
  ctx(L).charge(L, kRequestCost);
  const lua_Integer server = luaL_checkinteger(L, 1);
  const lua_Integer servers = env.redis_servers();
  if (server < 0 || server > servers)
    luaL_error(L, "call_on: server %d does not exist (servers() are 1 to %d)", static_cast<int>(server),
               static_cast<int>(servers));
  if (lua_gettop(L) < 2) luaL_error(L, "Please specify at least one argument for this call");
  return yield_request(L, 2, LuaRequest::Kind::Call, server == 0 ? 0 : static_cast<uint32_t>(server - 1), {});
}

// raw_blocking(wait_ms, cmd, ...): a blocking command (BLPOP ...), waited for up to wait_ms longer than a call.
int l_raw_blocking(lua_State* L) {
  need_env(L, "call_blocking", true);
  ctx(L).charge(L, kRequestCost);
  const Duration wait = check_wait(L, 1, "call_blocking");
  if (lua_gettop(L) < 2) luaL_error(L, "Please specify at least one argument for this call");
  return yield_request(L, 2, LuaRequest::Kind::Blocking, 0, wait);
}

// raw_subscriber(cmd, ...): a command on the client's subscriber connection (SUBSCRIBE ...).
int l_raw_subscriber(lua_State* L) {
  need_env(L, "subscriber_call", true);
  ctx(L).charge(L, kRequestCost);
  if (lua_gettop(L) < 1) luaL_error(L, "Please specify at least one argument for this call");
  return yield_request(L, 1, LuaRequest::Kind::Subscriber, 0, {});
}

// raw_next(wait_ms): the next pushed reply on the subscriber connection.
int l_raw_next(lua_State* L) {
  need_env(L, "next_message", true);
  ctx(L).charge(L, kRequestCost);
  const Duration wait = check_wait(L, 1, "next_message");
  lua_settop(L, 0);
  return yield_request(L, 1, LuaRequest::Kind::NextPushed, 0, wait);
}

int l_sleep(lua_State* L) {
  need_env(L, "sleep", true);
  ctx(L).charge(L, kRequestCost);
  const lua_Number ms = luaL_checknumber(L, 1);
  if (!(ms >= 0) || ms > 86'400'000) luaL_error(L, "sleep: milliseconds must be between 0 and 86400000 (a day)");
  LuaRuntime::Context& c = ctx(L);
  c.pending.kind = LuaRequest::Kind::Sleep;
  c.pending.span = Duration{std::llround(ms * 1e6)};
  lua_settop(L, 0);
  lua_pushlightuserdata(L, &sim_sentinel);
  return lua_yield(L, 1);
}

int l_now(lua_State* L) {
  Env& env = need_env(L, "now", false);
  lua_pushnumber(L, static_cast<lua_Number>(kEpochMs) + static_cast<lua_Number>(env.local_now(ClockUse::Script).ns) / 1e6);
  return 1;
}

// monotonic_ms(): the client's monotonic clock in ms (its node's rate, none of its jumps;
// the origin is arbitrary): what a careful lock times its waits and leases on.
int l_monotonic_ms(lua_State* L) {
  Env& env = need_env(L, "monotonic_ms", false);
  lua_pushnumber(L, static_cast<lua_Number>(env.monotonic_now(ClockUse::Script).ns) / 1e6);
  return 1;
}

int l_token(lua_State* L) {
  Env& env = need_env(L, "token", false);
  LuaRuntime::Context& c = ctx(L);
  c.scratch = Lock::new_token(env);
  lua_pushlstring(L, c.scratch.data(), c.scratch.size());
  return 1;
}

int l_client_id(lua_State* L) {
  Env& env = need_env(L, "client_id", false);
  LuaRuntime::Context& c = ctx(L);
  if (c.client_id.empty()) c.client_id = fmt::format("{}-{:016x}:1", env.client_name(), env.rng().next());
  lua_pushlstring(L, c.client_id.data(), c.client_id.size());
  return 1;
}

int l_servers(lua_State* L) {
  Env& env = need_env(L, "servers", false);
  const int n = static_cast<int>(env.redis_servers());
  lua_createtable(L, n, 0);
  for (int i = 1; i <= n; ++i) {
    lua_pushinteger(L, i);
    lua_rawseti(L, -2, i);
  }
  return 1;
}

int l_log(lua_State* L) {
  Env& env = need_env(L, "log", false);
  size_t len = 0;
  const char* text = luaL_checklstring(L, 1, &len);
  LuaRuntime::Context& c = ctx(L);
  c.scratch.assign(text, std::min<size_t>(len, 1000));
  env.record_text(Step::Log, c.scratch);
  return 0;
}

char params_key;  // registry key of the table name -> value that param() reads

// The lock parameters as param() returns them, under both spellings
// ("retry-jitter" and "retry_jitter"): one table lookup per call.
void push_params_table(lua_State* L, const LockParams& params) {
  lua_pushlightuserdata(L, &params_key);
  lua_newtable(L);
  for (const auto& [name, value] : params.custom) {
    const VariantParam* declared = find_variant_param(name);
    std::string names[2] = {name, name};
    for (char& ch : names[1])
      if (ch == '-') ch = '_';
    for (const std::string& n : names) {
      lua_pushlstring(L, n.data(), n.size());
      Duration d;
      const VariantParam::Kind kind = declared ? declared->kind : VariantParam::Kind::Text;
      if (kind == VariantParam::Kind::Boolean)
        lua_pushboolean(L, value == "true");
      else if (kind == VariantParam::Kind::Duration && sim::parse_duration(value, d))
        lua_pushnumber(L, static_cast<lua_Number>(d.ns) / 1e6);
      else if (kind == VariantParam::Kind::Number)
        lua_pushnumber(L, std::strtod(value.c_str(), nullptr));
      else
        lua_pushlstring(L, value.data(), value.size());
      lua_rawset(L, -3);
    }
  }
  for (const ParamInfo& info : lock_param_table()) {
    if (info.name == "param") continue;  // the variant's own, above
    const std::string value = info.get(params);
    std::string names[2] = {std::string(info.name), std::string(info.name)};
    for (char& ch : names[1])
      if (ch == '-') ch = '_';
    for (const std::string& name : names) {
      lua_pushlstring(L, name.data(), name.size());
      Duration d;
      if (info.name == "key")
        lua_pushlstring(L, value.data(), value.size());
      else if (value == "true" || value == "false")
        lua_pushboolean(L, value == "true");
      else if (sim::parse_duration(value, d))
        lua_pushnumber(L, static_cast<lua_Number>(d.ns) / 1e6);
      else
        lua_pushlstring(L, value.data(), value.size());
      lua_rawset(L, -3);
    }
  }
  lua_rawset(L, LUA_REGISTRYINDEX);
}

int l_param(lua_State* L) {
  LuaRuntime::Context& c = ctx(L);
  if (c.loading) luaL_error(L, "param() is not available while the file loads; use it from acquire() or release()");
  luaL_checkstring(L, 1);
  lua_pushlightuserdata(L, &params_key);
  lua_rawget(L, LUA_REGISTRYINDEX);
  lua_pushvalue(L, 1);
  lua_rawget(L, -2);
  if (!lua_isnil(L, -1)) return 1;
  c.scratch = lua_tostring(L, 1);
  for (char& ch : c.scratch)
    if (ch == '_') ch = '-';
  const ParamInfo* info = find_lock_param(c.scratch);
  if (!info) {
    c.scratch = "param: unknown lock parameter '" + c.scratch + "' (known:";
    for (const auto& p : lock_param_table()) c.scratch += " " + std::string(p.name);
    c.scratch += ")";
    luaL_error(L, "%s", c.scratch.c_str());
  }
  return luaL_error(L, "param: '%s' has no value", c.scratch.c_str());  // not reached: the table has every name
}

// parallel(f1, f2, ...): runs the functions as concurrent branches of the calling
// task (node-redlock's and redsync's fan-out to every master) and returns their
// first results in order, once every branch has ended. A branch's calls count as
// the caller's (an acquire's are the acquire's), not as a spawned task's.
int l_parallel(lua_State* L) {
  need_env(L, "parallel", true);
  ctx(L).charge(L, kRequestCost);
  LuaRuntime::Context& c = ctx(L);
  const int n = lua_gettop(L);
  for (int i = 1; i <= n; ++i) luaL_checktype(L, i, LUA_TFUNCTION);
  if (c.self->live_tasks + static_cast<uint32_t>(n) > c.budget.tasks)
    luaL_error(L, "parallel: more than %d tasks at once", static_cast<int>(c.budget.tasks));
  c.self->spawns += static_cast<uint32_t>(n);
  if (c.self->spawns > c.budget.spawns_per_state)
    luaL_error(L, "parallel: more than %d tasks in one client incarnation", static_cast<int>(c.budget.spawns_per_state));
  c.pending = LuaRequest{};
  c.pending.kind = LuaRequest::Kind::Parallel;
  for (int i = 1; i <= n; ++i) {
    lua_State* thread = lua_newthread(L);
    lua_pushvalue(L, i);
    lua_xmove(L, thread, 1);
    c.pending.branches.emplace_back(thread, luaL_ref(L, LUA_REGISTRYINDEX));
  }
  lua_settop(L, 0);
  lua_pushlightuserdata(L, &sim_sentinel);
  return lua_yield(L, 1);
}

int l_spawn(lua_State* L) {
  need_env(L, "spawn", true);
  luaL_checktype(L, 1, LUA_TFUNCTION);
  LuaRuntime::Context& c = ctx(L);
  if (c.self->live_tasks >= c.budget.tasks)
    luaL_error(L, "spawn: more than %d tasks at once", static_cast<int>(c.budget.tasks));
  if (++c.self->spawns > c.budget.spawns_per_state)
    luaL_error(L, "spawn: more than %d tasks in one client incarnation", static_cast<int>(c.budget.spawns_per_state));
  const int nargs = lua_gettop(L);  // the function and its arguments
  lua_State* thread = lua_newthread(L);
  lua_insert(L, 1);
  lua_xmove(L, thread, nargs);
  const int ref = luaL_ref(L, LUA_REGISTRYINDEX);
  const TaskId id = c.self->spawner(thread, ref, nargs - 1);
  c.self->spawned.insert(id);
  lua_pushnumber(L, static_cast<lua_Number>(id));
  return 1;
}

int l_cancel(lua_State* L) {
  Env& env = need_env(L, "cancel", false);
  const auto id = static_cast<TaskId>(luaL_checknumber(L, 1));
  LuaRuntime::Context& c = ctx(L);
  if (!c.self->spawned.count(id)) luaL_error(L, "cancel: %s is not a task this client spawned", lua_tostring(L, 1));
  env.cancel(id);
  return 0;
}

// Lua 5.1's math.random, drawing from the client's generator in the simulation.
int l_random(lua_State* L) {
  Env& env = need_env(L, "math.random", false);
  switch (lua_gettop(L)) {
    case 0: lua_pushnumber(L, env.rng().unit()); return 1;
    case 1: {
      const lua_Integer u = luaL_checkinteger(L, 1);
      luaL_argcheck(L, 1 <= u, 1, "interval is empty");
      lua_pushinteger(L, 1 + static_cast<lua_Integer>(env.rng().below(static_cast<uint64_t>(u))));
      return 1;
    }
    case 2: {
      const lua_Integer l = luaL_checkinteger(L, 1), u = luaL_checkinteger(L, 2);
      luaL_argcheck(L, l <= u, 2, "interval is empty");
      lua_pushinteger(L, l + static_cast<lua_Integer>(env.rng().below(static_cast<uint64_t>(u - l) + 1)));
      return 1;
    }
    default: return luaL_error(L, "wrong number of arguments");
  }
}

int l_randomseed(lua_State* L) {
  return luaL_error(L, "math.randomseed: the simulation seeds the generator (use --seed)");
}

bool is_contract_global(const char* name) {
  static const char* const kNames[] = {"name",    "summary", "reentrant", "params",
                                       "acquire", "release", "fence",     "still_held"};
  for (const char* n : kNames)
    if (std::strcmp(n, name) == 0) return true;
  return false;
}

char shadow_key;  // registry key of the contract globals set while the file loads

void push_shadow(lua_State* L) {
  lua_pushlightuserdata(L, &shadow_key);
  lua_rawget(L, LUA_REGISTRYINDEX);
}

// _G's __index: reading an undefined global is an error (typos are caught).
// While the file loads, the contract globals it set are kept aside (so that a
// second definition passes through __newindex too) and read from there.
int l_undefined_global(lua_State* L) {
  if (ctx(L).loading) {
    push_shadow(L);
    lua_pushvalue(L, 2);
    lua_rawget(L, -2);
    if (!lua_isnil(L, -1)) return 1;
    lua_pop(L, 2);
  }
  if (lua_type(L, 2) == LUA_TSTRING) luaL_error(L, "undefined global '%s'", lua_tostring(L, 2));
  return luaL_error(L, "undefined global");
}

// _G's __newindex while the file loads: a contract global set twice is an error.
int l_define_global(lua_State* L) {
  LuaRuntime::Context& c = ctx(L);
  if (c.loading && lua_type(L, 2) == LUA_TSTRING && is_contract_global(lua_tostring(L, 2))) {
    lua_Debug ar;
    const int line = lua_getstack(L, 1, &ar) && lua_getinfo(L, "l", &ar) ? ar.currentline : 0;
    c.scratch = lua_tostring(L, 2);
    auto it = c.defined.find(c.scratch);
    if (it != c.defined.end())
      luaL_error(L, "a second definition of '%s' (the first is at line %d)", c.scratch.c_str(), it->second);
    c.defined.emplace(c.scratch, line);
    push_shadow(L);
    lua_insert(L, 2);
    lua_rawset(L, 2);
    return 0;
  }
  lua_rawset(L, 1);
  return 0;
}

// Lua-side wrappers (compiled once per process): call() raises an error
// reply; pcall, xpcall and coroutine.resume/wrap pass a simulator request on
// up to the task driving the outermost coroutine, so call() works inside them.
constexpr const char* kPrelude = R"lua(
local raw_call, SIM, ERR, raw_blocking, raw_subscriber, raw_next = ...
local co_create, co_resume, co_status, co_yield = coroutine.create, coroutine.resume, coroutine.status, coroutine.yield
local rawpcall, error, type, getmetatable, rawget = pcall, error, type, getmetatable, rawget
local select, tostring0, concat = select, tostring, table.concat
local function reply(a, b, c)
  if a == ERR then error({err = b, where = c}, 0) end
  return a, b
end
function call(...) return reply(raw_call(0, ...)) end
function call_blocking(ms, ...) return reply(raw_blocking(ms, ...)) end
function subscriber_call(...) return reply(raw_subscriber(...)) end
function next_message(ms) return reply(raw_next(ms)) end
function call_on(i, ...)
  if type(i) ~= "number" or i < 1 then error("call_on: the first argument is a server number, 1 to #servers()", 2) end
  return reply(raw_call(i, ...))
end
local function pass(co, ok, first, ...)
  if ok and first == SIM and co_status(co) == "suspended" then return pass(co, co_resume(co, co_yield(SIM))) end
  return ok, first, ...
end
function pcall(f, ...)
  local made, co = rawpcall(co_create, f)
  if not made then return rawpcall(f, ...) end
  return pass(co, co_resume(co, ...))
end
function xpcall(f, handler)
  local function finish(ok, ...)
    if ok then return true, ... end
    return false, handler((...))
  end
  return finish(pcall(f))
end
coroutine.resume = function(co, ...) return pass(co, co_resume(co, ...)) end
coroutine.wrap = function(f)
  local co = co_create(f)
  local function unwrap(ok, ...)
    if not ok then error((...), 0) end
    return ...
  end
  return function(...) return unwrap(pass(co, co_resume(co, ...))) end
end
-- No addresses in text: they differ from run to run.
function tostring(v)
  local t = type(v)
  if t == "table" or t == "userdata" then
    local mt = getmetatable(v)
    if type(mt) == "table" and rawget(mt, "__tostring") then return tostring0(v) end
    return t
  end
  if t == "function" or t == "thread" then return t end
  return tostring0(v)
end
function print(...)
  local parts = {}
  for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
  log(concat(parts, "\t"))
end
)lua";

int write_chunk(lua_State*, const void* p, size_t size, void* ud) {
  static_cast<std::string*>(ud)->append(static_cast<const char*>(p), size);
  return 0;
}

const char* read_chunk(lua_State*, void* ud, size_t* size) {
  auto* s = static_cast<std::pair<const std::string*, bool>*>(ud);
  if (s->second) {
    *size = 0;
    return nullptr;
  }
  s->second = true;
  *size = s->first->size();
  return s->first->data();
}

const std::string& prelude_bytecode() {
  static const std::string bytecode = [] {
    lua_State* L = luaL_newstate();
    std::string out;
    if (luaL_loadbuffer(L, kPrelude, std::strlen(kPrelude), "=prelude") == 0) lua_dump(L, write_chunk, &out);
    lua_close(L);
    return out;
  }();
  return bytecode;
}

}  // namespace

// Room for the sandbox, the prelude and a variant of a few hundred lines; a larger
// variant spills out of it and its states are rebuilt for every client instead.
constexpr size_t kRegionBytes = 64 * 1024;

LuaRuntime::LuaRuntime(std::string path, const LuaBudget& budget)
    : path_(std::move(path)), arena_(std::make_unique<redis::LuaArena>()), context_(std::make_unique<Context>()) {
  context_->self = this;
  context_->arena = arena_.get();
  context_->budget = budget;
  arena_->begin_region(kRegionBytes);
  L_ = lua_newstate(capped_alloc, static_cast<redis::LuaMeter*>(context_.get()));
  if (!L_) return;
  lua_atpanic(L_, report_panic);
  open_sandbox();
}

void LuaRuntime::set_params(const LockParams& params) {
  context_->params = params;
  push_params_table(L_, context_->params);
}

bool LuaRuntime::seal() {
  if (!L_ || !arena_->seal()) return false;
  sealed_context_ = std::make_unique<Context>(*context_);
  return true;
}

bool LuaRuntime::sealed() const { return sealed_context_ != nullptr; }

void LuaRuntime::reset_to_sealed() {
  arena_->restore();
  *context_ = *sealed_context_;  // the allocator's user data stays where the state points
  spawner = nullptr;
  spawned.clear();
  live_tasks = spawns = 0;
  idle_threads.clear();
  recorded = false;
  failure_.clear();
}

LuaRuntime::~LuaRuntime() {
  if (L_) lua_close(L_);
}

void LuaRuntime::open_sandbox() {
  lua_State* L = L_;
  lua_gc(L, LUA_GCSTOP, 0);  // nothing to collect while the state is built
  const std::pair<const char*, lua_CFunction> libs[] = {{"", luaopen_base},
                                                        {LUA_TABLIBNAME, luaopen_table},
                                                        {LUA_STRLIBNAME, luaopen_string},
                                                        {LUA_MATHLIBNAME, luaopen_math}};
  for (const auto& [name, open] : libs) {
    lua_pushcfunction(L, open);
    lua_pushstring(L, name);
    lua_call(L, 1, 0);
  }
  for (const char* name : {"dofile", "loadfile", "load", "loadstring", "require", "module", "collectgarbage", "gcinfo",
                           "newproxy", "getfenv", "setfenv"}) {
    lua_pushnil(L);
    lua_setglobal(L, name);
  }
  lua_getglobal(L, "string");
  lua_pushnil(L);
  lua_setfield(L, -2, "dump");
  lua_pop(L, 1);
  // The work of C functions counts (string.rep, patterns with a nesting cap, table.concat, ...),
  // as in the Redis model's scripts; the prelude's pcall/xpcall come after and stay.
  lua_pushvalue(L, LUA_GLOBALSINDEX);
  redis::install_metered_builtins(L, lua_gettop(L));
  lua_pop(L, 1);
  lua_getglobal(L, "math");
  lua_pushcfunction(L, l_random);
  lua_setfield(L, -2, "random");
  lua_pushcfunction(L, l_randomseed);
  lua_setfield(L, -2, "randomseed");
  lua_pop(L, 1);
  const std::pair<const char*, lua_CFunction> api[] = {
      {"sleep", l_sleep}, {"now", l_now},     {"token", l_token}, {"client_id", l_client_id}, {"servers", l_servers},
      {"log", l_log},     {"param", l_param}, {"spawn", l_spawn}, {"cancel", l_cancel}, {"parallel", l_parallel},
      {"monotonic_ms", l_monotonic_ms}};
  for (const auto& [name, fn] : api) {
    lua_pushcfunction(L, fn);
    lua_setglobal(L, name);
  }
  const std::string& prelude = prelude_bytecode();
  std::pair<const std::string*, bool> reader{&prelude, false};
  lua_load(L, read_chunk, &reader, "=prelude");
  lua_pushcfunction(L, l_raw_call);
  lua_pushlightuserdata(L, &sim_sentinel);
  lua_pushlightuserdata(L, &error_sentinel);
  lua_pushcfunction(L, l_raw_blocking);
  lua_pushcfunction(L, l_raw_subscriber);
  lua_pushcfunction(L, l_raw_next);
  lua_call(L, 6, 0);
  // Strict globals from here on.
  lua_newtable(L);
  lua_pushcfunction(L, l_undefined_global);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, l_define_global);
  lua_setfield(L, -2, "__newindex");
  lua_setmetatable(L, LUA_GLOBALSINDEX);
  lua_pushlightuserdata(L, &shadow_key);
  lua_newtable(L);
  lua_rawset(L, LUA_REGISTRYINDEX);
  lua_sethook(L, count_hook, LUA_MASKCOUNT, kHookStep);
  // Small states: collect less often (the memory budget still bounds them).
  lua_gc(L, LUA_GCSETPAUSE, 400);
  lua_gc(L, LUA_GCRESTART, 0);
}

bool LuaRuntime::compile(const std::string& source, std::string* error) {
  // Lua 5.1 loads precompiled chunks without checking them: a crafted one can
  // crash the program. Only source is accepted.
  if (source.rfind(LUA_SIGNATURE, 0) == 0) {
    if (error) *error = path_ + ": a precompiled Lua chunk; give the variant's source";
    return false;
  }
  context_->enforce_memory = true;
  const int status = luaL_loadbuffer(L_, source.data(), source.size(), ("@" + path_).c_str());
  context_->enforce_memory = false;
  if (status == 0) return true;
  if (error) *error = lua_tostring(L_, -1) ? lua_tostring(L_, -1) : "cannot compile";
  lua_pop(L_, 1);
  return false;
}

bool LuaRuntime::load_compiled(const std::string& bytecode, std::string* error) {
  std::pair<const std::string*, bool> reader{&bytecode, false};
  if (lua_load(L_, read_chunk, &reader, ("@" + path_).c_str()) == 0) return true;
  if (error) *error = lua_tostring(L_, -1) ? lua_tostring(L_, -1) : "cannot load";
  lua_pop(L_, 1);
  return false;
}

std::string LuaRuntime::dump() {
  std::string out;
  lua_dump(L_, write_chunk, &out);
  return out;
}

bool LuaRuntime::run_top_level(std::string* error) {
  Context& c = *context_;
  uint64_t counter = 0;
  c.loading = true;
  c.call_instructions = &counter;
  c.running = "the top level";
  c.enforce_memory = true;
  const int status = lua_pcall(L_, 0, 0, 0);
  c.enforce_memory = false;
  c.call_instructions = nullptr;
  c.loading = false;
  if (status != 0) {
    if (error) *error = error_message(L_, status);
    return false;
  }
  // The contract globals join the others; the __newindex that watched for
  // second definitions is no longer needed.
  push_shadow(L_);
  lua_pushnil(L_);
  while (lua_next(L_, -2) != 0) {
    lua_pushvalue(L_, -2);
    lua_insert(L_, -2);
    lua_rawset(L_, LUA_GLOBALSINDEX);
  }
  lua_pop(L_, 1);
  lua_getmetatable(L_, LUA_GLOBALSINDEX);
  lua_pushnil(L_);
  lua_setfield(L_, -2, "__newindex");
  lua_pop(L_, 1);
  return true;
}

int LuaRuntime::resume(lua_State* thread, int nargs, Env& env, uint64_t& counter, const char* what) {
  Context& c = *context_;
  c.env = &env;
  c.call_instructions = &counter;
  c.run_instructions = env.run_lua_instructions();
  c.running = what;
  c.pending.kind = LuaRequest::Kind::None;
  c.enforce_memory = true;
  const int status = lua_resume(thread, nargs);
  c.enforce_memory = false;
  c.call_instructions = nullptr;
  return status;
}

bool LuaRuntime::call_now(const char* function, Env* env, std::string* error) {
  Context& c = *context_;
  uint64_t counter = 0;
  c.env = env;
  c.synchronous = true;
  c.call_instructions = &counter;
  c.run_instructions = env ? env->run_lua_instructions() : nullptr;
  c.running = function;
  lua_pushstring(L_, function);
  lua_rawget(L_, LUA_GLOBALSINDEX);
  c.enforce_memory = true;
  const int status = lua_pcall(L_, 0, 1, 0);
  c.enforce_memory = false;
  c.call_instructions = nullptr;
  c.synchronous = false;
  if (status == 0) return true;
  if (error) *error = error_message(L_, status);
  lua_pop(L_, 1);
  return false;
}

LuaRequest LuaRuntime::take_request() {
  LuaRequest r = std::move(context_->pending);
  context_->pending = LuaRequest{};
  return r;
}

namespace {

void push_reply(lua_State* L, const Reply& reply, int depth) {
  if (depth > 100 || !lua_checkstack(L, 4)) {
    lua_pushboolean(L, 0);
    return;
  }
  auto table_of = [L](const char* field, const std::string& text) {
    lua_createtable(L, 0, 1);
    lua_pushlstring(L, text.data(), text.size());
    lua_setfield(L, -2, field);
  };
  switch (reply.type) {
    case Reply::Type::Integer: lua_pushnumber(L, static_cast<lua_Number>(reply.integer)); break;
    case Reply::Type::Bulk: lua_pushlstring(L, reply.str.data(), reply.str.size()); break;
    case Reply::Type::Nil:
    case Reply::Type::NilArray:
    case Reply::Type::Blocked:  // never reaches a client: the node answers a blocked command later
      lua_pushboolean(L, 0);
      break;
    case Reply::Type::Status: table_of("ok", reply.str); break;
    case Reply::Type::Error: table_of("err", reply.str); break;
    case Reply::Type::Array:
      lua_createtable(L, static_cast<int>(reply.elements.size()), 0);
      for (size_t i = 0; i < reply.elements.size(); ++i) {
        push_reply(L, reply.elements[i], depth + 1);
        lua_rawseti(L, -2, static_cast<int>(i + 1));
      }
      break;
  }
}

}  // namespace

int LuaRuntime::push_result(lua_State* thread, const RedisResult& result, const std::string& where) {
  lua_settop(thread, 0);
  if (result.status == sim::CallStatus::TimedOut || result.status == sim::CallStatus::ConnectionLost) {
    lua_pushnil(thread);
    lua_pushstring(thread, result.status == sim::CallStatus::TimedOut ? "timeout" : "connection lost");
    return 2;
  }
  if (result.value.type == Reply::Type::Error) {
    // Where the variant called, read off the suspended thread (only now: it costs).
    const std::string at = where.empty() ? where_in_file(thread, 0) : where;
    lua_pushlightuserdata(thread, &error_sentinel);
    lua_pushlstring(thread, result.value.str.data(), result.value.str.size());
    lua_pushlstring(thread, at.data(), at.size());
    return 3;
  }
  push_reply(thread, result.value, 0);
  return 1;
}

std::string LuaRuntime::error_message(lua_State* thread, int status) {
  const Context& c = *context_;
  if (c.budget_exceeded) return c.budget_error;
  if (c.memory_exceeded || status == LUA_ERRMEM)
    return fmt::format("{}: the variant used more than {} bytes of Lua memory (in {})", path_, c.budget.memory_bytes,
                       c.running);
  if (lua_type(thread, -1) == LUA_TSTRING) return lua_tostring(thread, -1);
  if (lua_type(thread, -1) == LUA_TTABLE) {
    // Read raw: this runs outside any protected call, and a metamethod of the
    // variant's error object (an __index that errors or loops) would be a Lua panic.
    lua_pushliteral(thread, "err");
    lua_rawget(thread, -2);
    lua_pushliteral(thread, "where");
    lua_rawget(thread, -3);
    std::string err = lua_type(thread, -2) == LUA_TSTRING ? lua_tostring(thread, -2) : "";
    std::string where = lua_type(thread, -1) == LUA_TSTRING ? lua_tostring(thread, -1) : "";
    lua_pop(thread, 2);
    if (!err.empty())
      return fmt::format("{}unhandled error reply in {}: {}", where.empty() ? path_ + ": " : where, c.running, err);
  }
  // error(value) adds no position to a value that is not a string; a coroutine that
  // died keeps its stack, which still says where.
  std::string where = where_in_file(thread, 0);
  return fmt::format("{}{} raised an error that is not a string ({} value)", where.empty() ? path_ + ": " : where,
                     c.running, lua_typename(thread, lua_type(thread, -1)));
}

LuaThread::LuaThread(std::shared_ptr<LuaRuntime> runtime, lua_State* thread, int ref, bool task)
    : runtime_(std::move(runtime)), thread_(thread), ref_(ref), task_(task) {
  if (task_) ++runtime_->live_tasks;
}

LuaThread::LuaThread(LuaThread&& o) noexcept
    : runtime_(std::move(o.runtime_)),
      thread_(o.thread_),
      ref_(std::exchange(o.ref_, LUA_NOREF)),
      task_(std::exchange(o.task_, false)),
      reusable_(std::exchange(o.reusable_, false)) {}

LuaThread::~LuaThread() {
  if (!runtime_) return;
  if (task_) --runtime_->live_tasks;
  if (ref_ == LUA_NOREF) return;
  if (reusable_ && !task_ && runtime_->idle_threads.size() < 4) {
    lua_settop(thread_, 0);
    runtime_->idle_threads.emplace_back(thread_, ref_);
    return;
  }
  luaL_unref(runtime_->state(), LUA_REGISTRYINDEX, ref_);
}

LuaThread new_entry_thread(const std::shared_ptr<LuaRuntime>& runtime, const char* function) {
  lua_State* L = runtime->state();
  lua_State* thread = nullptr;
  int ref = LUA_NOREF;
  if (!runtime->idle_threads.empty()) {
    std::tie(thread, ref) = runtime->idle_threads.back();
    runtime->idle_threads.pop_back();
  } else {
    thread = lua_newthread(L);
    ref = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  lua_pushstring(thread, function);
  lua_rawget(thread, LUA_GLOBALSINDEX);
  return LuaThread(runtime, thread, ref, false);
}

}  // namespace locksim::lock
