#include "locksim/sim/redis/functions.hpp"

#include <lua.hpp>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <strings.h>

#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/glob.hpp"
#include "locksim/sim/redis/scripting.hpp"
#include "locksim/sim/redis/typed_lookup.hpp"

namespace locksim::redis {

namespace {

constexpr const char* kNameError =
    "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long";
// (sic: Redis 7.0 gives function names the library names' text)
constexpr const char* kNameErrorReply =
    "ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long";
constexpr uint64_t kLoadInstructionLimit = 10'000'000;  // Redis stops a load after 500 ms

bool valid_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// Lua side of loading. Every function here may raise Lua errors: no C++ objects.
int raise_table(lua_State* L, const char* text) {
  lua_newtable(L);
  lua_pushstring(L, text);
  lua_setfield(L, -2, "err");
  return lua_error(L);
}

int missing(lua_State* L) {
  const char* name = lua_tostring(L, 2);
  return luaL_error(L, "Script attempted to access nonexistent global variable '%s'", name ? name : "?");
}

int readonly(lua_State* L) { return luaL_error(L, "Attempt to modify a readonly table"); }

// Redis luaRegisterFunctionReadNamedArgs: each named argument of the table at index 1
// checked as it is met (keys in any case), then the two that must be there. Pushes
// name, callback, flags and description (nil where not given); raises otherwise.
void read_named_arguments(lua_State* L) {
  lua_pushnil(L);  // name
  lua_pushnil(L);  // callback
  lua_pushnil(L);  // flags
  lua_pushnil(L);  // description
  const int first = lua_gettop(L) - 3;
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    if (lua_type(L, -2) != LUA_TSTRING)
      raise_table(L, "ERR named argument key given to redis.register_function is not a string");
    const char* key = lua_tostring(L, -2);
    int slot = -1;
    if (!strcasecmp(key, "function_name")) {
      if (!lua_isstring(L, -1))
        raise_table(L, "ERR function_name argument given to redis.register_function must be a string");
      slot = 0;
    } else if (!strcasecmp(key, "description")) {
      if (!lua_isstring(L, -1))
        raise_table(L, "ERR description argument given to redis.register_function must be a string");
      slot = 3;
    } else if (!strcasecmp(key, "callback")) {
      if (!lua_isfunction(L, -1))
        raise_table(L, "ERR callback argument given to redis.register_function must be a function");
      slot = 1;
    } else if (!strcasecmp(key, "flags")) {
      if (!lua_istable(L, -1))
        raise_table(L, "ERR flags argument to redis.register_function must be a table representing function flags");
      slot = 2;
    } else {
      raise_table(L, "ERR unknown argument given to redis.register_function");
    }
    lua_replace(L, first + slot);
  }
  if (lua_isnil(L, first)) raise_table(L, "ERR redis.register_function must get a function name argument");
  if (lua_isnil(L, first + 1)) raise_table(L, "ERR redis.register_function must get a callback argument");
}

// redis.register_function(name, callback) or redis.register_function{function_name=,
// callback=, flags=, description=}; upvalue 1 is the table collecting them.
int register_function(lua_State* L) {
  const int argc = lua_gettop(L);
  if (argc == 1) {
    if (!lua_istable(L, 1))
      return raise_table(L,
                         "ERR calling redis.register_function with a single argument is only applicable to Lua "
                         "table (representing named arguments).");
    read_named_arguments(L);
  } else if (argc == 2) {
    if (!lua_isstring(L, 1)) return raise_table(L, "ERR first argument to redis.register_function must be a string");
    if (!lua_isfunction(L, 2))
      return raise_table(L, "ERR second argument to redis.register_function must be a function");
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_pushnil(L);
    lua_pushnil(L);
  } else {
    return raise_table(L, "ERR wrong number of arguments to redis.register_function");
  }
  // Stack: ... name callback flags description
  size_t len = 0;
  const char* name = lua_tolstring(L, -4, &len);
  for (size_t i = 0; i < len; ++i)
    if (!std::isalnum(static_cast<unsigned char>(name[i])) && name[i] != '_') return raise_table(L, kNameErrorReply);
  if (len == 0) return raise_table(L, kNameErrorReply);
  if (!lua_isnil(L, -2)) {
    if (!lua_istable(L, -2))
      return raise_table(L,
                         "ERR flags argument to redis.register_function must be a table representing function flags");
    for (int i = 1;; ++i) {
      lua_rawgeti(L, -2, i);
      if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        break;
      }
      const char* flag = lua_tostring(L, -1);
      const bool known = flag && (!std::strcmp(flag, "no-writes") || !std::strcmp(flag, "allow-oom") ||
                                  !std::strcmp(flag, "allow-stale") || !std::strcmp(flag, "no-cluster") ||
                                  !std::strcmp(flag, "allow-cross-slot-keys"));
      lua_pop(L, 1);
      if (!known) return raise_table(L, "ERR unknown flag given");
    }
  }
  if (!lua_isnil(L, -1) && !lua_isstring(L, -1))
    return raise_table(L, "ERR description argument given to redis.register_function must be a string");
  lua_pushvalue(L, -4);
  lua_rawget(L, lua_upvalueindex(1));
  if (!lua_isnil(L, -1)) return raise_table(L, "ERR Function already exists in the library");
  lua_pop(L, 1);
  lua_createtable(L, 3, 0);  // {callback, flags, description}
  for (int i = 1; i <= 3; ++i) {
    lua_pushvalue(L, -5 + i);  // callback, flags, description (below the new table)
    lua_rawseti(L, -2, i);
  }
  lua_pushvalue(L, -5);
  lua_insert(L, -2);
  lua_rawset(L, lua_upvalueindex(1));
  return 0;
}

