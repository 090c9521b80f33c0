#pragma once
// A lock variant written as a Lua 5.1 program, run as the client inside the
// simulator (docs/variants.md is the reference). The file defines acquire()
// and release() (fence() and still_held() optionally) and may set `name`,
// `summary`, `reentrant` and `params`; it talks to Redis with call(...), which
// yields to the simulator and resumes when the reply, a timeout or a lost
// connection arrives, in virtual time.
//
// Loading compiles the file once and runs it in a sandbox to read its
// declarations; every client-process incarnation then gets a fresh Lua state
// of its own from the compiled chunk (a crash loses it, as it loses memory).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "locksim/lock/registry.hpp"

namespace locksim::lock {

// Limits that keep a runaway variant a clear error rather than a hang.
// Work inside Lua's C functions (string.rep, pattern matching, table.concat,
// ...) counts as instructions too (sim/redis/lua_budget.hpp).
struct LuaBudget {
  uint64_t instructions_per_call = 2'000'000;    // one entry point or spawned task, start to end
  uint64_t instructions_per_state = 20'000'000;  // one client incarnation
  uint64_t instructions_per_run = 20'000'000;    // every client and incarnation of one simulated run together
  size_t memory_bytes = 8u << 20;                // one client incarnation's Lua heap
  uint32_t tasks = 64;                           // spawned tasks alive at once
  uint32_t spawns_per_state = 10'000;            // tasks spawned by one client incarnation in all
};

struct LuaVariant {
  std::string path;  // as named on the command line: messages and the replay line use it
  std::string name, summary;
  bool reentrant = false;
  LockParams defaults;  // LockParams{} with the file's `params` applied
  // Its deployment (`params = { masters = 3 }`, `replica = true`): 0 / false, the default one.
  uint32_t masters = 0;
  bool replica = false;
  std::vector<VariantParam> own_params;  // declared with { default = ..., min = ..., max = ... }
  bool has_fence = false, has_still_held = false;
  // `claims = { ... }`: the property ids it promises (Algorithm::claims), when declared.
  std::vector<std::string> claims;
  bool claims_declared = false;
  std::string chunk;  // the compiled file (Lua bytecode)
  LuaBudget budget;
  uint64_t serial = 0;  // tells variants apart in the per-thread pool of client states
};

// Each client of a simulation gets its own Lua state. This thread keeps the states
// of finished clients, each put back to exactly its bytes as first built, and hands
// them to the next clients of the same variant (no script can tell). For tests and
// benchmarks: whether to (default yes), how many were reused, and dropping them.
void set_variant_state_reuse(bool on);
size_t variant_states_reused();
void drop_pooled_variant_states();

// Files larger than this are refused.
inline constexpr size_t kMaxVariantBytes = 1u << 20;

// Reads, compiles and runs the file's top level in a sandbox. On failure,
// `error` is "FILE:LINE: message" (or "FILE: message").
std::shared_ptr<const LuaVariant> load_lua_variant(const std::string& path, std::string* error = nullptr);
// The same from text (tests); `path` names it in messages.
std::shared_ptr<const LuaVariant> load_lua_variant_text(const std::string& text, const std::string& path,
                                                        std::string* error = nullptr);

// Joins the registry under the variant's name; fails, naming the file, if
// the name is taken (a built-in, or another file of the same name).
const Algorithm* register_lua_variant(std::shared_ptr<const LuaVariant> variant, std::string* error = nullptr);
// load + register, for `--variant FILE`.
const Algorithm* register_lua_variant_file(const std::string& path, std::string* error = nullptr);

// One client incarnation's lock.
std::unique_ptr<Lock> make_lua_lock(std::shared_ptr<const LuaVariant> variant, const LockParams& params);

}  // namespace locksim::lock
