// Lua scripting with Redis 7.0.15's observable behaviour: the same globals and
// libraries, the same redis.* API, reply conversions and error texts.
//
// Lua reports errors with longjmp, which must never cross a C++ frame that owns
// objects. Every C function below therefore does its C++ work inside an inner
// scope (with the memory cap lifted, so the only Lua error possible there is a
// genuine out-of-memory) and raises Lua errors only after that scope has ended.
#include "locksim/sim/redis/scripting.hpp"

#include <lua.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "locksim/sim/redis/arguments.hpp"
#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/lua_arena.hpp"
#include "locksim/sim/redis/lua_budget.hpp"
#include "locksim/sim/redis/lua_resp3.hpp"
#include "locksim/sim/redis/lua_runtime.hpp"
#include "locksim/sim/redis/memory.hpp"
#include "locksim/sim/redis/resp3_form.hpp"
#include "locksim/sim/redis/script_shebang.hpp"
#include "locksim/sim/redis/scripting_libs.hpp"
#include "locksim/sim/redis/sha1.hpp"

namespace locksim::redis {

namespace {

void srand48_state(LuaRuntime& rt, int64_t seed) {
  rt.rand48 = ((static_cast<uint64_t>(static_cast<uint32_t>(seed)) << 16) | 0x330E) & ((uint64_t{1} << 48) - 1);
}

int32_t lrand48_next(LuaRuntime& rt) {
  rt.rand48 = (0x5DEECE66DULL * rt.rand48 + 0xB) & ((uint64_t{1} << 48) - 1);
  return static_cast<int32_t>(rt.rand48 >> 17);
}

LuaRuntime& runtime_of(lua_State* L) { return static_cast<LuaRuntime&>(lua_meter(L)); }

// Redis's redis_math_random: Lua 5.1's math.random over rand48.
int redis_math_random(lua_State* L) {
  constexpr int32_t kMax = 2147483647;
  const lua_Number r = static_cast<lua_Number>(lrand48_next(runtime_of(L)) % kMax) / static_cast<lua_Number>(kMax);
  switch (lua_gettop(L)) {
    case 0: lua_pushnumber(L, r); break;
    case 1: {
      int u = luaL_checkint(L, 1);
      luaL_argcheck(L, 1 <= u, 1, "interval is empty");
      lua_pushnumber(L, std::floor(r * u) + 1);
      break;
    }
    case 2: {
      int l = luaL_checkint(L, 1);
      int u = luaL_checkint(L, 2);
      luaL_argcheck(L, l <= u, 2, "interval is empty");
      // Redis computes u - l + 1 in int, which wraps on x86-64 (math.random(-2^31, 0));
      // the same wrap, without the signed overflow.
      const auto span = static_cast<int32_t>(static_cast<uint32_t>(u) - static_cast<uint32_t>(l) + 1u);
      lua_pushnumber(L, std::floor(r * span) + l);
      break;
    }
    default: return luaL_error(L, "wrong number of arguments");
  }
  return 1;
}

int redis_math_randomseed(lua_State* L) {
  srand48_state(runtime_of(L), luaL_checkint(L, 1));
  return 0;
}

}  // namespace

namespace {

constexpr const char* kReadonlyError = "Attempt to modify a readonly table";

LuaRuntime& runtime(lua_State* L) { return static_cast<LuaRuntime&>(lua_meter(L)); }

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

void* capped_alloc(void* ud, void* ptr, size_t osize, size_t nsize) {
  auto* rt = static_cast<LuaRuntime*>(static_cast<LuaMeter*>(ud));
  if (nsize == 0) {
    rt->arena.reallocate(ptr, osize, 0);
    rt->used_bytes -= osize;
    return nullptr;
  }
  if (rt->enforce_memory && nsize > osize && rt->used_bytes + (nsize - osize) > rt->options.lua_memory_limit_bytes) {
    rt->memory_exceeded = true;
    return nullptr;  // Lua raises "not enough memory"
  }
  void* grown = rt->arena.reallocate(ptr, osize, nsize);
  if (!grown) return nullptr;
  rt->used_bytes = rt->used_bytes - osize + nsize;
  return grown;
}

bool run_budget_spent(const LuaRuntime& rt) {
  return rt.options.lua_run_budget != 0 && rt.run_instructions >= rt.options.lua_run_budget;
}

void count_hook(lua_State* L, lua_Debug*);
void push_error_table(lua_State* L, std::string_view text);

// Adds work to the running script; once over budget it keeps raising, so a
// script cannot pcall its way out.
void charge_work(lua_State* L, uint64_t cost) {
  LuaRuntime& rt = runtime(L);
  rt.instructions += cost;
  rt.run_instructions += cost;
  if (rt.instructions >= rt.options.lua_instruction_budget || run_budget_spent(rt)) rt.budget_exceeded = true;
  if (rt.budget_exceeded) {
    // From now on fire at every instruction of this thread, so an error caught by a
    // pcall inside a loop is raised again as soon as control is back in the loop.
    lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
    lua_pushstring(L, "Script exceeded the instruction budget");
    lua_error(L);
  }
  ScriptHost* host = rt.ctx ? rt.ctx->server.script_host : nullptr;
  if (host && !rt.killed && rt.instructions >= rt.host_due) {
    rt.host_due = rt.instructions + kScriptProgressInstructions;
    rt.running.busy_reply_threshold_ms = rt.ctx->server.config.lua_time_limit_ms;
    if (host->script_progress(rt.running)) rt.killed = true;
  }
  if (rt.killed) {  // Redis luaMaskCountHook: uncatchable, like the budget
    lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
    push_error_table(L, "ERR Script killed by user with SCRIPT KILL...");
    lua_error(L);
  }
}

// Deterministic script timeout: counts VM instructions, never wall time.
void count_hook(lua_State* L, lua_Debug*) { charge_work(L, static_cast<uint64_t>(runtime(L).hook_step)); }

// Redis luaPushErrorBuff: "-CODE msg" keeps its code, a bare "msg" gets ERR;
// the text becomes the table {err="CODE msg"}.
std::string error_table_text(std::string_view text) {
  std::string code = "ERR";
  std::string msg(text);
  if (!text.empty() && text[0] == '-') {
    size_t space = text.find(' ');
    if (space == std::string_view::npos) {
      msg = std::string(text.substr(1));
    } else {
      code = std::string(text.substr(1, space - 1));
      msg = std::string(text.substr(space + 1));
    }
  }
  size_t begin = msg.find_first_not_of("\r\n");
  size_t end = msg.find_last_not_of("\r\n");
  msg = begin == std::string::npos ? std::string() : msg.substr(begin, end - begin + 1);
  return code + " " + msg;
}

void push_error_table(lua_State* L, std::string_view text) {
  lua_newtable(L);
  lua_pushlstring(L, "err", 3);
  lua_pushlstring(L, text.data(), text.size());
  lua_rawset(L, -3);
}

void push_reply(lua_State* L, const Reply& reply) {
  luaL_checkstack(L, 4, "reply too deep");
  switch (reply.type) {
    case Reply::Type::Integer: lua_pushnumber(L, static_cast<lua_Number>(reply.integer)); break;
    case Reply::Type::Bulk: lua_pushlstring(L, reply.str.data(), reply.str.size()); break;
    case Reply::Type::Nil:
    case Reply::Type::NilArray:
    case Reply::Type::Blocked: lua_pushboolean(L, 0); break;
    case Reply::Type::Status:
      lua_newtable(L);
      lua_pushlstring(L, "ok", 2);
      lua_pushlstring(L, reply.str.data(), reply.str.size());
      lua_rawset(L, -3);
      break;
    case Reply::Type::Error: push_error_table(L, error_table_text("-" + reply.str)); break;
    case Reply::Type::Array:
      lua_createtable(L, static_cast<int>(reply.elements.size()), 0);
      for (size_t i = 0; i < reply.elements.size(); ++i) {
        push_reply(L, reply.elements[i]);
        lua_rawseti(L, -2, static_cast<int>(i + 1));
      }
      break;
  }
}

std::string without_newlines(std::string text) {
  for (char& c : text)
    if (c == '\r' || c == '\n') c = ' ';
  return text;
}

// x86-64's double -> int64 conversion, which Redis relies on: out of range and NaN give INT64_MIN.
int64_t lua_number_to_integer(lua_Number n) {
  if (std::isnan(n) || n >= 9223372036854775808.0 || n < -9223372036854775808.0)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(n);
}

// The string field `name` of the table at index, pushed; false (nothing pushed) if it is not a string.
bool string_field(lua_State* L, int index, const char* name) {
  lua_pushstring(L, name);
  lua_rawget(L, index);
  if (lua_type(L, -1) == LUA_TSTRING) return true;
  lua_pop(L, 1);
  return false;
}

std::string pop_string(lua_State* L) {
  size_t len = 0;
  const char* s = lua_tolstring(L, -1, &len);
  std::string text(s, len);
  lua_pop(L, 1);
  return text;
}

// RESP3's typed tables ({double=n}, {big_number=s}, {verbatim_string={format=f,
// string=s}}) as a RESP2 client gets them, checked in Redis's order after err and ok.
std::optional<Reply> typed_scalar_reply(lua_State* L, int index) {
  lua_pushstring(L, "double");
  lua_rawget(L, index);
  if (lua_type(L, -1) == LUA_TNUMBER) {
    const double value = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return Reply::bulk(resp2_double_text(value));
  }
  lua_pop(L, 1);
  if (string_field(L, index, "big_number")) return Reply::bulk(without_newlines(pop_string(L)));
  lua_pushstring(L, "verbatim_string");
  lua_rawget(L, index);
  const int verbatim = lua_gettop(L);
  std::optional<Reply> reply;
  if (lua_type(L, verbatim) == LUA_TTABLE && string_field(L, verbatim, "format")) {
    lua_pop(L, 1);
    if (string_field(L, verbatim, "string")) reply = Reply::bulk(pop_string(L));
  }
  lua_settop(L, verbatim - 1);
  return reply;
}

// Redis luaReplyToRedisReply, for a RESP2 client, without recursion in C: Redis
// recurses, but a table nested 8000 deep would then need 8000 C++ frames, which
// overflow the stack of a sanitizer build (and of any small-stack thread).
// Lua's own stack still sets the depth limit as in Redis: a level starts only if the
// Lua stack (LUAI_MAXCSTACK, 8000 slots) has 4 left, else that element is the error
// "reached lua stack limit" and its parent carries on.
// `budget` counts the elements still allowed: a table that contains itself ten
// times over would otherwise make a reply of 10^200 elements, which the instruction
// budget cannot stop. (Redis would run out of memory; the model answers an error.)
// After redis.setresp(3), booleans go out as RESP3 booleans do to a RESP2 client: 1 and 0.
class ReplyBuilder {
 public:
  ReplyBuilder(lua_State* L, size_t& budget) : L_(L), budget_(budget) {}

