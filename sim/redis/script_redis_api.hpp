#pragma once
// The `redis` table scripts see (internal to the script_*.cpp files): redis.call and
// redis.pcall into the model's command table, and the rest of Redis 7.0.15's API.
#include <lua.hpp>

namespace locksim::redis {

// Sets the global `redis` of the state being built (globals: the real global table's index).
void install_redis_table(lua_State* L, int globals);

}  // namespace locksim::redis