// The instruction limit of a load: a library whose code never ends is stopped.
thread_local uint64_t load_steps = 0;
void load_hook(lua_State* L, lua_Debug*) {
  if (++load_steps * 1000ULL >= kLoadInstructionLimit) luaL_error(L, "FUNCTION LOAD timeout");
}

// Builds the load-time globals: only `redis` with register_function, log and the constants.
void push_load_environment(lua_State* L, int pending) {
  lua_newtable(L);  // E: the library's globals
  lua_newtable(L);  // its metatable
  lua_newtable(L);  // what E shows while loading
  lua_newtable(L);  // the restricted redis table
  lua_pushvalue(L, pending);
  lua_pushcclosure(L, register_function, 1);
  lua_setfield(L, -2, "register_function");
  lua_getglobal(L, "redis");
  for (const char* name : {"log", "LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING", "REDIS_VERSION",
                           "REDIS_VERSION_NUM"}) {
    lua_getfield(L, -1, name);
    lua_setfield(L, -3, name);
  }
  lua_pop(L, 1);
  lua_newtable(L);  // missing fields of the restricted redis raise, as missing globals; it is read-only
  lua_pushcfunction(L, missing);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, readonly);
  lua_setfield(L, -2, "__newindex");
  lua_setmetatable(L, -2);
  lua_setfield(L, -2, "redis");
  lua_newtable(L);
  lua_pushcfunction(L, missing);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, -2);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, readonly);
  lua_setfield(L, -2, "__newindex");
  lua_setmetatable(L, -2);
}

// After the load: E reads the scripts' globals, except KEYS and ARGV (functions get
// them as arguments).
int runtime_index(lua_State* L) {
  const char* name = lua_tostring(L, 2);
  if (name && (!std::strcmp(name, "KEYS") || !std::strcmp(name, "ARGV"))) return missing(L);
  lua_pushvalue(L, 2);
  lua_gettable(L, LUA_GLOBALSINDEX);  // the read-only globals proxy (raises on a missing one)
  return 1;
}

constexpr const char* kWrapperSource = "local cb = ... return function() return cb(KEYS, ARGV) end";

}  // namespace

bool CaseBlindLess::operator()(const std::string& a, const std::string& b) const {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) < std::tolower(static_cast<unsigned char>(y));
  });
}

