#pragma once
// The Redis model's Lua state and what the script engine keeps beside it (internal
// to the script_*.cpp files, functions.cpp's hooks and lua_state_pool.cpp).
#include <lua.hpp>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "locksim/sim/redis/lua_arena.hpp"
#include "locksim/sim/redis/lua_budget.hpp"
#include "locksim/sim/redis/script_shebang.hpp"
#include "locksim/sim/redis/server_state.hpp"

namespace locksim::redis {

struct CommandSpec;

// The allocator's user data is the runtime as a LuaMeter (lua_budget.hpp).
struct LuaRuntime final : LuaMeter {
  ~LuaRuntime();
  void charge(lua_State* state, uint64_t cost) override;
  // What charging work told a running script (charge raises it; account only says it).
  enum class Stop { None, Budget, Killed };
  // Adds `cost` to the running script as charge does, without raising: the caller
  // raises what it answers with raise_stop once no C++ object of its own is alive.
  Stop account(lua_State* state, uint64_t cost);
  [[noreturn]] void raise_stop(lua_State* state, Stop stop);
  size_t memory_cap() const override { return options.lua_memory_limit_bytes; }
  int raise_out_of_memory(lua_State* state) override;

  ServerOptions options;
  lua_State* L = nullptr;
  LuaArena arena;  // the state's memory
  // Whether Lua may have run in the state since it was built or last restored: a
  // state no script, load or function touched is still its image, and is given back
  // to the pool without writing the image again (lua_state_pool.cpp).
  bool touched = false;
  size_t used_bytes = 0;
  size_t built_bytes = 0;  // used_bytes of the state as built
  bool enforce_memory = false;
  bool memory_exceeded = false;
  uint64_t instructions = 0;      // by the running script
  uint64_t run_instructions = 0;  // by every script since the server started
  int hook_step = 1000;
  bool budget_exceeded = false;
  // The running script as its host sees it (script_host.hpp): SCRIPT KILL sets killed,
  // which raises at every instruction from then on, as the budget does.
  RunningScript running;
  bool killed = false;
  uint64_t host_due = 0;  // `instructions` at which the host hears from the script next
  // Whether a full collection could free anything: not after one, until a script
  // runs again. A flood of SCRIPT LOADs into a full cache then fails fast.
  bool gc_useful = true;
  ExecContext* ctx = nullptr;                   // the EVAL being run
  // redis.call's argument vector, kept across calls so a call allocates nothing for it
  // (script_redis_api.cpp); `call_args_busy` while a command uses it.
  Command call_args;
  bool call_args_busy = false;
  // The commands redis.call named last, as the script spelled them, with their entries in
  // the (constant) command table: a script calls the same few, and comparing a short
  // name costs less than looking it up.
  struct NamedCommand {
    std::string name;
    const CommandSpec* spec = nullptr;
  };
  NamedCommand called[2];
  size_t called_next = 0;
  std::set<std::string> shas;                   // scripts compiled into this state
  // A compiled script: its shebang flags, and its function's reference in the registry
  // (luaL_ref's: EVAL finds the function by it, not by pushing the SHA-1).
  struct Compiled {
    ScriptFlags flags;
    int function = LUA_NOREF;
    // Its code may change KEYS and ARGV unnoted: a SETTABLE, or a read of the global
    // `table` or `_G` (script_globals.hpp).
    bool may_change_arrays = true;
  };
  // sha -> its script: the same keys as `shas` (EVALSHA finds both in one lookup).
  std::map<std::string, Compiled, std::less<>> compiled;
  using CompiledEntry = std::map<std::string, Compiled, std::less<>>::value_type;
  // The entry the last EVALSHA named, found again by comparing its SHA-1 as sent
  // (a lock sends the same few scripts over and over). Null when none.
  const CompiledEntry* last_by_sha = nullptr;
  bool read_only = false;                       // the running script may not write (EVAL_RO, flags=no-writes)
  bool allow_oom = false;                       // flags=allow-oom: its writes pass over maxmemory
  int resp = 2;                                 // redis.setresp: 2 at each run's start, as in Redis
  // EVAL bodies already hashed, with their flags: finding one is much cheaper than
  // SHA-1 (lookup only), and its flags come with it.
  struct KnownBody {
    std::string sha;
    Compiled script;
  };
  std::unordered_map<std::string, KnownBody> sha_of_body;
  // The few bodies EVAL'd last, found again by length and memcmp before hashing the
  // body for sha_of_body (a lock's acquire script is about a kilobyte): entries of
  // sha_of_body, whose nodes stay put until it is cleared.
  using KnownEntry = std::pair<const std::string, KnownBody>;
  static constexpr size_t kRecentBodies = 4;
  const KnownEntry* recent_bodies[kRecentBodies] = {};
  size_t recent_next = 0;
  // Forgets every compiled script (the state that held them is closed or restored).
  void forget_scripts() {
    shas.clear();
    compiled.clear();
    last_by_sha = nullptr;
    sha_of_body.clear();
    std::fill(std::begin(recent_bodies), std::end(recent_bodies), nullptr);
    recent_next = 0;
  }
  int globals_ref = LUA_NOREF;    // the real global table behind the read-only proxy
  // The KEYS and ARGV tables, made with the state and refilled by each EVAL (script_run.cpp).
  int keys_ref = LUA_NOREF;
  int argv_ref = LUA_NOREF;
  size_t keys_filled = 0;  // how many elements the last EVAL put in each (0 as built)
  size_t argv_filled = 0;
  // A function (FCALL) got tables of its own as KEYS and ARGV: a library may keep them
  // (an upvalue), so they are never refilled; the next EVAL puts the refilled ones back.
  bool script_arrays_displaced = false;
  // KEYS and ARGV hold exactly what the last fill put there (the shadows below say what),
  // so the next fill need not search or read them: the last Lua run was an EVAL that ended
  // well, of a script that cannot change them unnoted (Compiled::may_change_arrays), and
  // it called nothing that writes a table it is given (rawset, setmetatable, table.insert,
  // the error handler) or runs code not scanned (loadstring, load): each of those clears
  // it (note_table_write), as does any other run.
  bool arrays_as_filled = false;
  // What the last fill put in KEYS and ARGV, element by element; an element too long to
  // copy (kShadowedBytes) is not known here, and is read from the table when needed.
  static constexpr size_t kShadowedBytes = 256;
  std::vector<std::optional<std::string>> keys_shadow, argv_shadow;
  int handler_ref = LUA_NOREF;    // __redis__err__handler
  int proxies_ref = LUA_NOREF;    // read-only proxy -> its backing table (weak keys)
  // lua-cjson keeps its encode buffer in malloc'd memory outside the state, owned by
  // its config userdata (freed by __gc): a state whose config changed, or that made
  // more configs (cjson.new), is closed and rebuilt instead of restored.
  const void* cjson_config = nullptr;
  size_t cjson_config_size = 0;
  bool cjson_instances = false;
  // math.random's generator (Redis's rand48): 7.0 starts it once, at rand48's
  // default state, and carries it on across scripts (and SCRIPT FLUSH); never the
  // process-wide rand() that Lua's own uses.
  static constexpr uint64_t kRand48Start = 0x1234ABCD330EULL;
  uint64_t rand48 = kRand48Start;
};

// Builds the sandboxed state Redis 7.0 gives scripts (in the arena's region, sealed
// when it fits), and closes it.
void build_state(LuaRuntime& rt);
void close_state(LuaRuntime& rt);

// A runtime whose state is exactly as built, from this thread's pool when it has one
// (lua_state_pool.cpp); the server-lifetime fields (options, rand48, counters) are the caller's.
std::unique_ptr<LuaRuntime> acquire_lua_runtime();
// Gives a runtime back to this thread's pool (reset to as built), or closes it.
void release_lua_runtime(std::unique_ptr<LuaRuntime> rt);
// Puts the state back to as built: the image written back, or else closed and rebuilt.
// What the engine keeps about compiled scripts goes too; rand48 and the counters stay.
void reset_lua_state(LuaRuntime& rt);

}  // namespace locksim::redis
