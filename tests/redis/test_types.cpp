// Lists, sets, sorted sets, databases, pub/sub and blocking pops of the model.
#include <catch2/catch.hpp>

#include "model_fixture.hpp"

using namespace locksim::redis;
using namespace locksim::redis::testing;

TEST_CASE("lists: push, pop with count, range, LPOS, LINSERT, LMOVE and their errors") {
  Model m;
  CHECK(m.text({"rpush", "l", "a", "b", "c", "a"}) == "(integer) 4");
  CHECK(m.text({"lrange", "l", "0", "-1"}) == "[\"a\", \"b\", \"c\", \"a\"]");
  CHECK(m.text({"lpos", "l", "a", "rank", "-1"}) == "(integer) 3");
  CHECK(m.text({"lpos", "l", "a", "count", "0"}) == "[(integer) 0, (integer) 3]");
  CHECK(m.text({"lpos", "l", "a", "rank", "0"}).find("RANK can't be zero") != std::string::npos);
  CHECK(m.text({"linsert", "l", "before", "c", "x"}) == "(integer) 5");
  CHECK(m.text({"linsert", "l", "before", "zz", "x"}) == "(integer) -1");
  CHECK(m.text({"lpop", "l", "2"}) == "[\"a\", \"b\"]");
  CHECK(m.text({"lpop", "l", "-1"}) == "(error) ERR value is out of range, must be positive");
  CHECK(m.text({"lmove", "l", "m", "left", "right"}) == "\"x\"");
  CHECK(m.text({"lset", "nokey", "0", "v"}) == "(error) ERR no such key");
  CHECK(m.text({"object", "encoding", "l"}) == "\"quicklist\"");
  CHECK(m.text({"rpop", "l", "5"}) == "[\"a\", \"c\"]");
  CHECK(m.text({"exists", "l"}) == "(integer) 0");
  CHECK(m.text({"set", "s", "v"}) == "OK");
  CHECK(m.text({"lpush", "s", "a"}) == "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
}

TEST_CASE("sets and sorted sets: encodings, ranges, options") {
  Model m;
  CHECK(m.text({"sadd", "s", "3", "1", "2"}) == "(integer) 3");
  CHECK(m.text({"smembers", "s"}) == "[\"1\", \"2\", \"3\"]");
  CHECK(m.text({"object", "encoding", "s"}) == "\"intset\"");
  CHECK(m.text({"sadd", "s", "x"}) == "(integer) 1");
  CHECK(m.text({"object", "encoding", "s"}) == "\"hashtable\"");
  CHECK(m.text({"sinterstore", "d", "s", "nokey"}) == "(integer) 0");
  CHECK(m.text({"zadd", "z", "1", "a", "2", "b", "3", "c"}) == "(integer) 3");
  CHECK(m.text({"zadd", "z", "nx", "xx", "1", "a"}) ==
        "(error) ERR XX and NX options at the same time are not compatible");
  CHECK(m.text({"zadd", "z", "gt", "ch", "0", "a", "5", "b"}) == "(integer) 1");
  CHECK(m.text({"zrange", "z", "(1", "+inf", "byscore", "withscores"}) == "[\"c\", \"3\", \"b\", \"5\"]");
  CHECK(m.text({"zrange", "z", "+inf", "-inf", "byscore", "rev", "limit", "0", "1"}) == "[\"b\"]");
  CHECK(m.text({"zrank", "z", "b"}) == "(integer) 2");
  CHECK(m.text({"zcount", "z", "(1", "5"}) == "(integer) 2");
  CHECK(m.text({"zincrby", "z", "0.1", "a"}) == "\"1.1000000000000001\"");
  CHECK(m.text({"zpopmax", "z"}) == "[\"b\", \"5\"]");
  CHECK(m.text({"zrange", "z", "0", "-1", "bylex", "withscores"}) ==
        "(error) ERR syntax error, WITHSCORES not supported in combination with BYLEX");
  CHECK(m.text({"object", "encoding", "z"}) == "\"listpack\"");
}

TEST_CASE("a big hash is a hash table with O(1) fields, small values keep insertion order") {
  Model m;
  Command hset{"hset", "h"};
  for (int i = 0; i < 100000; ++i) {
    hset.push_back("f" + std::to_string(i));
    hset.push_back("v");
  }
  CHECK(to_string(m.server.execute(m.conn, hset, m.now)) == "(integer) 100000");
  CHECK(m.text({"object", "encoding", "h"}) == "\"hashtable\"");
  CHECK(m.text({"hdel", "h", "f0", "f99999"}) == "(integer) 2");
  CHECK(m.text({"hlen", "h"}) == "(integer) 99998");
  CHECK(m.text({"hget", "h", "f5"}) == "\"v\"");
  CHECK(m.text({"hset", "small", "b", "1", "a", "2"}) == "(integer) 2");
  CHECK(m.text({"hkeys", "small"}) == "[\"b\", \"a\"]");
  CHECK(m.text({"object", "encoding", "small"}) == "\"listpack\"");
}

TEST_CASE("SELECT, MOVE, SWAPDB, COPY, RENAME") {
  Model m;
  CHECK(m.text({"set", "k", "v"}) == "OK");
  CHECK(m.text({"select", "16"}) == "(error) ERR DB index is out of range");
  CHECK(m.text({"move", "k", "1"}) == "(integer) 1");
  CHECK(m.text({"exists", "k"}) == "(integer) 0");
  CHECK(m.text({"select", "1"}) == "OK");
  CHECK(m.text({"get", "k"}) == "\"v\"");
  CHECK(m.text({"copy", "k", "k2", "db", "0"}) == "(integer) 1");
  CHECK(m.text({"swapdb", "0", "1"}) == "OK");
  CHECK(m.text({"get", "k2"}) == "\"v\"");
  CHECK(m.text({"rename", "k2", "k3"}) == "OK");
  CHECK(m.text({"rename", "nokey", "k3"}) == "(error) ERR no such key");
  CHECK(m.text({"dbsize"}) == "(integer) 1");
}

TEST_CASE("pub/sub: messages go to the subscribers' outboxes, the subscribed context refuses other commands") {
  Model m;
  const ConnectionId sub = m.server.connect();
  std::vector<ConnectionId> notified;
  m.server.set_push_listener([&](ConnectionId id) { notified.push_back(id); });
  CHECK(to_string(m.run_on(sub, {"subscribe", "a", "b"})) == "[\"subscribe\", \"a\", (integer) 1]");
  CHECK(to_string(m.server.take_pushed(sub).at(0)) == "[\"subscribe\", \"b\", (integer) 2]");
  CHECK(to_string(m.run_on(sub, {"psubscribe", "a*"})) == "[\"psubscribe\", \"a*\", (integer) 3]");
  CHECK(to_string(m.run_on(sub, {"get", "x"})).find("only (P|S)SUBSCRIBE") != std::string::npos);
  CHECK(m.text({"publish", "a", "hello"}) == "(integer) 2");
  const auto pushed = m.server.take_pushed(sub);
  REQUIRE(pushed.size() == 2);
  CHECK(to_string(pushed[0]) == "[\"message\", \"a\", \"hello\"]");
  CHECK(to_string(pushed[1]) == "[\"pmessage\", \"a*\", \"a\", \"hello\"]");
  CHECK(m.text({"pubsub", "numsub", "a", "z"}) == "[\"a\", (integer) 1, \"z\", (integer) 0]");
  m.server.disconnect(sub);  // lost with the connection
  CHECK(m.text({"publish", "a", "again"}) == "(integer) 0");
  CHECK(!notified.empty());
}

TEST_CASE("blocking pops wait for a push or time out on the server clock") {
  Model m;
  const ConnectionId waiter = m.server.connect();
  CHECK(m.run_on(waiter, {"blpop", "q", "1.5"}).is_blocked());
  CHECK(m.server.is_blocked(waiter));
  CHECK(m.server.next_timeout() == m.now + 1500);
  CHECK(m.text({"rpush", "q", "job"}) == "(integer) 1");
  CHECK(!m.server.is_blocked(waiter));
  CHECK(to_string(m.server.take_pushed(waiter).at(0)) == "[\"q\", \"job\"]");
  CHECK(m.text({"exists", "q"}) == "(integer) 0");
  CHECK(m.run_on(waiter, {"bzpopmin", "z", "1"}).is_blocked());
  m.server.advance(m.now + 1000);  // the deadline itself is not past yet
  CHECK(m.server.is_blocked(waiter));
  m.server.advance(m.now + 1001);
  CHECK(to_string(m.server.take_pushed(waiter).at(0)) == "(nil array)");
  CHECK(m.text({"blpop", "q", "-1"}) == "(error) ERR timeout is negative");
  // Seconds become milliseconds rounded up, as Redis's ceill: 0.001 s waits 1 ms, not forever.
  CHECK(m.run_on(waiter, {"blpop", "q", "0.001"}).is_blocked());
  CHECK(m.server.next_timeout() == m.now + 1);
  CHECK(m.server.take_pushed(waiter).empty());
  m.server.advance(m.now + 2);
  CHECK(to_string(m.server.take_pushed(waiter).at(0)) == "(nil array)");
  CHECK(m.text({"multi"}) == "OK");
  CHECK(m.text({"blpop", "q", "0"}) == "QUEUED");
  CHECK(m.text({"exec"}) == "[(nil array)]");  // never blocks inside a transaction
}

TEST_CASE("active expiry removes expired keys on the server clock unless turned off") {
  Model m;
  CHECK(m.text({"set", "k", "v", "px", "100"}) == "OK");
  CHECK(m.text({"debug", "set-active-expire", "0"}) == "OK");
  m.server.advance(m.now + 500);
  CHECK(m.server.dbsize(m.now + 500) == 0);  // logically gone
  CHECK(m.text({"debug", "set-active-expire", "1"}) == "OK");
  m.server.advance(m.now + 600);
  m.now += 600;
  CHECK(m.run({"info", "keyspace"}).str == "# Keyspace\r\n");
}

TEST_CASE("string encodings follow Redis: int, embstr, raw after an in-place edit, int again after INCR") {
  Model m;
  CHECK(m.text({"set", "k", "-1"}) == "OK");
  CHECK(m.text({"object", "encoding", "k"}) == "\"int\"");
  CHECK(m.text({"object", "refcount", "k"}) == "(integer) 1");
  CHECK(m.text({"append", "k", "0"}) == "(integer) 3");
  CHECK(m.text({"object", "encoding", "k"}) == "\"raw\"");
  CHECK(m.text({"incr", "k"}) == "(integer) -9");
  CHECK(m.text({"object", "encoding", "k"}) == "\"int\"");
  CHECK(m.text({"set", "k", std::string(45, 'x')}) == "OK");
  CHECK(m.text({"object", "encoding", "k"}) == "\"raw\"");
  CHECK(m.text({"set", "k", "7"}) == "OK");
  CHECK(m.text({"object", "refcount", "k"}) == "(integer) 2147483647");  // a shared integer
}

TEST_CASE("a key made ready but no longer of the waited type wakes nobody (LPUSH, DEL, SET in one transaction)") {
  Model m;
  const ConnectionId waiter = m.server.connect();
  CHECK(m.run_on(waiter, {"blpop", "list", "0"}).is_blocked());
  CHECK(m.text({"multi"}) == "OK");
  CHECK(m.text({"lpush", "list", "a"}) == "QUEUED");
  CHECK(m.text({"del", "list"}) == "QUEUED");
  CHECK(m.text({"set", "list", "foo"}) == "QUEUED");
  CHECK(m.text({"exec"}) == "[(integer) 1, (integer) 1, OK]");
  CHECK(m.server.is_blocked(waiter));  // a string at the key: still waiting, no WRONGTYPE
  CHECK(m.server.take_pushed(waiter).empty());
  CHECK(m.text({"del", "list"}) == "(integer) 1");
  CHECK(m.text({"lpush", "list", "b"}) == "(integer) 1");
  CHECK(to_string(m.server.take_pushed(waiter).at(0)) == "[\"list\", \"b\"]");
  // A sorted-set waiter is not served by a list at its key, nor a list waiter by a sorted set.
  CHECK(m.run_on(waiter, {"bzpopmin", "k", "0"}).is_blocked());
  CHECK(m.text({"multi"}) == "OK");
  CHECK(m.text({"zadd", "k", "1", "m"}) == "QUEUED");
  CHECK(m.text({"del", "k"}) == "QUEUED");
  CHECK(m.text({"rpush", "k", "x"}) == "QUEUED");
  CHECK(m.text({"exec"}) == "[(integer) 1, (integer) 1, (integer) 1]");
  CHECK(m.server.is_blocked(waiter));
  CHECK(m.text({"del", "k"}) == "(integer) 1");
  CHECK(m.text({"zadd", "k", "2", "n"}) == "(integer) 1");
  CHECK(to_string(m.server.take_pushed(waiter).at(0)) == "[\"k\", \"n\", \"2\"]");
}

TEST_CASE("SINTERCARD and ZINTERCARD refuse a LIMIT that is negative or not a number with Redis's one message") {
  Model m;
  m.run({"sadd", "s", "a"});
  CHECK(m.text({"sintercard", "1", "s", "limit", "-1"}) == "(error) ERR LIMIT can't be negative");
  CHECK(m.text({"sintercard", "1", "s", "limit", "a"}) == "(error) ERR LIMIT can't be negative");
  CHECK(m.text({"zintercard", "1", "s", "limit", "a"}) == "(error) ERR LIMIT can't be negative");
  CHECK(m.text({"sintercard", "1", "s", "limit", "0"}) == "(integer) 1");
}

TEST_CASE("CLIENT UNBLOCK answers a blocked client's timeout reply or an UNBLOCKED error at once") {
  Model m;
  const ConnectionId waiter = m.server.connect();
  const std::string id = std::to_string(waiter);
  CHECK(m.run_on(waiter, {"blpop", "l", "0"}).is_blocked());
  CHECK(m.text({"client", "unblock", id}) == "(integer) 1");
  CHECK(!m.server.is_blocked(waiter));
  CHECK(to_string(m.server.take_pushed(waiter).at(0)) == "(nil array)");
  CHECK(m.run_on(waiter, {"blmpop", "0", "1", "l", "right"}).is_blocked());
  CHECK(m.text({"client", "unblock", id, "TIMEOUT"}) == "(integer) 1");
  CHECK(to_string(m.server.take_pushed(waiter).at(0)) == "(nil array)");
  CHECK(m.run_on(waiter, {"bzpopmin", "z", "0"}).is_blocked());
  CHECK(m.text({"client", "unblock", id, "error"}) == "(integer) 1");
  CHECK(to_string(m.server.take_pushed(waiter).at(0)) == "(error) UNBLOCKED client unblocked via CLIENT UNBLOCK");
  CHECK(m.text({"client", "unblock", id}) == "(integer) 0");  // not blocked any more
  CHECK(m.text({"client", "unblock", "999"}) == "(integer) 0");
  CHECK(m.text({"client", "unblock", "asd"}) == "(error) ERR value is not an integer or out of range");
  CHECK(m.text({"client", "unblock", id, "later"}) == "(error) ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
  // Still usable: the next push serves its next blocked pop.
  CHECK(m.run_on(waiter, {"blpop", "l", "0"}).is_blocked());
  CHECK(m.text({"rpush", "l", "x"}) == "(integer) 1");
  CHECK(to_string(m.server.take_pushed(waiter).at(0)) == "[\"l\", \"x\"]");
}