std::optional<Reply> FunctionEngine::run_body(ScriptEngine& engine, const std::string& body) {
  lua_State* L = engine.lua();
  lua_settop(L, 0);
  lua_newtable(L);  // 1: pending registrations
  engine.set_limits(true);
  int status = luaL_loadbuffer(L, body.data(), body.size(), "@user_function");
  engine.set_limits(false);
  if (status != 0) {
    std::string msg = lua_tostring(L, -1) ? lua_tostring(L, -1) : "error";
    lua_settop(L, 0);
    return Reply::error("ERR Error compiling function: " + msg);
  }
  push_load_environment(L, 1);  // 3: E
  lua_pushvalue(L, 3);
  lua_setfenv(L, 2);
  lua_pushvalue(L, 2);
  load_steps = 0;
  lua_sethook(L, load_hook, LUA_MASKCOUNT, 1000);
  engine.set_limits(true);
  status = lua_pcall(L, 0, 0, 0);
  const bool oom = engine.memory_exceeded();
  engine.set_limits(false);
  lua_sethook(L, nullptr, 0, 0);
  if (status != 0 || oom) {
    std::string msg;
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "err");
      msg = lua_tostring(L, -1) ? lua_tostring(L, -1) : "";
    } else {
      msg = std::string("ERR ") + (lua_tostring(L, -1) ? lua_tostring(L, -1) : "unknown error");
    }
    lua_settop(L, 0);
    if (oom) msg = "ERR the Lua memory limit was exceeded";
    return Reply::error("ERR Error registering functions: " + msg);
  }
  return std::nullopt;
}

std::map<std::string, FunctionEngine::Function> FunctionEngine::registrations(lua_State* L) {
  std::map<std::string, Function> found;
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    Function f;
    f.name = lua_tostring(L, -2);
    lua_rawgeti(L, -1, 2);
    if (lua_istable(L, -1))
      for (int i = 1;; ++i) {
        lua_rawgeti(L, -1, i);
        if (lua_isnil(L, -1)) {
          lua_pop(L, 1);
          break;
        }
        f.flags.emplace_back(lua_tostring(L, -1));
        f.no_writes = f.no_writes || f.flags.back() == "no-writes";
        f.allow_oom = f.allow_oom || f.flags.back() == "allow-oom";
        lua_pop(L, 1);
      }
    lua_pop(L, 1);
    lua_rawgeti(L, -1, 3);
    if (lua_isstring(L, -1)) f.description = lua_tostring(L, -1);
    lua_pop(L, 2);
    found.emplace(f.name, std::move(f));
  }
  return found;
}

std::optional<Reply> FunctionEngine::install(ScriptEngine& engine, Library& library, const std::string& body,
                                             bool replace) {
  if (auto error = run_body(engine, body)) return error;
  lua_State* L = engine.lua();
  std::map<std::string, Function> found = registrations(L);
  if (found.empty()) {
    lua_settop(L, 0);
    return Reply::error("ERR No functions registered");
  }
  for (const auto& [name, f] : found) {
    auto owner = library_of_.find(name);
    if (owner != library_of_.end() && !(replace && owner->second == library.name)) {
      lua_settop(L, 0);
      return Reply::error("ERR Function " + name + " already exists");
    }
  }
  // From now on E reads the scripts' globals.
  lua_getmetatable(L, 3);
  lua_pushcfunction(L, runtime_index);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  if (auto old = libraries_.find(library.name); old != libraries_.end()) {
    for (const Function& f : old->second.functions) {
      engine.unregister_function(f.name);
      library_of_.erase(f.name);
    }
  }
  library.functions.clear();
  for (auto& [name, f] : found) {
    luaL_loadbuffer(L, kWrapperSource, std::strlen(kWrapperSource), "=fcall");
    lua_getfield(L, 1, name.c_str());
    lua_rawgeti(L, -1, 1);
    lua_remove(L, -2);
    lua_call(L, 1, 1);
    engine.register_function(name, ScriptFlags{.shebang = true, .no_writes = f.no_writes, .allow_oom = f.allow_oom});
    library_of_[name] = library.name;
    library.functions.push_back(std::move(f));
  }
  lua_settop(L, 0);
  return std::nullopt;
}

void FunctionEngine::sync(ScriptEngine& engine) {
  if (generation_ == engine.generation()) return;
  generation_ = engine.generation();
  library_of_.clear();
  for (auto& [name, library] : libraries_) {
    const size_t newline = library.code.find('\n');
    install(engine, library, library.code.substr(newline), false);
  }
}

