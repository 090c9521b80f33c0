// The script cache: compiling bodies into the state, finding them for EVAL, EVALSHA
// and FCALL, and SCRIPT LOAD / EXISTS / FLUSH with Redis 7.0.15's replies.
#include "locksim/sim/redis/script_cache.hpp"

#include <cstring>
#include <iterator>
#include <memory>
#include <new>
#include <unordered_map>

#include "locksim/base/assert.hpp"
#include "locksim/sim/redis/arguments.hpp"
#include "locksim/sim/redis/script_globals.hpp"
#include "locksim/sim/redis/script_lua.hpp"
#include "locksim/sim/redis/script_shebang.hpp"
#include "locksim/sim/redis/scripting.hpp"
#include "locksim/sim/redis/sha1.hpp"

namespace locksim::redis {

namespace {

// Puts the compiled function at the top of the stack (popped) into the function cache
// under `sha`: in the registry at a reference of its own (luaL_ref's, reused after an
// unregister), or at the one `sha` already had.
void cache_function(LuaRuntime& rt, const std::string& sha, const ScriptFlags& flags,
                    bool may_change_arrays = true) {
  lua_State* L = rt.L;
  const auto known = rt.compiled.find(sha);
  int function = known != rt.compiled.end() ? known->second.function : LUA_NOREF;
  if (function == LUA_NOREF)
    function = luaL_ref(L, LUA_REGISTRYINDEX);
  else
    lua_rawseti(L, LUA_REGISTRYINDEX, function);
  rt.compiled[sha] = {flags, function, may_change_arrays};
  rt.shas.insert(sha);
  LOCKSIM_ASSERT(rt.shas.size() == rt.compiled.size(), "the compiled scripts and their flags disagree");
}

// Loads `lua_body` (source, or one of parsed_small_body's own chunks) into the state under the
// memory cap; the error reply if it does not compile.
std::optional<Reply> load_into(LuaRuntime& rt, std::string_view lua_body) {
  lua_State* L = rt.L;
  rt.memory_exceeded = false;
  rt.enforce_memory = true;
  const int status = luaL_loadbuffer(L, lua_body.data(), lua_body.size(), "@user_script");
  rt.enforce_memory = false;
  if (status == 0) return std::nullopt;
  std::string message = lua_tostring(L, -1) ? lua_tostring(L, -1) : "unknown error";
  lua_pop(L, 1);
  if (rt.memory_exceeded && rt.gc_useful) {
    lua_gc(L, LUA_GCCOLLECT, 0);
    rt.gc_useful = false;
  }
  return Reply::error(without_newlines("ERR Error compiling script (new function): " + message));
}

// Parsing a body is most of what a new script costs (a lock's script is parsed again
// in every simulation: the state starts each one as built). A small body is parsed once
// per thread, in a scratch state of its own, and kept as its compiled chunk; every state
// that needs it loads that chunk, which is several times cheaper than the parse. A state
// thus gets the same objects for a body whatever this thread compiled before, and
// none of the parser's garbage.
constexpr size_t kSmallBody = 4096;    // as sha_of_body's bound
constexpr size_t kParsedBodies = 256;  // then the cache starts over: at most about 4 MB

struct ParsedBody {
  std::string sha;
  ScriptFlags flags;
  std::string chunk;           // lua_dump of the compiled body, if it compiles
  ChunkWrites writes;          // what its code writes (script_globals.hpp)
  std::optional<Reply> error;  // else why not (the shebang, or the parser's message)
};

int append_chunk(lua_State*, const void* data, size_t size, void* out) {
  static_cast<std::string*>(out)->append(static_cast<const char*>(data), size);
  return 0;
}

// A small body's SHA-1, flags and compiled chunk (or compile error), parsed on first sight.
const ParsedBody& parsed_small_body(std::string_view body, const std::string* known_sha) {
  thread_local std::unordered_map<std::string, ParsedBody> parsed;  // looked up, never iterated
  if (auto it = parsed.find(std::string(body)); it != parsed.end()) return it->second;
  if (parsed.size() >= kParsedBodies) parsed.clear();
  ParsedBody p;
  p.sha = known_sha ? *known_sha : sha1_hex(body);
  std::string lua_body;
  p.error = parse_shebang(body, p.flags, lua_body);
  if (!p.error) {
    // A state of its own for the parse, closed after it: nothing is kept but the chunk.
    std::unique_ptr<lua_State, decltype(&lua_close)> scratch(luaL_newstate(), &lua_close);
    if (!scratch) throw std::bad_alloc();
    lua_State* S = scratch.get();
    if (luaL_loadbuffer(S, lua_body.data(), lua_body.size(), "@user_script") == 0) {
      lua_dump(S, append_chunk, &p.chunk);
      p.writes = chunk_writes(p.chunk);
    } else {
      const char* message = lua_tostring(S, -1);
      p.error = Reply::error(without_newlines("ERR Error compiling script (new function): " +
                                              std::string(message ? message : "unknown error")));
    }
  }
  return parsed.emplace(std::string(body), std::move(p)).first->second;
}

// The function at the top of the stack, which assigns no global, reads the real global
// table directly instead of through its read-only proxy (script_globals.hpp says why).
void read_globals_directly(LuaRuntime& rt) {
  lua_rawgeti(rt.L, LUA_REGISTRYINDEX, rt.globals_ref);
  lua_setfenv(rt.L, -2);
}

// Compiles `body` into the function cache under `sha`; a compile error otherwise.
std::optional<Reply> compile(LuaRuntime& rt, std::string_view body, const std::string& sha) {
  if (!body.empty() && body[0] == LUA_SIGNATURE[0])
    return Reply::error("ERR Error compiling script (new function): user_script: binary chunks are not allowed");
  if (body.size() <= kSmallBody) {
    const ParsedBody& p = parsed_small_body(body, &sha);
    if (p.error) return p.error;
    if (auto error = load_into(rt, p.chunk)) return error;
    if (!p.writes.globals) read_globals_directly(rt);
    cache_function(rt, sha, p.flags, p.writes.fields || p.writes.table_library);
    return std::nullopt;
  }
  ScriptFlags flags;
  std::string lua_body;
  if (auto bad = parse_shebang(body, flags, lua_body)) return bad;
  if (auto error = load_into(rt, lua_body)) return error;
  std::string chunk;
  lua_dump(rt.L, append_chunk, &chunk);
  const ChunkWrites writes = chunk_writes(chunk);
  if (!writes.globals) read_globals_directly(rt);
  cache_function(rt, sha, flags, writes.fields || writes.table_library);
  return std::nullopt;
}

// The entry of sha_of_body for `body`, or null: one of the last few found, else by hash.
const LuaRuntime::KnownEntry* known_body(LuaRuntime& rt, const std::string& body) {
  for (const LuaRuntime::KnownEntry* entry : rt.recent_bodies)
    if (entry && entry->first.size() == body.size() && std::memcmp(entry->first.data(), body.data(), body.size()) == 0)
      return entry;
  const auto it = rt.sha_of_body.find(body);
  if (it == rt.sha_of_body.end()) return nullptr;
  rt.recent_bodies[rt.recent_next] = &*it;
  rt.recent_next = (rt.recent_next + 1) % LuaRuntime::kRecentBodies;
  return &*it;
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
    if (rt.last_by_sha && argv[1] == rt.last_by_sha->first) {  // as sent last time (lower case)
      found = {&rt.last_by_sha->first, rt.last_by_sha->second.flags, rt.last_by_sha->second.function,
               rt.last_by_sha->second.may_change_arrays};
      return std::nullopt;
    }
    // `compiled` holds the keys of `shas`: one lookup, and the sha is the cache's own.
    // A function's wrapper ("fn:<name>") is no script, whatever the length of its name.
    char lower[40];
    std::string_view key;
    const auto it = argv[1].size() == 40 && to_lower(argv[1], lower, sizeof lower, key) && !key.starts_with("fn:")
                        ? rt.compiled.find(key)
                        : rt.compiled.end();
    if (it == rt.compiled.end()) return error_reply("NOSCRIPT No matching script. Please use EVAL.");
    rt.last_by_sha = &*it;
    found = {&it->first, it->second.flags, it->second.function, it->second.may_change_arrays};
    return std::nullopt;
  } else if (const LuaRuntime::KnownEntry* known = known_body(rt, argv[1])) {
    found = {&known->second.sha, known->second.script.flags, known->second.script.function,
             known->second.script.may_change_arrays};
    return std::nullopt;
  } else {
    // A small body's SHA-1 comes with its parse, computed once per thread.
    scratch = argv[1].size() <= kSmallBody ? parsed_small_body(argv[1], nullptr).sha : sha1_hex(argv[1]);
    if (!rt.shas.count(scratch)) {
      if (auto error = compile(rt, argv[1], scratch)) return *error;
    }
    if (rt.sha_of_body.size() < 10'000 && argv[1].size() <= 4096)
      rt.sha_of_body.emplace(argv[1], LuaRuntime::KnownBody{scratch, rt.compiled.at(scratch)});
  }
  const LuaRuntime::Compiled& script = rt.compiled.at(scratch);
  found.flags = script.flags;
  found.function = script.function;
  found.may_change_arrays = script.may_change_arrays;
  return std::nullopt;
}

void ScriptEngine::register_function(const std::string& name, ScriptFlags flags) {
  // The wrapper is at the top of the stack: it joins the compiled scripts as "fn:<name>".
  LuaRuntime& rt = *runtime_;
  rt.touched = true;
  const std::string key = "fn:" + name;
  cache_function(rt, key, flags);
}

void ScriptEngine::unregister_function(const std::string& name) {
  LuaRuntime& rt = *runtime_;
  rt.touched = true;
  const std::string key = "fn:" + name;
  const auto it = rt.compiled.find(key);
  if (it == rt.compiled.end()) return;
  luaL_unref(rt.L, LUA_REGISTRYINDEX, it->second.function);
  if (rt.last_by_sha == &*it) rt.last_by_sha = nullptr;
  rt.shas.erase(key);
  rt.compiled.erase(it);
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
  runtime_->touched = true;
  std::string sha = sha1_hex(body);
  if (!runtime_->shas.count(sha)) {
    if (auto error = compile(*runtime_, body, sha)) return *error;
  }
  return Reply::bulk(sha);
}

}  // namespace locksim::redis
