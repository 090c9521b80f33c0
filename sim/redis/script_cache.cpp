// The script cache: compiling bodies into the state, finding them for EVAL, EVALSHA
// and FCALL, and SCRIPT LOAD / EXISTS / FLUSH with Redis 7.0.15's replies.
#include "locksim/sim/redis/script_cache.hpp"

#include <iterator>

#include "locksim/sim/redis/arguments.hpp"
#include "locksim/sim/redis/script_lua.hpp"
#include "locksim/sim/redis/script_shebang.hpp"
#include "locksim/sim/redis/scripting.hpp"
#include "locksim/sim/redis/sha1.hpp"

namespace locksim::redis {

namespace {

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

}  // namespace

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

}  // namespace locksim::redis