  Reply build(int index) {
    std::optional<Reply> finished = begin(absolute(index));
    for (;;) {
      if (finished) {
        if (open_.empty()) return std::move(*finished);
        finished = deliver(std::move(*finished));
      } else {
        finished = advance();
      }
    }
  }

 private:
  enum class Kind { Array, Map, Set };
  // A table being converted: its elements so far and where its iteration stands.
  struct Open {
    Kind kind;
    int table;                  // absolute Lua stack index of the table iterated
    int restore_top;            // the Lua stack top to restore when it closes
    std::vector<Reply> elements;
    int next_index = 1;         // Array: the next rawgeti index
    bool key_done = false;      // Map: the key of the current pair is converted
  };

  static Reply too_large() { return Reply::error("ERR reply too large: more than 1000000 elements"); }
  int absolute(int index) const { return index < 0 ? lua_gettop(L_) + index + 1 : index; }

  // The value at `index`: its reply if it is a scalar, else nullopt with a new open table.
  std::optional<Reply> begin(int index) {
    if (!lua_checkstack(L_, 4)) return Reply::error("ERR reached lua stack limit");
    if (budget_ == 0) return too_large();
    --budget_;
    switch (lua_type(L_, index)) {
      case LUA_TSTRING: {
        size_t len = 0;
        const char* s = lua_tolstring(L_, index, &len);
        return Reply::bulk(std::string(s, len));
      }
      case LUA_TBOOLEAN:
        if (lua_toboolean(L_, index)) return Reply::integer_(1);
        return runtime(L_).resp == 2 ? Reply::nil() : Reply::integer_(0);
      case LUA_TNUMBER: return Reply::integer_(lua_number_to_integer(lua_tonumber(L_, index)));
      case LUA_TTABLE: return begin_table(index);
      default: return Reply::nil();
    }
  }

  std::optional<Reply> begin_table(int index) {
    if (string_field(L_, index, "err")) return Reply::error(without_newlines(pop_string(L_)));
    if (string_field(L_, index, "ok")) return Reply::status(without_newlines(pop_string(L_)));
    if (auto typed = typed_scalar_reply(L_, index)) return typed;
    const int top = lua_gettop(L_);
    // {map={k=v}} is a flat [k, v, ...] array and {set={m=true}} is [m, ...], in
    // lua_next's order as Redis sends them.
    for (const Kind kind : {Kind::Map, Kind::Set}) {
      lua_pushstring(L_, kind == Kind::Map ? "map" : "set");
      lua_rawget(L_, index);
      if (lua_type(L_, -1) == LUA_TTABLE) {
        lua_pushnil(L_);
        open_.push_back({kind, top + 1, top, {}});
        return std::nullopt;
      }
      lua_pop(L_, 1);
    }
    open_.push_back({Kind::Array, index, top, {}});
    return std::nullopt;
  }

