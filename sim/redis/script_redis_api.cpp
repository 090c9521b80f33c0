// redis.call, redis.pcall and the rest of the `redis` table, as Redis 7.0.15's
// script_lua.c gives them to scripts: the same argument rules, error texts and replies.
// C functions here do their C++ work inside a HostScope and raise Lua errors only after
// it has ended (script_lua.hpp says why).
#include "locksim/sim/redis/script_redis_api.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <optional>
#include <string>

#include "locksim/sim/redis/arguments.hpp"
#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/lua_resp3.hpp"
#include "locksim/sim/redis/memory.hpp"
#include "locksim/sim/redis/resp3_form.hpp"
#include "locksim/sim/redis/script_lua.hpp"
#include "locksim/sim/redis/sha1.hpp"

namespace locksim::redis {

namespace {

// A number argument as Redis's "%.17g" prints it. A whole number below 2^53 (a counter, a
// ticket) prints as its integer digits under %.17g, which to_chars writes for a fraction of
// snprintf's cost; -0 and everything else go through snprintf.
size_t format_number_argument(double d, char* buffer, size_t size) {
  constexpr double kExactIntegers = 9007199254740992.0;  // 2^53
  if (d == std::trunc(d) && std::fabs(d) < kExactIntegers && !(d == 0 && std::signbit(d))) {
    const auto [end, ec] = std::to_chars(buffer, buffer + size, static_cast<int64_t>(d));
    if (ec == std::errc{}) return static_cast<size_t>(end - buffer);
  }
  return static_cast<size_t>(std::snprintf(buffer, size, "%.17g", d));
}

}  // namespace

namespace {

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
  // Told by the table's entry (FLUSHDB and FLUSHALL share a handler), not by the name.
  if (spec.handler == cmd_keys || spec.name == "flushdb") return ctx.db().keys.size() * kInstructionsPerElement;
  if (spec.name == "flushall") {
    uint64_t keys = 0;
    for (const auto& db : ctx.server.dbs) keys += db.keys.size();
    return keys * kInstructionsPerElement;
  }
  uint64_t elements = 0;
  for (size_t i = 1; i < argv.size(); ++i)
    if (const Entry* entry = ctx.db().peek(argv[i], ctx.now_ms)) elements += value_size(*entry);
  return elements * kInstructionsPerElement;
}

// Why a command called from a script is refused before it runs, or nullptr.
const char* refusal_in_script(const CommandSpec& spec, const Command& argv, const LuaRuntime& rt) {
  if (!arity_matches(spec.arity, argv.size())) return "Wrong number of args calling Redis command from script";
  if (spec.flags & kSubcommands) {
    if (auto rejected = check_subcommand(spec, argv))
      return rejected->str.starts_with("ERR unknown subcommand") ? "Unknown Redis command called from script"
                                                                  : "Wrong number of args calling Redis command from script";
  }
  if (spec.flags & kNoScript) return "This Redis command is not allowed from script";
  if (rt.read_only && (spec.flags & kWrite)) return "Write commands are not allowed from read-only scripts.";
  return nullptr;
}

// The command table's entry for `name`, or null: one of the last found, else looked up.
const CommandSpec* command_named(LuaRuntime& rt, const std::string& name) {
  const auto same = [&](const std::string& known) {  // short names: a loop, not a call to memcmp
    if (known.size() != name.size()) return false;
    for (size_t i = 0; i < name.size(); ++i)
      if (known[i] != name[i]) return false;
    return true;
  };
  for (const LuaRuntime::NamedCommand& known : rt.called)
    if (known.spec && same(known.name)) return known.spec;
  const CommandSpec* spec = find_command(name);
  if (spec && name.size() <= 16) {  // (a long name would be copied for nothing)
    rt.called[rt.called_next] = {name, spec};
    rt.called_next = (rt.called_next + 1) % std::size(rt.called);
  }
  return spec;
}

// The command a script may run, or null: `error` says why not, or `refused` holds the
// reply that refuses it (over maxmemory), each counted as Redis counts it.
const CommandSpec* admit_from_script(ExecContext& ctx, const Command& argv, std::string& error, LuaRuntime& rt,
                                     bool& counted, std::optional<Reply>& refused) {
  const CommandSpec* spec = command_named(rt, argv[0]);
  if (!spec) {
    error = "Unknown Redis command called from script";
    ctx.server.stats.error(error_table_text(error));
    counted = true;
    return nullptr;
  }
  if (const char* refusal = refusal_in_script(*spec, argv, rt)) {
    error = refusal;
    ctx.server.stats.rejected(*spec, argv, error_table_text(error));
    counted = true;
    return nullptr;
  }
  // The script's own SELECT carries on to its next calls (ctx is the EVAL's context).
  ctx.in_script = true;
  ctx.may_block = false;
  if (!rt.allow_oom && may_grow(*spec)) {
    if ((refused = refuse_if_over_maxmemory(ctx.server, *spec, argv))) {
      ctx.server.stats.rejected(*spec, argv, refused->str);
      counted = true;
      return nullptr;
    }
  }
  return spec;
}

// Runs one command for redis.call/pcall, counted in INFO commandstats and errorstats as
// Redis counts it: a refusal is the command's rejected call, a run its call (failed if it
// answered an error). `counted` says that an error was counted here, so the error
// table that carries it is marked and the script's reply passing it on is not counted.
// Its reply is returned (the handler's, made in place: no move on the way); `error`
// says instead why it was refused.
Reply run_from_script(ExecContext& ctx, const Command& argv, std::string& error, LuaRuntime& rt, uint64_t& work,
                      bool& counted) {
  std::optional<Reply> refused;
  const CommandSpec* spec = admit_from_script(ctx, argv, error, rt, counted, refused);
  if (!spec) return refused ? std::move(*refused) : Reply{};
  if (spec->flags & kWrite) rt.running.wrote = true;  // Redis SCRIPT_WRITE_DIRTY: SCRIPT KILL refuses from now on
  std::optional<Notifications::Scope> scope;  // only when events are on
  if (ctx.server.notifications.flags) scope.emplace(ctx.server.notifications, spec->name);
  work = data_work(ctx, *spec, argv);
  Reply reply = spec->handler(ctx, argv);
  if (!reply.is_error() && !(spec->flags & kSubcommands))
    ctx.server.stats.ran_plain(spec->slot);  // as ran() counts it, inline
  else
    ctx.server.stats.ran(*spec, argv, reply, false);
  counted = reply.is_error();
  return reply;
}

// redis.call's arguments, in the runtime's kept vector (no allocation for a call whose
// arguments fit the strings already there), or in a vector of its own if a call is
// already using that one. Long arguments do not stay behind.
struct ArgumentVector {
  ArgumentVector(LuaRuntime& rt, size_t argc) : runtime(rt), kept(!rt.call_args_busy), argv(kept ? rt.call_args : own) {
    runtime.call_args_busy = runtime.call_args_busy || kept;
    argv.resize(argc);
  }
  ~ArgumentVector() {
    if (!kept) return;
    if (may_hold_long)
      for (std::string& arg : argv)
        if (arg.capacity() > kLongestKept) std::string().swap(arg);
    runtime.call_args_busy = false;
  }
  static constexpr size_t kLongestKept = 256;
  ArgumentVector(const ArgumentVector&) = delete;
  ArgumentVector& operator=(const ArgumentVector&) = delete;

