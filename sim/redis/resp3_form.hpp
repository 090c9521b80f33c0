#pragma once
// How a command's reply is typed in RESP3 (Redis 7.0's addReplyMapLen, addReplySetLen,
// addReplyDouble, addReplyVerbatim and the nested pairs of WITHSCORES): the model answers
// every command in RESP2's types; the network front-end writes them in RESP3 by this form,
// and a script that said redis.setresp(3) gets them converted to Lua by it.
#include <cstdint>

#include "locksim/sim/redis/resp.hpp"

namespace locksim::redis {

enum class Resp3Form : uint8_t {
  Plain,          // as RESP2, nulls as '_'
  Map,            // HGETALL, CONFIG GET, HELLO: a flat [k, v, ...] array is a map
  Set,            // SMEMBERS, SINTER, SPOP with a count
  Push,           // SUBSCRIBE's notices
  Verbatim,       // INFO, CLIENT LIST: a bulk is a "txt" verbatim string
  Double,         // ZSCORE, ZINCRBY, ZADD INCR: a bulk score is a double
  Doubles,        // ZMSCORE: each element a double (or null)
  ScorePairs,     // WITHSCORES: [m, s, m, s] becomes [[m, s], [m, s]], scores doubles
  LastDouble,     // ZPOPMIN without a count [m, s], BZPOPMIN [k, m, s]: the last a double
  KeyScorePairs,  // ZMPOP, BZMPOP: [k, [[m, s], ...]] with scores doubles
  Pairs,          // HRANDFIELD WITHVALUES: [f, v, f, v] becomes [[f, v], [f, v]]
};

// The RESP3 form of the reply to argv (whose name may be in any case).
Resp3Form resp3_form(const Command& argv);

}  // namespace locksim::redis