Reply FunctionEngine::load(ExecContext& ctx, const Command& argv) {
  ScriptEngine& engine = ctx.server.script_engine();
  sync(engine);
  // Redis's functionLoadCommand: every argument before the last is an option (REPLACE,
  // as often as given); the last is the code.
  bool replace = false;
  size_t at = 2;
  for (; at + 1 < argv.size(); ++at) {
    if (!equals_lower(argv[at], "replace")) {
      std::string shown = argv[at];  // addReplyErrorFormat turns line ends into spaces
      for (char& c : shown)
        if (c == '\r' || c == '\n') c = ' ';
      return error_reply("ERR Unknown option given: " + shown);
    }
    replace = true;
  }
  const std::string& code = argv[at];
  if (!code.starts_with("#!")) return error_reply("ERR Missing library metadata");
  const size_t newline = code.find('\n');
  const std::string first = code.substr(0, newline);
  std::vector<std::string> words;
  for (size_t i = 0; i < first.size();) {
    size_t end = first.find(' ', i);
    if (end == std::string::npos) end = first.size();
    if (end > i) words.push_back(first.substr(i, end - i));
    i = end + 1;
  }
  if (words.empty() || !equals_lower(std::string_view(words[0]).substr(2), "lua"))  // engines are case-blind
    return error_reply("ERR Engine '" + (words.empty() ? std::string() : words[0].substr(2)) + "' not found");
  std::string name;
  bool named = false;
  for (size_t i = 1; i < words.size(); ++i) {
    if (!words[i].starts_with("name=")) return error_reply("ERR Invalid metadata value given: " + words[i]);
    name = words[i].substr(5);
    named = true;
  }
  if (!named) return error_reply("ERR Library name was not given");
  if (!valid_name(name)) return error_reply(std::string("ERR ") + kNameError);
  if (libraries_.count(name) && !replace) return error_reply("ERR Library '" + name + "' already exists");
  if (newline == std::string::npos) return error_reply("ERR No functions registered");
  Library library{name, code, {}};
  if (auto error = install(engine, library, code.substr(newline), replace)) return *error;
  libraries_[name] = std::move(library);
  return Reply::bulk(name);
}

// Redis functionStatsCommand; while an EVAL runs it answers that EVAL's -BUSY.
Reply FunctionEngine::stats(const ExecContext& ctx) const {
  const RunningScript* running = ctx.server.script_engine().running_script();
  if (running && running->is_eval)
    return error_reply("BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.");
  Reply script = Reply::nil();
  if (running) {
    std::vector<Reply> command;
    if (running->command)
      for (const std::string& word : *running->command) command.push_back(Reply::bulk(word));
    script = Reply::array({Reply::bulk("name"), Reply::bulk(std::string(running->name)), Reply::bulk("command"),
                           Reply::array(std::move(command)), Reply::bulk("duration_ms"),
                           Reply::integer_(std::max<int64_t>(0, ctx.now_ms - running->started_ms))});
  }
  Reply engine = Reply::array({Reply::bulk("libraries_count"), Reply::integer_(static_cast<int64_t>(library_count())),
                               Reply::bulk("functions_count"), Reply::integer_(static_cast<int64_t>(function_count()))});
  return Reply::array({Reply::bulk("running_script"), std::move(script), Reply::bulk("engines"),
                       Reply::array({Reply::bulk("LUA"), std::move(engine)})});
}