  // The next element of the innermost open table, or the table's reply when it has no more.
  std::optional<Reply> advance() {
    Open& open = open_.back();
    if (open.kind == Kind::Array) {
      lua_rawgeti(L_, open.table, open.next_index++);
      if (!lua_isnil(L_, -1)) return begin(lua_gettop(L_));
    } else if (lua_next(L_, open.table)) {
      open.key_done = false;
      return begin(lua_gettop(L_) - 1);
    }
    return close(Reply::array(std::move(open.elements)));
  }

  // Hands a finished element to the innermost open table; its reply if that closes it.
  std::optional<Reply> deliver(Reply element) {
    Open& open = open_.back();
    open.elements.push_back(std::move(element));
    if (open.kind == Kind::Map && !open.key_done) {
      open.key_done = true;
      return begin(lua_gettop(L_));
    }
    lua_pop(L_, 1);  // the array element, or the pair's value (the key stays for lua_next)
    if (budget_ == 0) return close(too_large());
    return std::nullopt;
  }

  Reply close(Reply reply) {
    lua_settop(L_, open_.back().restore_top);
    open_.pop_back();
    return reply;
  }

  lua_State* L_;
  size_t& budget_;
  std::vector<Open> open_;
};

Reply lua_to_reply(lua_State* L, int index, size_t& budget) { return ReplyBuilder(L, budget).build(index); }
// ---- redis.call / redis.pcall ------------------------------------------------

// The work a command that walks whole values (kWalksValues) does on the data it
// names, in instruction-equivalents: every argument that names a key costs that
// value's size, and the commands that walk the keyspace cost its size. The
// instruction hook sees none of this, so without it a loop of SUNIONSTOREs over
// big sets would run unbounded. O(1) commands (SADD, GET) cost nothing here.
constexpr uint64_t kInstructionsPerElement = 32;
uint64_t value_size(const Entry& entry) {
  switch (entry.type) {
    case ValueType::String: return entry.str.size() / 64;
    case ValueType::List: return entry.list().size();
    case ValueType::Set: return entry.set().members.size();
    case ValueType::ZSet: return entry.zset().size();
    case ValueType::Hash: return entry.hash().size();
  }
  return 0;
}

uint64_t data_work(ExecContext& ctx, const CommandSpec& spec, const Command& argv) {
  if (!(spec.flags & kWalksValues)) return 0;
  if (equals_lower(argv[0], "keys") || equals_lower(argv[0], "flushdb"))
    return ctx.db().keys.size() * kInstructionsPerElement;
  if (equals_lower(argv[0], "flushall")) {
    uint64_t keys = 0;
    for (const auto& db : ctx.server.dbs) keys += db.keys.size();
    return keys * kInstructionsPerElement;
  }
  uint64_t elements = 0;
  for (size_t i = 1; i < argv.size(); ++i)
    if (const Entry* entry = ctx.db().peek(argv[i], ctx.now_ms)) elements += value_size(*entry);
  return elements * kInstructionsPerElement;
}

Reply run_from_script(ExecContext& ctx, const Command& argv, std::string& error, LuaRuntime& rt, uint64_t& work) {
  const CommandSpec* spec = find_command(argv[0]);
  if (!spec) {
    error = "Unknown Redis command called from script";
    return {};
  }
  if (!arity_matches(spec->arity, argv.size())) {
    error = "Wrong number of args calling Redis command from script";
    return {};
  }
  if (auto rejected = check_subcommand(*spec, argv)) {
    error = rejected->str.starts_with("ERR unknown subcommand")
                ? "Unknown Redis command called from script"
                : "Wrong number of args calling Redis command from script";
    return {};
  }
  if (spec->flags & kNoScript) {
    error = "This Redis command is not allowed from script";
    return {};
  }
  if (rt.read_only && (spec->flags & kWrite)) {
    error = "Write commands are not allowed from read-only scripts.";
    return {};
  }
  // The script's own SELECT carries on to its next calls (ctx is the EVAL's context).
  ctx.in_script = true;
  ctx.may_block = false;
  if (!rt.allow_oom) {
    if (auto refused = refuse_if_over_maxmemory(ctx.server, *spec, argv)) return std::move(*refused);
  }
  if (spec->flags & kWrite) rt.running.wrote = true;  // Redis SCRIPT_WRITE_DIRTY: SCRIPT KILL refuses from now on
  Notifications::Scope scope(ctx.server.notifications, spec->name);
  work = data_work(ctx, *spec, argv);
  return spec->handler(ctx, argv);
}

// Pushes one result; returns true if it is an error table that redis.call must raise.
// `work` receives the command's data_work, for the caller to charge outside C++ scopes.
bool host_call(lua_State* L, bool raise, uint64_t& work) {
  LuaRuntime& rt = runtime(L);
  HostScope scope(rt);
  std::string error;
  Reply reply;
  Resp3Form form = Resp3Form::Plain;
  try {
    const int argc = lua_gettop(L);
    Command argv;
    argv.reserve(static_cast<size_t>(argc));
    if (argc == 0) error = "Please specify at least one argument for this redis lib call";
    for (int i = 1; i <= argc && error.empty(); ++i) {
      const int type = lua_type(L, i);
      if (type == LUA_TNUMBER) {
        // Redis formats numbers with %.17g, not Lua's %.14g.
        char buffer[64];
        int n = std::snprintf(buffer, sizeof buffer, "%.17g", static_cast<double>(lua_tonumber(L, i)));
        argv.emplace_back(buffer, static_cast<size_t>(n));
      } else if (type == LUA_TSTRING) {
        size_t len = 0;
        const char* s = lua_tolstring(L, i, &len);
        argv.emplace_back(s, len);
      } else {
        error = "Lua redis lib command arguments must be strings or integers";
      }
    }
    if (error.empty()) reply = run_from_script(*rt.ctx, argv, error, rt, work);
    if (error.empty() && rt.resp == 3) form = resp3_form(argv);
  } catch (const std::exception& e) {
    error = std::string("internal error: ") + e.what();
  }
  if (!error.empty()) {
    push_error_table(L, error_table_text(error));
    return raise;
  }
  lua_settop(L, 0);  // Redis pops the arguments first: unpack() may have filled the stack
  if (rt.resp == 3)
    push_reply_resp3(L, reply, form, push_reply);
  else
    push_reply(L, reply);
  return raise && reply.is_error();
}

// A call costs about a microsecond however small (argument vector, lookup, reply
// or error table): a loop of redis.pcall('NOPE') must spend its budget in about a second.
constexpr uint64_t kInstructionsPerCall = 100;

// A command's cost, charged before it runs: its arguments at one byte per
// instruction, since each is copied into the command and again into the data
// set, which may grow by reallocation (a loop APPENDing 10 MB strings must
// spend its budget in about a second).
void charge_command(lua_State* L) {
  uint64_t bytes = 0;
  for (int i = 1; i <= lua_gettop(L); ++i)
    if (lua_type(L, i) == LUA_TSTRING) bytes += lua_objlen(L, i);
  lua_charge(L, kInstructionsPerCall + bytes);
}

// A reply's cost: its bytes, or its elements (lua_objlen would turn a number into a
// string); an element is built in the model and again as a Lua string.
void charge_reply(lua_State* L) {
  const int type = lua_type(L, -1);
  if (type == LUA_TSTRING)
    lua_charge(L, lua_objlen(L, -1) / 8);
  else if (type == LUA_TTABLE)
    lua_charge(L, lua_objlen(L, -1) * kInstructionsPerElement);
}

int lua_redis_call(lua_State* L) {
  charge_command(L);
  uint64_t work = 0;
  const bool raise = host_call(L, true, work);
  lua_charge(L, work);
  if (raise) return lua_error(L);
  charge_reply(L);
  return 1;
}

int lua_redis_pcall(lua_State* L) {
  charge_command(L);
  uint64_t work = 0;
  host_call(L, false, work);
  lua_charge(L, work);
  charge_reply(L);
  return 1;
}

// ---- the rest of the redis table ----------------------------------------------

// Pushes the error table {err="ERR <text>"}; the caller returns or raises it.
void push_error(lua_State* L, const char* text) {
  HostScope scope(runtime(L));
  push_error_table(L, error_table_text(text));
}

int lua_error_reply(lua_State* L) {
  {
    HostScope scope(runtime(L));
    if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
      push_error_table(L, "ERR wrong number or type of arguments");
    } else {
      size_t len = 0;
      const char* s = lua_tolstring(L, -1, &len);
      std::string text(s, len);
      if (text.empty() || text[0] != '-') text.insert(0, "-");  // redis.error_reply adds the dash
      push_error_table(L, error_table_text(text));
    }
  }
  return 1;
}

int lua_status_reply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    push_error(L, "wrong number or type of arguments");
    return 1;
  }
  lua_newtable(L);
  lua_pushstring(L, "ok");
  lua_pushvalue(L, 1);
  lua_rawset(L, -3);
  return 1;
}

