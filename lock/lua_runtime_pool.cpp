// This thread's pool of Lua-variant client states (lua_runtime.hpp). Building a
// client's sandbox, loading its variant and running the top level costs far more
// than its acquire and release; every client of every simulation needs one. A
// state sealed once built is put back to exactly those bytes when its client
// goes, and serves the next client of the same variant for a memcpy.
#include <algorithm>
#include <memory>
#include <vector>

#include "locksim/lock/lua_runtime.hpp"

namespace locksim::lock {

namespace {

// A check runs its simulations one at a time per thread, each with a few clients.
constexpr size_t kPoolMax = 16;

struct Idle {
  uint64_t variant = 0;  // LuaVariant::serial
  std::unique_ptr<LuaRuntime> runtime;
};

struct Pool {
  std::vector<Idle> idle;  // oldest first
  bool reuse = true;
  size_t reused = 0;
  ~Pool();
};

// Set when this thread's pool is gone (thread exit): states released later are closed.
thread_local bool pool_gone = false;

Pool& pool() {
  thread_local Pool instance;
  return instance;
}

Pool::~Pool() { pool_gone = true; }

void release(uint64_t variant, LuaRuntime* raw) {
  std::unique_ptr<LuaRuntime> runtime(raw);
  if (pool_gone || !runtime->sealed()) return;
  Pool& p = pool();
  if (!p.reuse) return;
  runtime->reset_to_sealed();
  if (p.idle.size() >= kPoolMax) p.idle.erase(p.idle.begin());
  p.idle.push_back({variant, std::move(runtime)});
}

std::unique_ptr<LuaRuntime> take_idle(uint64_t variant) {
  if (pool_gone) return nullptr;
  Pool& p = pool();
  if (!p.reuse) return nullptr;
  auto it = std::find_if(p.idle.rbegin(), p.idle.rend(), [&](const Idle& i) { return i.variant == variant; });
  if (it == p.idle.rend()) return nullptr;
  std::unique_ptr<LuaRuntime> runtime = std::move(it->runtime);
  p.idle.erase(std::next(it).base());
  ++p.reused;
  return runtime;
}

// Sandbox, variant, top level: as a fresh client's state is before its parameters.
std::unique_ptr<LuaRuntime> build(const LuaVariant& variant) {
  auto runtime = std::make_unique<LuaRuntime>(variant.path, variant.budget);
  if (!runtime->ok()) {
    runtime->fail(variant.path + ": cannot create a Lua state");
    return runtime;
  }
  std::string error;
  if (!runtime->load_compiled(variant.chunk, &error) || !runtime->run_top_level(&error)) {
    runtime->fail(error);
    return runtime;
  }
  runtime->seal();
  return runtime;
}

}  // namespace

std::shared_ptr<LuaRuntime> acquire_variant_runtime(const LuaVariant& variant, const LockParams& params) {
  std::unique_ptr<LuaRuntime> runtime = take_idle(variant.serial);
  if (!runtime) runtime = build(variant);
  if (runtime->ok()) {
    // param() sees each of the variant's own parameters: as set, or its default.
    LockParams with_own = params;
    for (const VariantParam& p : variant.own_params) with_own.custom.try_emplace(p.name, p.default_value);
    runtime->set_params(with_own);
  }
  const uint64_t serial = variant.serial;
  return {runtime.release(), [serial](LuaRuntime* raw) { release(serial, raw); }};
}

void set_variant_state_reuse(bool on) {
  if (pool_gone) return;
  pool().reuse = on;
  if (!on) pool().idle.clear();
}

size_t variant_states_reused() { return pool_gone ? 0 : pool().reused; }

void drop_pooled_variant_states() {
  if (!pool_gone) pool().idle.clear();
}

}  // namespace locksim::lock