  LuaRuntime& runtime;
  const bool kept;
  // False once the arguments are known to total at most kLongestKept bytes: none is
  // long, and the earlier calls' left none behind.
  bool may_hold_long = true;
  Command own;
  Command& argv;
};

// A call costs about a microsecond however small (argument vector, lookup, reply
// or error table): a loop of redis.pcall('NOPE') must spend its budget in about a second.
constexpr uint64_t kInstructionsPerCall = 100;

// A reply's cost: its bytes, or its elements; an element is built in the model and
// again as a Lua value. Told by the value pushed (`L`'s top, lua_objlen would turn a
// number into a string) after redis.setresp(3), whose forms only Lua sees; else by the
// reply, which push_reply makes into exactly the value that tells the same: a string of
// its bytes, an array of its elements, a number or a table without elements.
uint64_t reply_cost(lua_State* L, const LuaRuntime& rt, const Reply& reply) {
  if (rt.resp == 2) {
    if (reply.type == Reply::Type::Bulk) return reply.str.size() / 8;
    if (reply.type == Reply::Type::Array) return reply.elements.size() * kInstructionsPerElement;
    return 0;
  }
  const int type = lua_type(L, -1);
  if (type == LUA_TSTRING) return lua_objlen(L, -1) / 8;
  if (type == LUA_TTABLE) return lua_objlen(L, -1) * kInstructionsPerElement;
  return 0;
}

// How a redis.call or redis.pcall ends: its value pushed (returned), an error table pushed
// that redis.call raises, or the script stopped (its budget spent, or SCRIPT KILL).
enum class CallEnd { Returned, RaiseResult, Stopped };

// Converts the arguments into `argv`; the error text if one is neither string nor number.
// `bytes`: the strings' bytes, all of them (the call's cost counts each).
const char* gather_arguments(lua_State* L, int argc, Command& argv, uint64_t& bytes) {
  if (argc == 0) return "Please specify at least one argument for this redis lib call";
  for (int i = 1; i <= argc; ++i) {
    const int type = lua_type(L, i);
    std::string& arg = argv[static_cast<size_t>(i - 1)];
    if (type == LUA_TNUMBER) {
      // Redis formats numbers with %.17g, not Lua's %.14g.
      char buffer[64];
      arg.assign(buffer, format_number_argument(static_cast<double>(lua_tonumber(L, i)), buffer, sizeof buffer));
    } else if (type == LUA_TSTRING) {
      size_t len = 0;
      const char* s = lua_tolstring(L, i, &len);
      arg.clear();  // then append: a copy into the kept capacity (assign's replace costs more)
      arg.append(s, len);
      bytes += len;
    } else {
      for (int rest = i + 1; rest <= argc; ++rest)
        if (lua_type(L, rest) == LUA_TSTRING) bytes += lua_objlen(L, rest);
      return "Lua redis lib command arguments must be strings or integers";
    }
  }
  return nullptr;
}

// Runs one redis.call/pcall and pushes its result (`raise`: redis.call's, which raises an
// error reply). Its cost is charged as it goes, without raising here (the caller raises
// `stop` once this frame's objects are gone): before the command runs, the call and its
// arguments at one instruction per byte, since each is copied into the command and again
// into the data set, which may grow by reallocation (a loop APPENDing 10 MB strings must
// spend its budget in about a second); after it, the data it walked and the reply.
// What running a call's command left beside its reply.
struct CallOutcome {
  std::string error;  // why it did not run (an error table's text), else empty
  bool counted = false;  // an error counted in errorstats where the command made it
  Resp3Form form = Resp3Form::Plain;
  uint64_t work = 0;
};

// Gathers the arguments at the top of L's stack and runs their command: its reply (made in
// place in the caller's), or none with `out.error` set, or none with `stop` set (the call's
// charge spent the budget).
Reply call_command(lua_State* L, LuaRuntime& rt, CallOutcome& out, LuaRuntime::Stop& stop) {
  try {
    const int argc = lua_gettop(L);
    ArgumentVector args(rt, static_cast<size_t>(argc));
    Command& argv = args.argv;
    uint64_t bytes = 0;
    if (const char* bad = gather_arguments(L, argc, argv, bytes)) out.error = bad;
    args.may_hold_long = bytes > ArgumentVector::kLongestKept;
    stop = rt.account(L, kInstructionsPerCall + bytes);
    if (stop != LuaRuntime::Stop::None || !out.error.empty()) return Reply{};
    if (rt.resp == 3) out.form = resp3_form(argv);
    return run_from_script(*rt.ctx, argv, out.error, rt, out.work, out.counted);
  } catch (const std::exception& e) {
    out.error = std::string("internal error: ") + e.what();
    return Reply{};
  }
}

CallEnd host_call(lua_State* L, bool raise, LuaRuntime::Stop& stop) {
  LuaRuntime& rt = runtime_of(L);
  HostScope scope(rt);
  CallOutcome out;
  const Reply reply = call_command(L, rt, out, stop);
  if (stop != LuaRuntime::Stop::None) return CallEnd::Stopped;
  const std::string& error = out.error;
  const bool counted = out.counted;
  const uint64_t work = out.work;
  if (!error.empty()) {
    push_error_table(L, error_table_text(error));
    if (counted) mark_error_counted(L);
    stop = work != 0 ? rt.account(L, work) : LuaRuntime::Stop::None;
    if (stop != LuaRuntime::Stop::None) return CallEnd::Stopped;
    return raise ? CallEnd::RaiseResult : CallEnd::Returned;
  }
  lua_settop(L, 0);  // Redis pops the arguments first: unpack() may have filled the stack
  if (rt.resp == 3)
    push_reply_resp3(L, reply, out.form, push_reply);
  else
    push_reply(L, reply);
  if (counted && reply.is_error()) mark_error_counted(L);
  const bool raising = raise && reply.is_error();
  // Nothing to charge changes nothing (the budget, the host's progress and SCRIPT KILL
  // all move only when instructions are added), so a GET's short reply and its zero
  // data work skip the accounting.
  const uint64_t after = work + (raising ? 0 : reply_cost(L, rt, reply));
  stop = after != 0 ? rt.account(L, after) : LuaRuntime::Stop::None;
  if (stop != LuaRuntime::Stop::None) return CallEnd::Stopped;
  return raising ? CallEnd::RaiseResult : CallEnd::Returned;
}

int redis_call(lua_State* L, bool raise) {
  LuaRuntime::Stop stop = LuaRuntime::Stop::None;
  const CallEnd end = host_call(L, raise, stop);
  if (end == CallEnd::Stopped) runtime_of(L).raise_stop(L, stop);
  if (end == CallEnd::RaiseResult) return lua_error(L);
  return 1;
}

int lua_redis_call(lua_State* L) { return redis_call(L, true); }
int lua_redis_pcall(lua_State* L) { return redis_call(L, false); }

// ---- the rest of the redis table ----------------------------------------------

// Pushes the error table {err="ERR <text>"}; the caller returns or raises it.
void push_error(lua_State* L, const char* text) {
  HostScope scope(runtime_of(L));
  push_error_table(L, error_table_text(text));
}

int lua_error_reply(lua_State* L) {
  {
    HostScope scope(runtime_of(L));
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
  lua_createtable(L, 0, 1);
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
    HostScope scope(runtime_of(L));
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
  runtime_of(L).resp = resp;
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


}  // namespace

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

}  // namespace locksim::redis
