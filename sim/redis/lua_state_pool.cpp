// This thread's pool of Lua states as built (lua_state_pool.hpp).
#include "locksim/sim/redis/lua_state_pool.hpp"

#include <vector>

#include "locksim/base/assert.hpp"
#include "locksim/sim/redis/lua_runtime.hpp"

namespace locksim::redis {

namespace {

constexpr size_t kPoolMax = 16;  // a simulation has a few Redis nodes; explorers run one at a time per thread

struct Pool {
  std::vector<std::unique_ptr<LuaRuntime>> idle;
  bool reuse = true;
  size_t reused = 0;
  ~Pool();
};

// Counts of reset_lua_state's two ways (trivially destructible: usable at any time).
struct ResetCounts {
  size_t restored = 0;
  size_t rebuilt = 0;
  size_t untouched = 0;
};

// Set when this thread's pool is gone (thread exit): engines destroyed later close their states.
thread_local bool pool_gone = false;
thread_local ResetCounts resets;

Pool& pool() {
  thread_local Pool instance;
  return instance;
}

Pool::~Pool() { pool_gone = true; }

// The state is exactly as built if its image can be written back and lua-cjson's
// memory outside the state is still what the image refers to.
bool restorable(const LuaRuntime& rt) {
  return rt.arena.sealed() && !rt.cjson_instances &&
         rt.arena.unchanged_since_seal(rt.cjson_config, rt.cjson_config_size);
}

}  // namespace

void reset_lua_state(LuaRuntime& rt) {
  if (!rt.touched && rt.arena.sealed()) {
    LOCKSIM_ASSERT(rt.used_bytes == rt.built_bytes && rt.shas.empty(), "an untouched Lua state differs from its image");
    ++resets.untouched;
  } else if (restorable(rt)) {
    rt.arena.restore();
    rt.used_bytes = rt.built_bytes;
    ++resets.restored;
  } else {
    ++resets.rebuilt;
    close_state(rt);
    build_state(rt);
  }
  rt.forget_scripts();
  rt.enforce_memory = rt.memory_exceeded = rt.budget_exceeded = rt.read_only = false;
  rt.gc_useful = true;
  rt.ctx = nullptr;
  rt.instructions = 0;
  rt.keys_filled = rt.argv_filled = 0;  // the tables are empty again
  rt.arrays_as_filled = false;
  rt.keys_shadow.clear();
  rt.argv_shadow.clear();
  rt.touched = false;
}

std::unique_ptr<LuaRuntime> acquire_lua_runtime() {
  if (!pool_gone) {
    Pool& p = pool();
    if (p.reuse && !p.idle.empty()) {
      std::unique_ptr<LuaRuntime> rt = std::move(p.idle.back());
      p.idle.pop_back();
      ++p.reused;
      return rt;
    }
  }
  auto rt = std::make_unique<LuaRuntime>();
  build_state(*rt);
  return rt;
}

void release_lua_runtime(std::unique_ptr<LuaRuntime> rt) {
  if (!rt || pool_gone) return;
  Pool& p = pool();
  if (!p.reuse || p.idle.size() >= kPoolMax) return;
  reset_lua_state(*rt);
  p.idle.push_back(std::move(rt));
}

void set_lua_state_reuse(bool on) {
  if (pool_gone) return;
  pool().reuse = on;
  if (!on) pool().idle.clear();
}

size_t lua_states_reused() { return pool_gone ? 0 : pool().reused; }

size_t lua_states_restored() { return resets.restored; }
size_t lua_states_rebuilt() { return resets.rebuilt; }
size_t lua_states_untouched() { return resets.untouched; }

void drop_pooled_lua_states() {
  if (!pool_gone) pool().idle.clear();
}

}  // namespace locksim::redis
