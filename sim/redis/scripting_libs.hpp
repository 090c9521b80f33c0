#pragma once
// The extra Lua libraries Redis 7.0 gives scripts (internal): cjson and bit are
// Debian's lua-cjson and lua-bitop (Lua 5.1 builds, the versions Redis bundles),
// linked in as C modules; struct and cmsgpack are the model's own (lua_struct.cpp,
// lua_cmsgpack.cpp), as Debian packages neither for Lua 5.1 (lua-mpack is another API).
#include <lua.hpp>

namespace locksim::redis {

// Opens the libraries as globals of the state being built (before it is sandboxed).
void open_redis_libraries(lua_State* L);
// Their global names, which the sandbox then makes read-only like `string`.
inline constexpr const char* kRedisLibraryNames[] = {"cjson", "bit", "struct", "cmsgpack"};

}  // namespace locksim::redis
