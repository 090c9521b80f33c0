// redis.setresp(3) and the Lua limits Redis 7.0.15 has: every expected reply below is
// what redis-server 7.0.15 answered to the same script over RESP2 (redis-cli).
#include <catch2/catch.hpp>

#include "locksim/sim/redis/sha1.hpp"
#include "model_fixture.hpp"

using namespace locksim::redis;
using namespace locksim::redis::testing;

namespace {
std::string eval_resp3(Model& m, const std::string& script) {
  return to_string(m.server.execute(m.conn, Command{"eval", script, "0"}, m.now));
}

void fill(Model& m) {
  m.run({"hset", "h", "a", "1", "b", "2"});
  m.run({"sadd", "s", "x"});
  m.run({"zadd", "z", "1.5", "m"});
}
}  // namespace

TEST_CASE("redis.setresp(3) converts maps, sets, doubles and verbatim text into tables", "[redis][lua]") {
  Model m;
  fill(m);
  CHECK(
      eval_resp3(m, "redis.setresp(3) local r = redis.call('hgetall','h') return {type(r), type(r.map), r.map.a, r.map.b}") ==
      "[\"table\", \"table\", \"1\", \"2\"]");
  CHECK(eval_resp3(m, "redis.setresp(3) local r = redis.call('smembers','s') return {type(r.set), tostring(r.set.x)}") ==
        "[\"table\", \"true\"]");
  CHECK(eval_resp3(m,
             "redis.setresp(3) local r = redis.call('zscore','z','m') return {type(r), type(r.double), "
             "tostring(r.double)}") == "[\"table\", \"number\", \"1.5\"]");
  CHECK(eval_resp3(m,
             "redis.setresp(3) local r = redis.call('zrange','z',0,-1,'withscores') return {type(r[1]), r[1][1], "
             "type(r[1][2]), tostring(r[1][2].double)}") == "[\"table\", \"m\", \"table\", \"1.5\"]");
  CHECK(eval_resp3(m,
             "redis.setresp(3) local r = redis.call('info','server') return {type(r), type(r.verbatim_string), "
             "r.verbatim_string.format}") == "[\"table\", \"table\", \"txt\"]");
  CHECK(eval_resp3(m, "redis.setresp(3) local r = redis.call('zmscore','z','m','q') return {type(r[1]), type(r[2])}") ==
        "[\"table\", \"nil\"]");
  // The script's own reply goes back to the RESP2 client as RESP2.
  CHECK(eval_resp3(m, "redis.setresp(3) return redis.call('hgetall','h')") == "[\"a\", \"1\", \"b\", \"2\"]");
  CHECK(eval_resp3(m, "redis.setresp(3) return redis.call('smembers','s')") == "[\"x\"]");
  CHECK(eval_resp3(m, "redis.setresp(3) return redis.call('zscore','z','m')") == "\"1.5\"");
  CHECK(eval_resp3(m, "redis.setresp(3) return redis.call('zadd','z','incr',1,'m')") == "\"2.5\"");
  CHECK(eval_resp3(m, "redis.setresp(3) return redis.pcall('hgetall','z')") ==
        "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
}

TEST_CASE("redis.setresp(3) makes nulls nil and lasts until the script ends", "[redis][lua]") {
  Model m;
  fill(m);
  CHECK(eval_resp3(m, "redis.setresp(3) return type(redis.call('get','nokey'))") == "\"nil\"");
  CHECK(eval_resp3(m, "redis.setresp(3) return type(redis.call('lpop','nokey'))") == "\"nil\"");
  CHECK(eval_resp3(m, "redis.setresp(3) return redis.call('mget','h','nokey','z')") == "[]");
  CHECK(eval_resp3(m, "redis.setresp(3) return redis.call('zpopmin','nokey')") == "[]");
  CHECK(eval_resp3(m, "return type(redis.call('get','nokey'))") == "\"boolean\"");
  CHECK(eval_resp3(m, "redis.setresp(3) redis.setresp(2) return type(redis.call('get','nokey'))") == "\"boolean\"");
  // Booleans: RESP3's false reaches a RESP2 client as 0, RESP2's as a null.
  CHECK(eval_resp3(m, "redis.setresp(3) return false") == "(integer) 0");
  CHECK(eval_resp3(m, "redis.setresp(3) return {true,false}") == "[(integer) 1, (integer) 0]");
  CHECK(eval_resp3(m, "redis.setresp('3') return false") == "(integer) 0");
  CHECK(eval_resp3(m, "redis.setresp(2.7) return false") == "(nil)");
  CHECK(eval_resp3(m, "redis.setresp(3) redis.setresp(2) return false") == "(nil)");
  CHECK(eval_resp3(m, "return false") == "(nil)");
  CHECK(eval_resp3(m, "return redis.setresp(3)") == "(nil)");
  const std::string four = "redis.setresp(4)";
  CHECK(eval_resp3(m, four) == "(error) ERR RESP version must be 2 or 3." + suffix(four));
  const std::string none = "redis.setresp()";
  CHECK(eval_resp3(m, none) == "(error) ERR redis.setresp() requires one argument." + suffix(none));
}

TEST_CASE("Scripts return RESP3 typed tables to a RESP2 client as Redis 7.0 does", "[redis][lua]") {
  Model m;
  CHECK(eval_resp3(m, "return {double=3.5}") == "\"3.5\"");
  CHECK(eval_resp3(m, "return {double=0.1}") == "\"0.10000000000000001\"");
  CHECK(eval_resp3(m, "return {double=3}") == "\"3\"");
  CHECK(eval_resp3(m, "return {double=1e300*1e10}") == "\"inf\"");
  CHECK(eval_resp3(m, "return {double=-(1e300*1e10)}") == "\"-inf\"");
  CHECK(eval_resp3(m, "return {double=0/0}") == "\"-nan\"");
  CHECK(eval_resp3(m, "return {double='x'}") == "[]");
  CHECK(eval_resp3(m, "return {set={a=true}}") == "[\"a\"]");
  CHECK(eval_resp3(m, "return {set='x', 5}") == "[(integer) 5]");
  CHECK(eval_resp3(m, "return {big_number='123'}") == "\"123\"");
  CHECK(eval_resp3(m, "return {big_number=5}") == "[]");
  CHECK(eval_resp3(m, "return {verbatim_string={format='txt',string='hi'}}") == "\"hi\"");
  CHECK(eval_resp3(m, "return {verbatim_string='x'}") == "[]");
  CHECK(eval_resp3(m, "return {verbatim_string={string=7}}") == "[]");
  CHECK(eval_resp3(m, "return {map={a=1},err='bad'}") == "(error) bad");
  CHECK(eval_resp3(m, "return {map={a=1},double=2}") == "\"2\"");
  CHECK(eval_resp3(m, "return {ok='x', double=2}") == "x");
  CHECK(eval_resp3(m, "return {double=2, set={q=1}}") == "\"2\"");
  CHECK(eval_resp3(m, "return {big_number='1', set={q=1}}") == "\"1\"");
  CHECK(eval_resp3(m, "return {map='x'}") == "[]");
  CHECK(eval_resp3(m, "return {map={[1]=2,b={1,2}}}") == "[(integer) 1, (integer) 2, \"b\", [(integer) 1, (integer) 2]]");
}
