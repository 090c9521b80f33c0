#include <catch2/catch.hpp>

#include "model_fixture.hpp"

using locksim::redis::testing::Model;

TEST_CASE("GET and SET basics, arity and unknown commands") {
  Model m;
  CHECK(m.text({"GET", "k"}) == "(nil)");
  CHECK(m.text({"set", "k", "v"}) == "OK");
  CHECK(m.text({"gEt", "k"}) == "\"v\"");
  CHECK(m.text({"get"}) == "(error) ERR wrong number of arguments for 'get' command");
  CHECK(m.text({"get", "a", "b"}) == "(error) ERR wrong number of arguments for 'get' command");
  CHECK(m.text({"set", "k"}) == "(error) ERR wrong number of arguments for 'set' command");
  CHECK(m.text({"foo", "a", "b"}) == "(error) ERR unknown command 'foo', with args beginning with: 'a' 'b' ");
  CHECK(m.text({"FOO"}) == "(error) ERR unknown command 'FOO', with args beginning with: ");
  CHECK(m.text({"averyveryverylongcommandname"}) ==
        "(error) ERR unknown command 'averyveryverylongcommandname', with args beginning with: ");
}

TEST_CASE("SET options and their invalid combinations") {
  Model m;
  CHECK(m.text({"set", "k", "v", "nx"}) == "OK");
  CHECK(m.text({"set", "k", "w", "nx"}) == "(nil)");
  CHECK(m.text({"set", "k", "w", "xx"}) == "OK");
  CHECK(m.text({"set", "nokey", "w", "xx"}) == "(nil)");
  CHECK(m.text({"set", "k", "v", "nx", "xx"}) == "(error) ERR syntax error");
  CHECK(m.text({"set", "k", "v", "xx", "nx"}) == "(error) ERR syntax error");
  CHECK(m.text({"set", "k", "v", "ex", "10", "px", "100"}) == "(error) ERR syntax error");
  CHECK(m.text({"set", "k", "v", "keepttl", "ex", "10"}) == "(error) ERR syntax error");
  CHECK(m.text({"set", "k", "v", "px", "10", "keepttl"}) == "(error) ERR syntax error");
  CHECK(m.text({"set", "k", "v", "exat", "10", "pxat", "10"}) == "(error) ERR syntax error");
  CHECK(m.text({"set", "k", "v", "px"}) == "(error) ERR syntax error");
  CHECK(m.text({"set", "k", "v", "persist"}) == "(error) ERR syntax error");
  CHECK(m.text({"set", "k", "v", "bogus"}) == "(error) ERR syntax error");
  // Repeating the same option is accepted, as Redis does.
  CHECK(m.text({"set", "k", "v", "ex", "10", "ex", "20"}) == "OK");
  CHECK(m.text({"ttl", "k"}) == "(integer) 20");
  CHECK(m.text({"set", "k", "v", "nx", "nx"}) == "(nil)");
  CHECK(m.text({"set", "k", "v", "ex", "abc"}) == "(error) ERR value is not an integer or out of range");
  CHECK(m.text({"set", "k", "v", "ex", "0"}) == "(error) ERR invalid expire time in 'set' command");
  CHECK(m.text({"set", "k", "v", "px", "-1"}) == "(error) ERR invalid expire time in 'set' command");
  CHECK(m.text({"set", "k", "v", "ex", "9223372036854775"}) == "(error) ERR invalid expire time in 'set' command");
  CHECK(m.text({"set", "k", "v", "px", "9223372036854775807"}) == "(error) ERR invalid expire time in 'set' command");
  CHECK(m.text({"set", "k", "v", "exat", "9223372036854775807"}) == "(error) ERR invalid expire time in 'set' command");
  CHECK(m.text({"set", "k", "v", "pxat", "9223372036854775807"}) == "OK");
}