Reply FunctionEngine::list(const Command& argv) const {
  bool with_code = false;
  std::optional<std::string> pattern;
  for (size_t i = 2; i < argv.size(); ++i) {
    if (equals_lower(argv[i], "withcode") && !with_code) {
      with_code = true;
    } else if (equals_lower(argv[i], "libraryname") && !pattern) {
      if (i + 1 >= argv.size()) return error_reply("ERR library name argument was not given");
      pattern = argv[++i];
    } else {
      std::string shown = argv[i];  // addReplyErrorFormat turns line ends into spaces
      for (char& c : shown)
        if (c == '\r' || c == '\n') c = ' ';
      return error_reply("ERR Unknown argument " + shown);
    }
  }
  std::vector<Reply> out;
  for (const auto& [name, library] : libraries_) {
    if (pattern && !glob_match(*pattern, name)) continue;
    std::vector<Reply> functions;
    for (const Function& f : library.functions) {
      std::vector<Reply> flags;
      for (const std::string& flag : f.flags) flags.push_back(Reply::status(flag));
      functions.push_back(Reply::array({Reply::bulk("name"), Reply::bulk(f.name), Reply::bulk("description"),
                                        f.description.empty() ? Reply::nil() : Reply::bulk(f.description),
                                        Reply::bulk("flags"), Reply::array(std::move(flags))}));
    }
    std::vector<Reply> entry{Reply::bulk("library_name"), Reply::bulk(name),        Reply::bulk("engine"),
                             Reply::bulk("LUA"),          Reply::bulk("functions"), Reply::array(std::move(functions))};
    if (with_code) {
      entry.push_back(Reply::bulk("library_code"));
      entry.push_back(Reply::bulk(library.code));
    }
    out.push_back(Reply::array(std::move(entry)));
  }
  return Reply::array(std::move(out));
}

Reply FunctionEngine::remove(const std::string& name, ScriptEngine& engine) {
  sync(engine);
  auto it = libraries_.find(name);
  if (it == libraries_.end()) return error_reply("ERR Library not found");
  for (const Function& f : it->second.functions) {
    engine.unregister_function(f.name);
    library_of_.erase(f.name);
  }
  libraries_.erase(it);
  return Reply::ok();
}

void FunctionEngine::flush(ScriptEngine& engine) {
  sync(engine);
  for (const auto& [fn, lib] : library_of_) engine.unregister_function(fn);
  library_of_.clear();
  libraries_.clear();
}

Reply FunctionEngine::call(ExecContext& ctx, const Command& argv, bool read_only) {
  ScriptEngine& engine = ctx.server.script_engine();
  sync(engine);
  const auto function = library_of_.find(argv[1]);
  if (function == library_of_.end()) return error_reply("ERR Function not found");
  int64_t numkeys = 0;
  if (!parse_int64(argv[2], numkeys)) return error_reply("ERR Bad number of keys provided");
  if (numkeys > static_cast<int64_t>(argv.size()) - 3)
    return error_reply("ERR Number of keys can't be greater than number of args");
  if (numkeys < 0) return error_reply("ERR Number of keys can't be negative");
  return engine.eval(ctx, argv, false, read_only, function->first);  // the name as registered
}

// ---- command handlers ---------------------------------------------------------------

Reply cmd_function(ExecContext& ctx, const Command& argv) {
  if (!ctx.server.functions) ctx.server.functions = std::make_unique<FunctionEngine>();
  FunctionEngine& functions = *ctx.server.functions;
  if (equals_lower(argv[1], "load")) return functions.load(ctx, argv);
  if (equals_lower(argv[1], "list")) return functions.list(argv);
  if (equals_lower(argv[1], "delete")) return functions.remove(argv[2], ctx.server.script_engine());
  if (equals_lower(argv[1], "flush")) {
    if (argv.size() > 3)  // Redis's addReplySubcommandSyntaxError
      return error_reply("ERR unknown subcommand or wrong number of arguments for '" + argv[1] +
                         "'. Try FUNCTION HELP.");
    if (argv.size() == 3 && !equals_lower(argv[2], "async") && !equals_lower(argv[2], "sync"))
      return error_reply("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
    functions.flush(ctx.server.script_engine());
    return Reply::ok();
  }
  if (equals_lower(argv[1], "kill")) return ctx.server.script_engine().kill(false);
  if (equals_lower(argv[1], "stats") && argv.size() == 2) return functions.stats(ctx);
  return error_reply("ERR FUNCTION " + argv[1] + " is not modelled by locksim (DUMP and RESTORE need RDB)");
}

Reply cmd_fcall(ExecContext& ctx, const Command& argv) {
  if (!ctx.server.functions) ctx.server.functions = std::make_unique<FunctionEngine>();
  return ctx.server.functions->call(ctx, argv, false);
}

Reply cmd_fcall_ro(ExecContext& ctx, const Command& argv) {
  if (!ctx.server.functions) ctx.server.functions = std::make_unique<FunctionEngine>();
  return ctx.server.functions->call(ctx, argv, true);
}

}  // namespace locksim::redis
