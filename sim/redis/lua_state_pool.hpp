#pragma once
// Lua states are reused across simulations: each thread keeps the states of
// finished script engines, each put back to exactly its bytes as built (its sealed
// image, lua_arena.hpp), so a new engine costs a memcpy, not a rebuild. A reused
// state cannot be told from a fresh one by any script. These switches are for
// tests and benchmarks.
#include <cstddef>

namespace locksim::redis {

// Whether this thread's new script engines take pooled states (default: yes).
void set_lua_state_reuse(bool on);
// States handed out from this thread's pool so far.
size_t lua_states_reused();
// States this thread put back to as built by writing their image back, and by
// rebuilding them (a state that could not be restored, lua_runtime.hpp).
size_t lua_states_restored();
size_t lua_states_rebuilt();
// States given back untouched (no script, load or function ran in them): as built
// without writing the image back.
size_t lua_states_untouched();
// Closes every state this thread's pool holds.
void drop_pooled_lua_states();

}  // namespace locksim::redis
