#include <catch2/catch.hpp>

#include "model_fixture.hpp"

using locksim::redis::testing::Model;

TEST_CASE("DEL UNLINK EXISTS TYPE") {
  Model m;
  m.run({"set", "a", "1"});
  m.run({"set", "b", "2"});
  m.run({"hset", "h", "f", "v"});
  CHECK(m.text({"exists", "a", "a", "none"}) == "(integer) 2");
  CHECK(m.text({"type", "a"}) == "string");
  CHECK(m.text({"type", "h"}) == "hash");
  CHECK(m.text({"type", "none"}) == "none");
  CHECK(m.text({"del", "a", "none", "a"}) == "(integer) 1");
  CHECK(m.text({"unlink", "b", "h"}) == "(integer) 2");
  CHECK(m.text({"del"}) == "(error) ERR wrong number of arguments for 'del' command");
  CHECK(m.text({"exists"}) == "(error) ERR wrong number of arguments for 'exists' command");
}

TEST_CASE("EXPIRE family with NX XX GT LT") {
  Model m;
  CHECK(m.text({"expire", "k", "10"}) == "(integer) 0");
  m.run({"set", "k", "v"});
  CHECK(m.text({"expire", "k", "100", "gt"}) == "(integer) 0");  // no TTL counts as infinite
  CHECK(m.text({"expire", "k", "100", "xx"}) == "(integer) 0");
  CHECK(m.text({"expire", "k", "100", "lt"}) == "(integer) 1");
  CHECK(m.text({"expire", "k", "200", "nx"}) == "(integer) 0");
  CHECK(m.text({"expire", "k", "200", "gt"}) == "(integer) 1");
  CHECK(m.text({"expire", "k", "150", "gt"}) == "(integer) 0");
  CHECK(m.text({"expire", "k", "50", "LT"}) == "(integer) 1");
  CHECK(m.text({"expire", "k", "40", "xx"}) == "(integer) 1");
  CHECK(m.text({"ttl", "k"}) == "(integer) 40");
  CHECK(m.text({"pexpire", "k", "1234"}) == "(integer) 1");
  CHECK(m.text({"pttl", "k"}) == "(integer) 1234");
  CHECK(m.text({"expireat", "k", std::to_string(m.now / 1000 + 100)}) == "(integer) 1");
  CHECK(m.text({"pttl", "k"}) == "(integer) 100000");
  CHECK(m.text({"pexpireat", "k", std::to_string(m.now + 5)}) == "(integer) 1");
  CHECK(m.text({"pexpiretime", "k"}) == "(integer) " + std::to_string(m.now + 5));
  CHECK(m.text({"expiretime", "k"}) == "(integer) " + std::to_string((m.now + 5 + 500) / 1000));
  CHECK(m.text({"persist", "k"}) == "(integer) 1");
  CHECK(m.text({"persist", "k"}) == "(integer) 0");
  CHECK(m.text({"persist", "none"}) == "(integer) 0");
  CHECK(m.text({"expiretime", "k"}) == "(integer) -1");
  CHECK(m.text({"pexpiretime", "none"}) == "(integer) -2");
  CHECK(m.text({"ttl", "none"}) == "(integer) -2");
  CHECK(m.text({"pttl", "k"}) == "(integer) -1");
}

TEST_CASE("EXPIRE errors") {
  Model m;
  m.run({"set", "k", "v"});
  CHECK(m.text({"expire", "k", "10", "nx", "xx"}) ==
        "(error) ERR NX and XX, GT or LT options at the same time are not compatible");
  CHECK(m.text({"expire", "k", "10", "nx", "gt"}) ==
        "(error) ERR NX and XX, GT or LT options at the same time are not compatible");
  CHECK(m.text({"expire", "k", "10", "gt", "lt"}) ==
        "(error) ERR GT and LT options at the same time are not compatible");
  CHECK(m.text({"expire", "k", "10", "foo"}) == "(error) ERR Unsupported option foo");
  CHECK(m.text({"expire", "k", "abc", "foo"}) == "(error) ERR Unsupported option foo");  // options first
  CHECK(m.text({"expire", "k", "10", "a\r\nb"}) ==
        "(error) ERR Unsupported option a  b");  // found by the differential test
  CHECK(m.text({"expire", "k", "abc"}) == "(error) ERR value is not an integer or out of range");
  CHECK(m.text({"expire", "k"}) == "(error) ERR wrong number of arguments for 'expire' command");
  CHECK(m.text({"expire", "k", "9223372036854775807"}) == "(error) ERR invalid expire time in 'expire' command");
  CHECK(m.text({"pexpire", "k", "9223372036854775807"}) == "(error) ERR invalid expire time in 'pexpire' command");
  CHECK(m.text({"expireat", "k", "-9223372036854775808"}) == "(error) ERR invalid expire time in 'expireat' command");
  CHECK(m.text({"exists", "k"}) == "(integer) 1");
}

TEST_CASE("EXPIRE with a past or negative time deletes the key") {
  Model m;
  m.run({"set", "k", "v"});
  CHECK(m.text({"expire", "k", "-1"}) == "(integer) 1");
  CHECK(m.text({"exists", "k"}) == "(integer) 0");
  m.run({"set", "k", "v"});
  CHECK(m.text({"pexpire", "k", "0"}) == "(integer) 1");
  CHECK(m.text({"exists", "k"}) == "(integer) 0");
  m.run({"set", "k", "v"});
  CHECK(m.text({"pexpireat", "k", std::to_string(m.now)}) == "(integer) 1");
  CHECK(m.text({"exists", "k"}) == "(integer) 0");
}