int lua_sha1hex(lua_State* L) {
  if (lua_gettop(L) != 1) {
    push_error(L, "wrong number of arguments");
    return lua_error(L);
  }
  lua_charge(L, 1 + lua_objlen(L, 1) / 8);
  {
    HostScope scope(runtime(L));
    size_t len = 0;
    const char* s = lua_tolstring(L, 1, &len);
    std::string hex = sha1_hex(s ? std::string_view(s, len) : std::string_view());
    lua_pushlstring(L, hex.data(), hex.size());
  }
  return 1;
}

// redis.log validates its arguments like Redis and logs nothing: the model has no log.
int lua_log(lua_State* L) {
  const int argc = lua_gettop(L);
  const char* problem = nullptr;
  if (argc < 2)
    problem = "redis.log() requires two arguments or more.";
  else if (!lua_isnumber(L, 1))
    problem = "First argument must be a number (log level).";
  else if (lua_tonumber(L, 1) < 0 || lua_tonumber(L, 1) > 3)
    problem = "Invalid debug level.";
  if (problem) {
    push_error(L, problem);
    return lua_error(L);
  }
  return 0;
}

// Redis's luaSetResp: the protocol redis.call answers in for the rest of this run. The
// version is read as Redis's (int)lua_tonumber reads it, so 2.7 is 2.
int lua_setresp(lua_State* L) {
  const char* problem = nullptr;
  const int resp = lua_gettop(L) == 1 ? static_cast<int>(lua_tonumber(L, 1)) : 0;
  if (lua_gettop(L) != 1)
    problem = "redis.setresp() requires one argument.";
  else if (resp != 2 && resp != 3)
    problem = "RESP version must be 2 or 3.";
  if (problem) {
    push_error(L, problem);
    return lua_error(L);
  }
  runtime(L).resp = resp;
  return 0;
}

int lua_set_repl(lua_State* L) {
  const char* problem = nullptr;
  if (lua_gettop(L) != 1)
    problem = "redis.set_repl() requires two arguments.";  // sic, 7.0.15
  else if (static_cast<int64_t>(lua_tonumber(L, 1)) & ~int64_t{3})
    problem = "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.";
  if (problem) {
    push_error(L, problem);
    return lua_error(L);
  }
  return 0;
}

int lua_return_true(lua_State* L) {
  lua_pushboolean(L, 1);
  return 1;
}
int lua_return_false(lua_State* L) {
  lua_pushboolean(L, 0);
  return 1;
}
int lua_return_nothing(lua_State*) { return 0; }

int lua_acl_check_cmd(lua_State* L) {
  if (lua_gettop(L) == 0) {  // 7.0.15 says this, as redis.call does
    push_error(L, "Please specify at least one argument for this redis lib call");
    return lua_error(L);
  }
  bool known = false;
  if (lua_gettop(L) >= 1 && lua_type(L, 1) == LUA_TSTRING) known = find_command(lua_tostring(L, 1)) != nullptr;
  if (!known) {
    push_error(L, "Invalid command passed to redis.acl_check_cmd()");
    return lua_error(L);
  }
  lua_pushboolean(L, 1);  // the model has a single all-powerful user
  return 1;
}

// Redis 7.0 replaces pcall so that a caught error table reads as its message.
int lua_redis_style_pcall(lua_State* L) {
  luaL_checkany(L, 1);
  const int argc = lua_gettop(L);
  lua_pushboolean(L, 1);
  lua_insert(L, 1);
  if (lua_pcall(L, argc - 1, LUA_MULTRET, 0) != 0) {
    lua_remove(L, 1);
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "err");
      if (lua_isstring(L, -1))
        lua_replace(L, -2);
      else
        lua_pop(L, 1);
    }
    lua_pushboolean(L, 0);
    lua_insert(L, 1);
  }
  return lua_gettop(L);
}

// ---- read-only globals ----------------------------------------------------------
// Redis 7.0.15 marks _G and the library tables read-only inside its patched Lua.
// Debian's stock Lua has no such flag, so each protected table is an empty proxy
// whose metatable reads through to the real table and refuses writes.

bool backing_of(lua_State* L, int index) {  // pushes the backing table if index is a proxy
  LuaRuntime& rt = runtime(L);
  index = index < 0 ? lua_gettop(L) + index + 1 : index;
  lua_rawgeti(L, LUA_REGISTRYINDEX, rt.proxies_ref);
  lua_pushvalue(L, index);
  lua_rawget(L, -2);
  lua_remove(L, -2);
  if (lua_istable(L, -1)) return true;
  lua_pop(L, 1);
  return false;
}

int readonly_newindex(lua_State* L) { return luaL_error(L, "%s", kReadonlyError); }

int missing_global(lua_State* L) {
  const char* name = lua_tostring(L, 2);
  return luaL_error(L, "Script attempted to access nonexistent global variable '%s'", name ? name : "?");
}