TEST_CASE("SET expiry forms, KEEPTTL and GET") {
  Model m;
  CHECK(m.text({"set", "k", "v", "px", "1500"}) == "OK");
  CHECK(m.text({"pttl", "k"}) == "(integer) 1500");
  CHECK(m.text({"ttl", "k"}) == "(integer) 2");  // (1500 + 500) / 1000
  CHECK(m.text({"set", "k", "w", "keepttl"}) == "OK");
  CHECK(m.text({"pttl", "k"}) == "(integer) 1500");
  CHECK(m.text({"set", "k", "w"}) == "OK");
  CHECK(m.text({"pttl", "k"}) == "(integer) -1");
  CHECK(m.text({"set", "k", "v", "exat", std::to_string(m.now / 1000 + 10)}) == "OK");
  CHECK(m.text({"pttl", "k"}) == "(integer) 10000");
  CHECK(m.text({"set", "k", "v", "pxat", std::to_string(m.now + 7)}) == "OK");
  CHECK(m.text({"pttl", "k"}) == "(integer) 7");
  // A deadline in the past is stored; the key then reads as expired.
  CHECK(m.text({"set", "k", "v", "pxat", "1"}) == "OK");
  CHECK(m.text({"get", "k"}) == "(nil)");
  CHECK(m.text({"set", "k", "old"}) == "OK");
  CHECK(m.text({"set", "k", "new", "get"}) == "\"old\"");
  CHECK(m.text({"set", "absent", "x", "get"}) == "(nil)");
  CHECK(m.text({"set", "k", "newer", "nx", "get"}) == "\"new\"");
  CHECK(m.text({"get", "k"}) == "\"new\"");
  CHECK(m.text({"hset", "h", "f", "v"}) == "(integer) 1");
  CHECK(m.text({"set", "h", "x", "get"}) ==
        "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
  CHECK(m.text({"set", "h", "x"}) == "OK");  // plain SET replaces any type
  CHECK(m.text({"type", "h"}) == "string");
}

TEST_CASE("SETNX SETEX PSETEX GETSET GETDEL") {
  Model m;
  CHECK(m.text({"setnx", "k", "1"}) == "(integer) 1");
  CHECK(m.text({"setnx", "k", "2"}) == "(integer) 0");
  CHECK(m.text({"setnx", "k"}) == "(error) ERR wrong number of arguments for 'setnx' command");
  CHECK(m.text({"setex", "k", "0", "v"}) == "(error) ERR invalid expire time in 'setex' command");
  CHECK(m.text({"psetex", "k", "x", "v"}) == "(error) ERR value is not an integer or out of range");
  CHECK(m.text({"setex", "k", "5", "v"}) == "OK");
  CHECK(m.text({"pttl", "k"}) == "(integer) 5000");
  CHECK(m.text({"getset", "k", "w"}) == "\"v\"");
  CHECK(m.text({"pttl", "k"}) == "(integer) -1");  // GETSET clears the TTL
  CHECK(m.text({"getset", "new", "w"}) == "(nil)");
  CHECK(m.text({"getdel", "k"}) == "\"w\"");
  CHECK(m.text({"getdel", "k"}) == "(nil)");
  m.run({"hset", "h", "f", "v"});
  CHECK(m.text({"getset", "h", "x"}) == "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
  CHECK(m.text({"getdel", "h"}) == "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
  CHECK(m.text({"get", "h"}) == "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
}

TEST_CASE("GETEX options") {
  Model m;
  CHECK(m.text({"getex", "nokey", "ex", "abc"}) == "(nil)");  // absent key answers before the time is checked
  m.run({"set", "k", "v"});
  CHECK(m.text({"getex", "k", "foo"}) == "(error) ERR syntax error");
  CHECK(m.text({"getex", "k", "nx"}) == "(error) ERR syntax error");
  CHECK(m.text({"getex", "k", "keepttl"}) == "(error) ERR syntax error");
  CHECK(m.text({"getex", "k", "persist", "ex", "1"}) == "(error) ERR syntax error");
  CHECK(m.text({"getex", "k", "ex", "0"}) == "(error) ERR invalid expire time in 'getex' command");
  CHECK(m.text({"getex", "k", "ex", "abc"}) == "(error) ERR value is not an integer or out of range");
  CHECK(m.text({"getex", "k", "px", "2500"}) == "\"v\"");
  CHECK(m.text({"pttl", "k"}) == "(integer) 2500");
  CHECK(m.text({"getex", "k"}) == "\"v\"");
  CHECK(m.text({"pttl", "k"}) == "(integer) 2500");
  CHECK(m.text({"getex", "k", "persist"}) == "\"v\"");
  CHECK(m.text({"pttl", "k"}) == "(integer) -1");
  CHECK(m.text({"getex", "k", "exat", "1"}) == "\"v\"");  // past absolute time deletes
  CHECK(m.text({"exists", "k"}) == "(integer) 0");
  m.run({"set", "k", "v"});
  CHECK(m.text({"getex", "k", "pxat", std::to_string(m.now)}) == "\"v\"");  // == now counts as past
  CHECK(m.text({"exists", "k"}) == "(integer) 0");
}

TEST_CASE("MGET INCR DECR APPEND STRLEN") {
  Model m;
  m.run({"set", "a", "1"});
  m.run({"hset", "h", "f", "v"});
  CHECK(m.text({"mget", "a", "h", "none"}) == "[\"1\", (nil), (nil)]");
  CHECK(m.text({"mget"}) == "(error) ERR wrong number of arguments for 'mget' command");
  CHECK(m.text({"incr", "a"}) == "(integer) 2");
  CHECK(m.text({"incrby", "a", "10"}) == "(integer) 12");
  CHECK(m.text({"decr", "a"}) == "(integer) 11");
  CHECK(m.text({"decrby", "a", "20"}) == "(integer) -9");
  CHECK(m.text({"incr", "fresh"}) == "(integer) 1");
  CHECK(m.text({"incrby", "a", "abc"}) == "(error) ERR value is not an integer or out of range");
  CHECK(m.text({"incrby", "a", "1.5"}) == "(error) ERR value is not an integer or out of range");
  CHECK(m.text({"decrby", "a", "-9223372036854775808"}) == "(error) ERR decrement would overflow");
  m.run({"set", "big", "9223372036854775807"});
  CHECK(m.text({"incr", "big"}) == "(error) ERR increment or decrement would overflow");
  m.run({"set", "small", "-9223372036854775808"});
  CHECK(m.text({"decr", "small"}) == "(error) ERR increment or decrement would overflow");
  for (const char* bad : {" 1", "01", "-0", "+1", "1 ", "", "abc", "99999999999999999999"}) {
    m.run({"set", "n", bad});
    CHECK(m.text({"incr", "n"}) == "(error) ERR value is not an integer or out of range");
  }
  CHECK(m.text({"incr", "h"}) == "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
  m.run({"set", "t", "5", "px", "1000"});
  CHECK(m.text({"incr", "t"}) == "(integer) 6");
  CHECK(m.text({"pttl", "t"}) == "(integer) 1000");  // INCR keeps the TTL
  CHECK(m.text({"append", "s", "ab"}) == "(integer) 2");
  CHECK(m.text({"append", "s", "cd"}) == "(integer) 4");
  CHECK(m.text({"get", "s"}) == "\"abcd\"");
  CHECK(m.text({"strlen", "s"}) == "(integer) 4");
  CHECK(m.text({"strlen", "none"}) == "(integer) 0");
  CHECK(m.text({"append", "h", "x"}) == "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
  CHECK(m.text({"strlen", "h"}) == "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
}

TEST_CASE("BITCOUNT answers an empty negative range before reading its unit") {
  Model m;
  m.run({"set", "k", "12345"});
  CHECK(m.text({"bitcount", "k", "-1", "-2", "bogus"}) == "(integer) 0");
  CHECK(m.text({"bitcount", "k", "-3", "-2", "bogus"}) == "(error) ERR syntax error");
  CHECK(m.text({"bitcount", "k", "0", "1", "bogus"}) == "(error) ERR syntax error");
  CHECK(m.text({"bitcount", "nokey", "0", "1", "bogus"}) == "(integer) 0");
}

TEST_CASE("HRANDFIELD reads its count before its other arguments") {
  Model m;
  m.run({"hset", "h", "a", "1"});
  CHECK(m.text({"hrandfield", "h", "x", "bogus", "1"}) == "(error) ERR value is not an integer or out of range");
  CHECK(m.text({"hrandfield", "nokey", "x", "bogus"}) == "(error) ERR value is not an integer or out of range");
  CHECK(m.text({"hrandfield", "h", "1", "bogus"}) == "(error) ERR syntax error");
  CHECK(m.text({"hrandfield", "h", "1000", "withvalues"}) == "[\"a\", \"1\"]");
}

TEST_CASE("SORT keeps BY nosort when a later BY names a pattern") {
  Model m;
  m.run({"lpush", "l", "a", "-3", "1"});
  CHECK(m.text({"sort_ro", "l", "by", "nosort", "by", "w_*"}) == "[\"1\", \"-3\", \"a\"]");
}

TEST_CASE("SETRANGE and APPEND past 512 MB are refused, even at an offset that would overflow") {
  Model m;
  for (const char* offset : {"9223372036854775807", "9223372036854775806", "2147483647", "536870912"})
    CHECK(m.text({"setrange", "k", offset, "A"}) ==
          "(error) ERR string exceeds maximum allowed size (proto-max-bulk-len)");
  CHECK(m.text({"exists", "k"}) == "(integer) 0");
  CHECK(m.text({"setrange", "k", "536870911", ""}) == "(integer) 0");  // nothing written, nothing made
  CHECK(m.text({"setrange", "k", "2", "A"}) == "(integer) 3");
}
