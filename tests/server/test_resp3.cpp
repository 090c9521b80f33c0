// RESP3 types by command, byte for byte as a redis-server 7.0.15 writes them (each
// expectation below was read from one): scores as doubles, WITHSCORES as pairs, sets, maps,
// verbatim INFO, EXEC's replies each typed by its command, a blocked BZPOPMIN's late reply.
#include <catch2/catch.hpp>

#include "raw_client.hpp"
#include "resp_checks.hpp"
#include "server_fixture.hpp"

using namespace locksim::server;
using namespace locksim::server::testing;

TEST_CASE("RESP3: sorted-set scores are doubles, WITHSCORES and counted pops are pairs", "[server]") {
  RunningServer s;
  RawClient c(s.port());
  hello3(c);
  check(c, {"ZADD", "z", "1", "a", "2.5", "b"}, ":2\r\n");
  check(c, {"ZSCORE", "z", "a"}, ",1\r\n");
  check(c, {"ZMSCORE", "z", "a", "x"}, "*2\r\n,1\r\n_\r\n");
  check(c, {"ZRANGE", "z", "0", "-1", "WITHSCORES"}, "*2\r\n*2\r\n$1\r\na\r\n,1\r\n*2\r\n$1\r\nb\r\n,2.5\r\n");
  check(c, {"ZRANGE", "z", "0", "-1"}, "*2\r\n$1\r\na\r\n$1\r\nb\r\n");
  check(c, {"ZPOPMIN", "z"}, "*2\r\n$1\r\na\r\n,1\r\n");
  check(c, {"ZADD", "z", "INCR", "1", "b"}, ",3.5\r\n");
  check(c, {"ZADD", "z", "XX", "INCR", "1", "nomember"}, "_\r\n");
  check(c, {"ZINCRBY", "z", "1", "b"}, ",4.5\r\n");
  check(c, {"ZPOPMAX", "z", "2"}, "*1\r\n*2\r\n$1\r\nb\r\n,4.5\r\n");
  check(c, {"ZPOPMIN", "nokey"}, "*0\r\n");
  // The same in RESP2: bulk scores, flat arrays.
  c.send("HELLO 2\r\n");
  CHECK(c.read(4096, 200).starts_with("*14\r\n"));
  check(c, {"ZADD", "z", "1", "a"}, ":1\r\n");
  check(c, {"ZRANGE", "z", "0", "-1", "WITHSCORES"}, "*2\r\n$1\r\na\r\n$1\r\n1\r\n");
}

TEST_CASE("RESP3: sets, maps, field-value pairs and verbatim text", "[server]") {
  RunningServer s;
  RawClient c(s.port());
  hello3(c);
  check(c, {"SADD", "s", "x"}, ":1\r\n");
  check(c, {"SMEMBERS", "s"}, "~1\r\n$1\r\nx\r\n");
  check(c, {"SPOP", "s", "1"}, "~1\r\n$1\r\nx\r\n");
  check(c, {"HSET", "h", "f", "v"}, ":1\r\n");
  check(c, {"HRANDFIELD", "h", "1", "WITHVALUES"}, "*1\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
  check(c, {"HGETALL", "h"}, "%1\r\n$1\r\nf\r\n$1\r\nv\r\n");
  check(c, {"CONFIG", "GET", "maxmemory-policy"}, "%1\r\n$16\r\nmaxmemory-policy\r\n$10\r\nnoeviction\r\n");
  c.send(resp({"INFO", "server"}));
  CHECK(c.read(4096, 200).find("\r\ntxt:# Server\r\n") != std::string::npos);
}

TEST_CASE("RESP3: EXEC types each reply as the command it answers", "[server]") {
  RunningServer s;
  RawClient c(s.port());
  hello3(c);
  check(c, {"HSET", "h", "f", "v"}, ":1\r\n");
  check(c, {"MULTI"}, "+OK\r\n");
  check(c, {"ZADD", "z", "1", "a"}, "+QUEUED\r\n");
  check(c, {"ZSCORE", "z", "a"}, "+QUEUED\r\n");
  check(c, {"HGETALL", "h"}, "+QUEUED\r\n");
  check(c, {"EXEC"}, "*3\r\n:1\r\n,1\r\n%1\r\n$1\r\nf\r\n$1\r\nv\r\n");
  // A discarded queue is forgotten: the next EXEC types its own commands.
  check(c, {"MULTI"}, "+OK\r\n");
  check(c, {"HGETALL", "h"}, "+QUEUED\r\n");
  check(c, {"DISCARD"}, "+OK\r\n");
  check(c, {"MULTI"}, "+OK\r\n");
  check(c, {"ZSCORE", "z", "a"}, "+QUEUED\r\n");
  check(c, {"EXEC"}, "*1\r\n,1\r\n");
}

TEST_CASE("RESP3: a blocked BZPOPMIN's late reply has a double score", "[server]") {
  RunningServer s;
  RawClient waiter(s.port());
  RawClient pusher(s.port());
  hello3(waiter);
  waiter.send(resp({"BZPOPMIN", "z", "0"}));
  CHECK(waiter.read(1, 100).empty());
  check(pusher, {"ZADD", "z", "2", "m"}, ":1\r\n");
  const std::string late = "*3\r\n$1\r\nz\r\n$1\r\nm\r\n,2\r\n";
  CHECK(waiter.read(late.size()) == late);
}