int guarded_rawset(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  if (backing_of(L, 1)) {
    lua_pushstring(L, kReadonlyError);  // no position: the real error comes from inside C
    return lua_error(L);
  }
  luaL_checkany(L, 2);
  luaL_checkany(L, 3);
  lua_settop(L, 3);
  lua_rawset(L, 1);
  return 1;
}

int guarded_rawget(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checkany(L, 2);
  if (backing_of(L, 1)) lua_replace(L, 1);
  lua_settop(L, 2);
  lua_rawget(L, 1);
  return 1;
}

int guarded_setmetatable(lua_State* L) {
  if (lua_istable(L, 1) && backing_of(L, 1)) {
    lua_pushstring(L, kReadonlyError);
    return lua_error(L);
  }
  lua_pushvalue(L, lua_upvalueindex(1));  // the original setmetatable
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

// table.insert writes with raw access, which a proxy cannot intercept.
int guarded_table_writer(lua_State* L) {
  if (lua_istable(L, 1) && backing_of(L, 1)) {
    lua_pushstring(L, kReadonlyError);
    return lua_error(L);
  }
  lua_pushvalue(L, lua_upvalueindex(1));  // the original function
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

// getmetatable("") answers a read-only view of the string metatable.
int guarded_getmetatable(lua_State* L) {
  luaL_checkany(L, 1);
  if (lua_type(L, 1) == LUA_TSTRING) {
    lua_pushvalue(L, lua_upvalueindex(2));
    return 1;
  }
  lua_pushvalue(L, lua_upvalueindex(1));  // the original getmetatable
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

int guarded_next(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  if (backing_of(L, 1)) lua_replace(L, 1);
  lua_settop(L, 2);
  if (lua_next(L, 1)) return 2;
  lua_pushnil(L);
  return 1;
}

int guarded_pairs(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_pushvalue(L, lua_upvalueindex(1));  // guarded_next
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

int ipairs_step(lua_State* L) {
  int i = luaL_checkint(L, 2) + 1;
  lua_pushinteger(L, i);
  lua_rawgeti(L, 1, i);
  return lua_isnil(L, -1) ? 0 : 2;
}

int guarded_ipairs(lua_State* L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_pushcfunction(L, ipairs_step);
  if (!backing_of(L, 1)) lua_pushvalue(L, 1);
  lua_pushinteger(L, 0);
  return 3;
}

// tostring() of a table, function or coroutine shows an address in stock Lua; the
// model shows a per-state sequence number instead so that replies stay deterministic.
int deterministic_tostring(lua_State* L) {
  luaL_checkany(L, 1);
  const int type = lua_type(L, 1);
  const bool by_address = type == LUA_TTABLE || type == LUA_TFUNCTION || type == LUA_TTHREAD || type == LUA_TUSERDATA ||
                          type == LUA_TLIGHTUSERDATA;
  if (!by_address || luaL_callmeta(L, 1, "__tostring")) {
    if (!by_address) {
      lua_pushvalue(L, lua_upvalueindex(1));  // the original tostring
      lua_pushvalue(L, 1);
      lua_call(L, 1, 1);
    }
    return 1;
  }
  lua_pushvalue(L, lua_upvalueindex(2));  // object -> id, weak keys
  lua_pushvalue(L, 1);
  lua_rawget(L, -2);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    lua_pushnumber(L, lua_tonumber(L, lua_upvalueindex(3)) + 1);
    lua_pushvalue(L, -1);
    lua_replace(L, lua_upvalueindex(3));
    lua_pushvalue(L, 1);
    lua_pushvalue(L, -2);
    lua_rawset(L, -4);
  }
  char text[64];
  std::snprintf(text, sizeof text, "%s: 0x%08llx", luaL_typename(L, 1),
                static_cast<unsigned long long>(lua_tonumber(L, -1)));
  lua_pushstring(L, text);
  return 1;
}

// loadstring/load without precompiled (binary) chunks, which could break the VM.
int safe_loadstring(lua_State* L) {
  size_t len = 0;
  const char* s = luaL_checklstring(L, 1, &len);
  lua_charge(L, 1 + len / 4);  // compiling is linear in the source
  const char* name = luaL_optstring(L, 2, s);
  if (len > 0 && s[0] == LUA_SIGNATURE[0]) {
    lua_pushnil(L);
    lua_pushstring(L, "binary chunks are not allowed");
    return 2;
  }
  if (luaL_loadbuffer(L, s, len, name) == 0) return 1;
  lua_pushnil(L);
  lua_insert(L, -2);
  return 2;
}

int safe_load(lua_State* L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  const char* name = luaL_optstring(L, 2, "=(load)");
  lua_settop(L, 2);
  luaL_Buffer buffer;
  luaL_buffinit(L, &buffer);
  for (;;) {
    lua_pushvalue(L, 1);
    lua_call(L, 0, 1);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      break;
    }
    if (!lua_isstring(L, -1)) return luaL_error(L, "reader function must return a string");
    if (lua_objlen(L, -1) == 0) {
      lua_pop(L, 1);
      break;
    }
    luaL_addvalue(&buffer);
  }
  luaL_pushresult(&buffer);
  lua_pushcfunction(L, safe_loadstring);
  lua_insert(L, -2);
  lua_pushstring(L, name);
  lua_call(L, 2, 2);
  return 2;
}

// Replaces field `name` of the table at `table_index` by a read-only proxy of it.
void make_proxy(lua_State* L, int proxies_index, int shared_metatable_marker) {
  // stack: ... backing
  const int backing = lua_gettop(L);
  lua_newtable(L);  // proxy
  const int proxy = lua_gettop(L);
  lua_newtable(L);  // its metatable
  lua_pushstring(L, "__index");
  lua_pushvalue(L, backing);
  lua_rawset(L, -3);
  lua_pushstring(L, "__newindex");
  lua_pushcfunction(L, readonly_newindex);
  lua_rawset(L, -3);
  if (shared_metatable_marker != 0) {  // getmetatable(proxy) yields this (read-only) table
    lua_pushstring(L, "__metatable");
    lua_pushvalue(L, shared_metatable_marker);
    lua_rawset(L, -3);
  }
  lua_setmetatable(L, proxy);
  lua_pushvalue(L, proxy);
  lua_pushvalue(L, backing);
  lua_rawset(L, proxies_index);
  lua_replace(L, backing);  // leaves the proxy where the backing was
  lua_settop(L, backing);
}

constexpr const char* kErrorHandlerSource = R"lua(
local getinfo = ...
return function(err)
  local i = getinfo(2, 'nSl')
  if i and i.what == 'C' then
    i = getinfo(3, 'nSl')
  end
  if type(err) ~= 'table' then
    err = {err = 'ERR ' .. tostring(err)}
  end
  if i then
    err['source'] = i.source
    err['line'] = i.currentline
  end
  return err
end
)lua";

void open_library(lua_State* L, lua_CFunction open, const char* name) {
  lua_pushcfunction(L, open);
  lua_pushstring(L, name);
  lua_call(L, 1, 0);
}

void set_function(lua_State* L, const char* name, lua_CFunction fn) {
  lua_pushstring(L, name);
  lua_pushcfunction(L, fn);
  lua_rawset(L, -3);
}

void set_number(lua_State* L, const char* name, lua_Number value) {
  lua_pushstring(L, name);
  lua_pushnumber(L, value);
  lua_rawset(L, -3);
}

// The libraries Redis opens, with its own math.random.
void open_libraries(lua_State* L) {
  open_library(L, luaopen_base, "");
  open_library(L, luaopen_table, LUA_TABLIBNAME);
  open_library(L, luaopen_string, LUA_STRLIBNAME);
  open_library(L, luaopen_math, LUA_MATHLIBNAME);
  lua_getglobal(L, LUA_MATHLIBNAME);
  lua_pushcfunction(L, redis_math_random);
  lua_setfield(L, -2, "random");
  lua_pushcfunction(L, redis_math_randomseed);
  lua_setfield(L, -2, "randomseed");
  lua_pop(L, 1);
  open_library(L, luaopen_debug, LUA_DBLIBNAME);
  open_redis_libraries(L);
}

// The error handler keeps debug.getinfo; the debug library itself goes away.
void install_error_handler(LuaRuntime& rt, lua_State* L, int globals) {
  luaL_loadbuffer(L, kErrorHandlerSource, std::strlen(kErrorHandlerSource), "=redis_error_handler");
  lua_getfield(L, globals, "debug");
  lua_getfield(L, -1, "getinfo");
  lua_remove(L, -2);
  lua_call(L, 1, 1);
  lua_pushvalue(L, -1);
  rt.handler_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_setfield(L, globals, "__redis__err__handler");
}

// What Redis takes away from scripts (files, printing, environments), once the error handler has debug.getinfo.
void remove_unsafe_globals(lua_State* L, int globals) {
  for (const char* removed : {"debug", "dofile", "loadfile", "print", "getfenv", "setfenv", "newproxy"}) {
    lua_pushnil(L);
    lua_setfield(L, globals, removed);
  }
}

// The registry of read-only proxies (proxy -> backing, weak keys), left on the stack; returns its index.
int push_proxy_registry(LuaRuntime& rt, lua_State* L) {
  lua_newtable(L);
  lua_newtable(L);
  lua_pushstring(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_pushvalue(L, -1);
  rt.proxies_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  return lua_gettop(L);
}

// Base functions that must see through (or refuse) the proxies.
void install_guarded_builtins(lua_State* L, int globals) {
  lua_pushcfunction(L, lua_redis_style_pcall);
  lua_setfield(L, globals, "pcall");
  lua_pushcfunction(L, guarded_rawset);
  lua_setfield(L, globals, "rawset");
  lua_pushcfunction(L, guarded_rawget);
  lua_setfield(L, globals, "rawget");
  lua_getfield(L, globals, "setmetatable");
  lua_pushcclosure(L, guarded_setmetatable, 1);
  lua_setfield(L, globals, "setmetatable");
  lua_pushcfunction(L, guarded_next);
  lua_pushvalue(L, -1);
  lua_setfield(L, globals, "next");
  lua_pushcclosure(L, guarded_pairs, 1);
  lua_setfield(L, globals, "pairs");
  lua_pushcfunction(L, guarded_ipairs);
  lua_setfield(L, globals, "ipairs");
  lua_getfield(L, globals, "tostring");
  lua_newtable(L);
  lua_newtable(L);
  lua_pushstring(L, "k");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_pushnumber(L, 0);
  lua_pushcclosure(L, deterministic_tostring, 3);
  lua_setfield(L, globals, "tostring");
  lua_pushcfunction(L, safe_loadstring);
  lua_setfield(L, globals, "loadstring");
  lua_pushcfunction(L, safe_load);
  lua_setfield(L, globals, "load");
}

// The redis table.
void install_redis_table(lua_State* L, int globals) {
  lua_newtable(L);
  set_function(L, "call", lua_redis_call);
  set_function(L, "pcall", lua_redis_pcall);
  set_function(L, "error_reply", lua_error_reply);
  set_function(L, "status_reply", lua_status_reply);
  set_function(L, "sha1hex", lua_sha1hex);
  set_function(L, "log", lua_log);
  set_function(L, "setresp", lua_setresp);
  set_function(L, "set_repl", lua_set_repl);
  set_function(L, "replicate_commands", lua_return_true);
  set_function(L, "breakpoint", lua_return_false);
  set_function(L, "debug", lua_return_nothing);
  set_function(L, "acl_check_cmd", lua_acl_check_cmd);
  set_number(L, "LOG_DEBUG", 0);
  set_number(L, "LOG_VERBOSE", 1);
  set_number(L, "LOG_NOTICE", 2);
  set_number(L, "LOG_WARNING", 3);
  set_number(L, "REPL_NONE", 0);
  set_number(L, "REPL_AOF", 1);
  set_number(L, "REPL_SLAVE", 2);
  set_number(L, "REPL_REPLICA", 2);
  set_number(L, "REPL_ALL", 3);
  lua_pushstring(L, "REDIS_VERSION");
  lua_pushstring(L, "7.0.15");
  lua_rawset(L, -3);
  set_number(L, "REDIS_VERSION_NUM", 0x07000f);
  lua_setfield(L, globals, "redis");
}

// The libraries behind read-only proxies; marker is what getmetatable() of a protected table answers.
void protect_libraries(lua_State* L, int globals, int proxies, int marker) {
  for (const char* name : {"string", "math", "table", "coroutine", "redis", kRedisLibraryNames[0],
                           kRedisLibraryNames[1], kRedisLibraryNames[2], kRedisLibraryNames[3]}) {
    lua_getfield(L, globals, name);
    make_proxy(L, proxies, marker);
    lua_setfield(L, globals, name);
  }
  // String methods ("x"):upper() resolve through the same read-only string table,
  // and scripts only ever see a read-only view of the string metatable.
  lua_pushstring(L, "");
  lua_getmetatable(L, -1);
  lua_pushstring(L, "__index");
  lua_getfield(L, globals, "string");
  lua_rawset(L, -3);
  lua_getfield(L, globals, "getmetatable");
  lua_insert(L, -2);
  make_proxy(L, proxies, marker);
  lua_pushcclosure(L, guarded_getmetatable, 2);
  lua_setfield(L, globals, "getmetatable");
  lua_pop(L, 1);
  lua_getfield(L, globals, "table");
  lua_getmetatable(L, -1);
  lua_getfield(L, -1, "__index");          // the real table library behind its proxy
  for (const char* writer : {"insert"}) {  // remove and sort of an empty proxy write nothing
    lua_getfield(L, -1, writer);
    lua_pushcclosure(L, guarded_table_writer, 1);
    lua_setfield(L, -2, writer);
  }
  lua_pop(L, 3);
}

// Globals: reading a missing one is an error, writing any is an error.
void protect_globals(lua_State* L, int globals, int proxies, int marker) {
  lua_newtable(L);
  lua_pushstring(L, "__index");
  lua_pushcfunction(L, missing_global);
  lua_rawset(L, -3);
  lua_setmetatable(L, globals);
  lua_pushvalue(L, globals);
  make_proxy(L, proxies, marker);
  lua_pushstring(L, "_G");
  lua_pushvalue(L, -2);
  lua_rawset(L, globals);
  lua_replace(L, LUA_GLOBALSINDEX);  // chunks loaded from now on see the proxy
}

// Compiles `body` into the function cache under `sha`; a compile error otherwise.
std::optional<Reply> compile(LuaRuntime& rt, std::string_view body, const std::string& sha) {
  lua_State* L = rt.L;
  if (!body.empty() && body[0] == LUA_SIGNATURE[0])
    return Reply::error("ERR Error compiling script (new function): user_script: binary chunks are not allowed");
  ScriptFlags flags;
  std::string lua_body;
  if (auto bad = parse_shebang(body, flags, lua_body)) return bad;
  rt.memory_exceeded = false;
  rt.enforce_memory = true;
  const int status = luaL_loadbuffer(L, lua_body.data(), lua_body.size(), "@user_script");
  rt.enforce_memory = false;
  if (status != 0) {
    std::string message = lua_tostring(L, -1) ? lua_tostring(L, -1) : "unknown error";
    lua_pop(L, 1);
    if (rt.memory_exceeded && rt.gc_useful) {
      lua_gc(L, LUA_GCCOLLECT, 0);
      rt.gc_useful = false;
    }
    return Reply::error(without_newlines("ERR Error compiling script (new function): " + message));
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, rt.functions_ref);
  lua_pushlstring(L, sha.data(), sha.size());
  lua_pushvalue(L, -3);
  lua_rawset(L, -3);
  lua_pop(L, 2);
  rt.shas.insert(sha);
  rt.flags_of[sha] = flags;
  return std::nullopt;
}

void set_global_array(lua_State* L, int globals, const char* name, const Command& argv, size_t from, size_t count) {
  lua_createtable(L, static_cast<int>(count), 0);
  for (size_t i = 0; i < count; ++i) {
    lua_pushlstring(L, argv[from + i].data(), argv[from + i].size());
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  lua_pushstring(L, name);
  lua_insert(L, -2);
  lua_rawset(L, globals);
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

// cjson.new makes a config with malloc'd memory of its own (lua_runtime.hpp).
int cjson_new_tracked(lua_State* L) {
  runtime(L).cjson_instances = true;
  lua_pushvalue(L, lua_upvalueindex(1));  // the original cjson.new
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

// Notes where lua-cjson's config lives (the upvalue of its functions) and wraps cjson.new.
void track_cjson(LuaRuntime& rt, lua_State* L, int globals) {
  lua_getfield(L, globals, "cjson");
  lua_getfield(L, -1, "encode_keep_buffer");  // not encode, which lua_lib_guards.cpp wraps
  if (lua_getupvalue(L, -1, 1)) {
    if (lua_type(L, -1) == LUA_TUSERDATA) {
      rt.cjson_config = lua_touserdata(L, -1);
      rt.cjson_config_size = lua_objlen(L, -1);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  lua_getfield(L, -1, "new");
  lua_pushcclosure(L, cjson_new_tracked, 1);
  lua_setfield(L, -2, "new");
  lua_pop(L, 1);
}

// Room for the state as built (47 KiB in 16-byte blocks); what scripts make later goes to chunks.
constexpr size_t kRegionBytes = 56 * 1024;

}  // namespace

void build_state(LuaRuntime& rt) {
  rt.arena.begin_region(kRegionBytes);
  rt.cjson_config = nullptr;
  rt.cjson_config_size = 0;
  rt.cjson_instances = false;
  lua_State* L = lua_newstate(capped_alloc, static_cast<LuaMeter*>(&rt));
  if (!L) throw std::bad_alloc();
  rt.L = L;
  // Building makes no garbage worth collecting: the collector waits until it is done.
  lua_gc(L, LUA_GCSTOP, 0);
  open_libraries(L);
  lua_pushvalue(L, LUA_GLOBALSINDEX);
  const int globals = lua_gettop(L);
  install_metered_builtins(L, globals);
  install_error_handler(rt, L, globals);
  remove_unsafe_globals(L, globals);
  const int proxies = push_proxy_registry(rt, L);
  install_guarded_builtins(L, globals);
  install_redis_table(L, globals);
  track_cjson(rt, L, globals);
  // getmetatable() of a protected table answers with this read-only empty table.
  lua_newtable(L);
  make_proxy(L, proxies, 0);
  const int marker = lua_gettop(L);
  protect_libraries(L, globals, proxies, marker);
  protect_globals(L, globals, proxies, marker);

  lua_pushvalue(L, globals);
  rt.globals_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_newtable(L);
  rt.functions_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_settop(L, 0);
  lua_gc(L, LUA_GCRESTART, 0);
  rt.built_bytes = rt.used_bytes;
  rt.arena.seal();
}

void close_state(LuaRuntime& rt) {
  if (rt.L) lua_close(rt.L);
  rt.L = nullptr;
  rt.arena.release();
  rt.used_bytes = 0;
  rt.shas.clear();
  rt.flags_of.clear();
  rt.sha_of_body.clear();
}

LuaRuntime::~LuaRuntime() { close_state(*this); }

ScriptEngine::ScriptEngine(const ServerOptions& options) : runtime_(acquire_lua_runtime()) {
  runtime_->options = options;
  runtime_->hook_step =
      static_cast<int>(std::min<uint64_t>(1000, std::max<uint64_t>(1, options.lua_instruction_budget)));
  runtime_->rand48 = LuaRuntime::kRand48Start;
  runtime_->run_instructions = 0;
}

ScriptEngine::~ScriptEngine() { release_lua_runtime(std::move(runtime_)); }

lua_State* ScriptEngine::lua() { return runtime_->L; }
uint64_t ScriptEngine::generation() const { return generation_; }
void ScriptEngine::set_limits(bool on) {
  runtime_->memory_exceeded = false;
  runtime_->enforce_memory = on;
}
bool ScriptEngine::memory_exceeded() const { return runtime_->memory_exceeded; }

void ScriptEngine::register_function(const std::string& name, ScriptFlags flags) {
  // The wrapper is at the top of the stack: it joins the compiled scripts as "fn:<name>".
  LuaRuntime& rt = *runtime_;
  const std::string key = "fn:" + name;
  lua_rawgeti(rt.L, LUA_REGISTRYINDEX, rt.functions_ref);
  lua_pushlstring(rt.L, key.data(), key.size());
  lua_pushvalue(rt.L, -3);
  lua_rawset(rt.L, -3);
  lua_pop(rt.L, 2);
  rt.shas.insert(key);
  rt.flags_of[key] = flags;
}

void ScriptEngine::unregister_function(const std::string& name) {
  LuaRuntime& rt = *runtime_;
  const std::string key = "fn:" + name;
  lua_rawgeti(rt.L, LUA_REGISTRYINDEX, rt.functions_ref);
  lua_pushlstring(rt.L, key.data(), key.size());
  lua_pushnil(rt.L);
  lua_rawset(rt.L, -3);
  lua_pop(rt.L, 1);
  rt.shas.erase(key);
  rt.flags_of.erase(key);
}

void ScriptEngine::flush() {
  reset_lua_state(*runtime_);
  ++generation_;  // registered functions are gone with the state: functions.cpp reloads them
}

size_t ScriptEngine::cached_scripts() const {  // the functions ("fn:<name>") are not scripts
  const auto& shas = runtime_->shas;
  return shas.size() - static_cast<size_t>(std::distance(shas.lower_bound("fn:"), shas.lower_bound("fn;")));
}
size_t ScriptEngine::lua_bytes() const { return runtime_->used_bytes; }

bool ScriptEngine::exists(std::string_view sha) const {
  char lower[40];
  std::string_view key;
  if (!to_lower(sha, lower, sizeof lower, key)) return false;
  return runtime_->shas.count(std::string(key)) > 0;
}

Reply ScriptEngine::load(std::string_view body) {
  std::string sha = sha1_hex(body);
  if (!runtime_->shas.count(sha)) {
    if (auto error = compile(*runtime_, body, sha)) return *error;
  }
  return Reply::bulk(sha);
}

namespace {

// The script an EVAL, EVALSHA or FCALL runs: its SHA-1 (or "fn:<name>") and flags.
struct ScriptRef {
  const std::string* sha = nullptr;
  ScriptFlags flags;
};

// The compiled script EVAL, EVALSHA or FCALL names, compiling (and caching) an EVAL body first; an error reply
// when there is none. A known EVAL body needs no copy: `found` points into the cache, else into `scratch`.
std::optional<Reply> find_script(LuaRuntime& rt, const Command& argv, bool by_sha, std::string_view function,
                                 std::string& scratch, ScriptRef& found) {
  found.sha = &scratch;
  if (!function.empty()) {  // FCALL: a wrapper registered by functions.cpp under "fn:<name>"
    scratch = "fn:" + std::string(function);
    if (!rt.shas.count(scratch)) return error_reply("ERR Function not found");
  } else if (by_sha) {
    char lower[40];
    std::string_view key;
    if (argv[1].size() != 40 || !to_lower(argv[1], lower, sizeof lower, key) || !rt.shas.count(std::string(key)))
      return error_reply("NOSCRIPT No matching script. Please use EVAL.");
    scratch.assign(key);
  } else if (auto known = rt.sha_of_body.find(argv[1]); known != rt.sha_of_body.end()) {
    found = {&known->second.sha, known->second.flags};
    return std::nullopt;
  } else {
    scratch = sha1_hex(argv[1]);
    if (!rt.shas.count(scratch)) {
      if (auto error = compile(rt, argv[1], scratch)) return *error;
    }
    if (rt.sha_of_body.size() < 10'000 && argv[1].size() <= 4096)
      rt.sha_of_body.emplace(argv[1], LuaRuntime::KnownBody{scratch, rt.flags_of[scratch]});
  }
  found.flags = rt.flags_of[scratch];
  return std::nullopt;
}

// What a finished run answers: its stopped budget or memory, its error, or its value.
Reply reply_of_run(LuaRuntime& rt, int status, const std::string& sha, std::string_view function) {
  lua_State* L = rt.L;
  Reply reply;
  if (rt.budget_exceeded) {
    reply = Reply::error("BUSY Script exceeded the instruction budget of " +
                         std::to_string(rt.options.lua_instruction_budget) +
                         " and was stopped; its earlier writes are kept");
  } else if (rt.memory_exceeded) {
    reply = Reply::error("OOM Script exceeded the Lua memory limit of " +
                         std::to_string(rt.options.lua_memory_limit_bytes) + " bytes");
  } else if (status != 0) {
    reply = error_from_lua(L, function.empty() ? sha : std::string(function));
  } else if (rt.killed) {  // stopped with no instruction left to raise in
    reply = Reply::error("ERR Script killed by user with SCRIPT KILL...");
  } else {
    size_t budget = 1'000'000;
    reply = lua_to_reply(L, -1, budget);
  }
  lua_settop(L, 0);
  if (rt.memory_exceeded || rt.budget_exceeded) lua_gc(L, LUA_GCCOLLECT, 0);
  return reply;
}

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
  std::string scratch;
  ScriptRef script;
  if (auto error = find_script(rt, argv, by_sha, function, scratch, script)) return *error;
  const std::string& sha = *script.sha;

  lua_settop(L, 0);
  lua_rawgeti(L, LUA_REGISTRYINDEX, rt.handler_ref);
  lua_rawgeti(L, LUA_REGISTRYINDEX, rt.globals_ref);
  const int globals = lua_gettop(L);
  const size_t keys = static_cast<size_t>(numkeys);
  set_global_array(L, globals, "KEYS", argv, 3, keys);
  set_global_array(L, globals, "ARGV", argv, 3 + keys, argv.size() - 3 - keys);
  lua_pop(L, 1);
  lua_rawgeti(L, LUA_REGISTRYINDEX, rt.functions_ref);
  lua_pushlstring(L, sha.data(), sha.size());
  lua_rawget(L, -2);
  lua_remove(L, -2);

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
  rt.running = RunningScript{.is_eval = function.empty(), .wrote = false, .name = function.empty() ? std::string_view(sha) : function};
  rt.killed = false;
  rt.host_due = kScriptProgressInstructions;
  ScriptHost* host = ctx.server.script_host;
  if (host) host->script_started();
  lua_sethook(L, count_hook, LUA_MASKCOUNT, rt.hook_step);
  rt.enforce_memory = true;
  rt.gc_useful = true;
  const int status = lua_pcall(L, 0, 1, 1);
  rt.enforce_memory = false;
  lua_sethook(L, nullptr, 0, 0);
  rt.ctx = nullptr;
  if (host) host->script_ended();
  ctx.in_script = saved.in_script;  // a SELECT inside the script stays there
  ctx.db_index = saved.db_index;
  ctx.may_block = saved.may_block;
  return reply_of_run(rt, status, sha, function);
}

bool ScriptEngine::running() const { return runtime_->ctx != nullptr; }

namespace {
constexpr const char* kBusyEval = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
constexpr const char* kBusyFunction =
    "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";
}  // namespace

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

int LuaRuntime::raise_out_of_memory(lua_State* state) {
  memory_exceeded = true;
  lua_pushliteral(state, "not enough memory");
  return lua_error(state);
}

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