TEST_CASE("Lazy expiry: a key lives while now <= deadline") {
  Model m;
  m.run({"set", "k", "v", "px", "100"});
  m.now += 100;
  CHECK(m.text({"get", "k"}) == "\"v\"");
  CHECK(m.text({"pttl", "k"}) == "(integer) 0");
  CHECK(m.text({"ttl", "k"}) == "(integer) 0");
  m.now += 1;
  CHECK(m.text({"get", "k"}) == "(nil)");
  CHECK(m.text({"ttl", "k"}) == "(integer) -2");
  m.run({"set", "k", "v", "px", "1499"});
  CHECK(m.text({"ttl", "k"}) == "(integer) 1");
  m.run({"set", "k", "v", "px", "1500"});
  CHECK(m.text({"ttl", "k"}) == "(integer) 2");
}

TEST_CASE("KEYS glob patterns, sorted output, expired keys hidden") {
  Model m;
  for (const char* k : {"lock:b", "lock:a", "fence", "l[x]", "lo"}) m.run({"set", k, "1"});
  m.run({"set", "lock:c", "1", "px", "10"});
  CHECK(m.text({"keys", "*"}) == "[\"fence\", \"l[x]\", \"lo\", \"lock:a\", \"lock:b\", \"lock:c\"]");
  CHECK(m.text({"keys", "lock:*"}) == "[\"lock:a\", \"lock:b\", \"lock:c\"]");
  CHECK(m.text({"keys", "lock:?"}) == "[\"lock:a\", \"lock:b\", \"lock:c\"]");
  CHECK(m.text({"keys", "lock:[ab]"}) == "[\"lock:a\", \"lock:b\"]");
  CHECK(m.text({"keys", "lock:[^a]"}) == "[\"lock:b\", \"lock:c\"]");
  CHECK(m.text({"keys", "lock:[a-b]"}) == "[\"lock:a\", \"lock:b\"]");
  CHECK(m.text({"keys", "l\\[x\\]"}) == "[\"l[x]\"]");
  CHECK(m.text({"keys", "*o*"}) == "[\"lo\", \"lock:a\", \"lock:b\", \"lock:c\"]");
  CHECK(m.text({"keys", "nomatch*"}) == "[]");
  m.now += 11;
  CHECK(m.text({"keys", "lock:*"}) == "[\"lock:a\", \"lock:b\"]");
  CHECK(m.text({"dbsize"}) == "(integer) 5");
  CHECK(m.server.dbsize(m.now) == 5);
  CHECK(m.text({"dbsize", "x"}) == "(error) ERR wrong number of arguments for 'dbsize' command");
}

TEST_CASE("FLUSHALL FLUSHDB PING ECHO TIME PUBLISH") {
  Model m;
  m.run({"set", "a", "1"});
  CHECK(m.text({"flushall", "foo"}) == "(error) ERR syntax error");
  CHECK(m.text({"flushall", "async", "x"}) == "(error) ERR syntax error");
  CHECK(m.text({"flushdb", "SYNC"}) == "OK");
  CHECK(m.text({"dbsize"}) == "(integer) 0");
  m.run({"set", "a", "1"});
  CHECK(m.text({"flushall"}) == "OK");
  CHECK(m.text({"exists", "a"}) == "(integer) 0");
  CHECK(m.text({"ping"}) == "PONG");
  CHECK(m.text({"ping", "hi"}) == "\"hi\"");
  CHECK(m.text({"ping", "a", "b"}) == "(error) ERR wrong number of arguments for 'ping' command");
  CHECK(m.text({"echo", "x y"}) == "\"x y\"");
  CHECK(m.text({"echo"}) == "(error) ERR wrong number of arguments for 'echo' command");
  m.now = 1'700'000'000'123;
  CHECK(m.text({"time"}) == "[\"1700000000\", \"123000\"]");
  CHECK(m.text({"time", "x"}) == "(error) ERR wrong number of arguments for 'time' command");
  CHECK(m.text({"publish", "ch", "msg"}) == "(integer) 0");
  CHECK(m.text({"publish", "ch"}) == "(error) ERR wrong number of arguments for 'publish' command");
}

TEST_CASE("Introspection does not delete, touch or report") {
  Model m;
  m.run({"set", "k", "v", "px", "10"});
  CHECK(m.server.peek_string("k", m.now) == "v");
  CHECK(m.server.peek_pttl("k", m.now) == 10);
  CHECK(m.server.peek_pttl("none", m.now) == -2);
  CHECK(m.server.peek_string("k", m.now + 11) == std::nullopt);
  CHECK(m.server.peek_pttl("k", m.now + 11) == -2);
  CHECK(m.server.dbsize(m.now + 11) == 0);
  CHECK(m.server.peek_string("k", m.now) == "v");  // still stored: nothing was deleted
  m.run({"set", "p", "v"});
  CHECK(m.server.peek_pttl("p", m.now) == -1);
  m.run({"hset", "h", "f", "v"});
  CHECK(m.server.peek_string("h", m.now) == std::nullopt);
}

TEST_CASE("Connections: unknown ids are refused, FLUSHALL of the server keeps ids usable") {
  Model m;
  CHECK_THROWS_AS(m.server.execute(999, {"ping"}, m.now), std::invalid_argument);
  auto other = m.server.connect();
  m.server.disconnect(other);
  CHECK_THROWS_AS(m.server.execute(other, {"ping"}, m.now), std::invalid_argument);
  m.run({"set", "k", "v"});
  m.run({"multi"});
  m.server.flushall();
  CHECK(m.text({"exec"}) == "(error) ERR EXEC without MULTI");
  CHECK(m.text({"get", "k"}) == "(nil)");
  CHECK(m.text({}) == "(error) ERR empty command");
}
