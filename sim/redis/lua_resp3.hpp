#pragma once
// redis.call's reply to a script that said redis.setresp(3): the command's RESP2-typed
// reply, typed by its RESP3 form, converted as Redis 7.0's redisProtocolToLuaType_*
// convert RESP3 (internal to script_redis_api.cpp).
#include <lua.hpp>

#include <string>

#include "locksim/sim/redis/reply.hpp"
#include "locksim/sim/redis/resp3_form.hpp"

namespace locksim::redis {

// Pushes a status, error, integer or bulk as RESP2 conversion does.
using PushScalar = void (*)(lua_State*, const Reply&);

// Pushes the reply: nulls as nil, maps as {map={k=v}}, sets as {set={m=true}}, doubles
// as {double=n}, verbatim text as {verbatim_string={format="txt", string=s}}.
void push_reply_resp3(lua_State* L, const Reply& reply, Resp3Form form, PushScalar push_scalar);

// What a script's {double=n} answers a RESP2 client: Redis's addReplyDouble ("%.17g",
// "inf", "-inf").
std::string resp2_double_text(double value);

}  // namespace locksim::redis
