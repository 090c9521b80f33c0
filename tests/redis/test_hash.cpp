#include <catch2/catch.hpp>

#include "model_fixture.hpp"

using locksim::redis::testing::Model;

TEST_CASE("HSET HGET HGETALL keep insertion order") {
  Model m;
  CHECK(m.text({"hset", "h", "b", "1", "a", "2"}) == "(integer) 2");
  CHECK(m.text({"hset", "h", "b", "3", "c", "4"}) == "(integer) 1");
  CHECK(m.text({"hgetall", "h"}) == "[\"b\", \"3\", \"a\", \"2\", \"c\", \"4\"]");
  CHECK(m.text({"hkeys", "h"}) == "[\"b\", \"a\", \"c\"]");
  CHECK(m.text({"hvals", "h"}) == "[\"3\", \"2\", \"4\"]");
  CHECK(m.text({"hlen", "h"}) == "(integer) 3");
  CHECK(m.text({"hget", "h", "a"}) == "\"2\"");
  CHECK(m.text({"hget", "h", "z"}) == "(nil)");
  CHECK(m.text({"hget", "none", "z"}) == "(nil)");
  CHECK(m.text({"hmget", "h", "a", "z", "c"}) == "[\"2\", (nil), \"4\"]");
  CHECK(m.text({"hmget", "none", "a"}) == "[(nil)]");
  CHECK(m.text({"hgetall", "none"}) == "[]");
  CHECK(m.text({"hlen", "none"}) == "(integer) 0");
  CHECK(m.text({"hdel", "h", "a", "zz"}) == "(integer) 1");
  CHECK(m.text({"hset", "h", "a", "5"}) == "(integer) 1");
  CHECK(m.text({"hkeys", "h"}) == "[\"b\", \"c\", \"a\"]");
  CHECK(m.text({"hmset", "h", "x", "1"}) == "OK");
}

TEST_CASE("Hash errors and arity") {
  Model m;
  m.run({"set", "s", "v"});
  const std::string wrongtype = "(error) WRONGTYPE Operation against a key holding the wrong kind of value";
  CHECK(m.text({"hset", "h", "a", "1", "b"}) == "(error) ERR wrong number of arguments for 'hset' command");
  CHECK(m.text({"hset", "h", "a"}) == "(error) ERR wrong number of arguments for 'hset' command");
  CHECK(m.text({"hmset", "h", "a", "1", "b"}) == "(error) ERR wrong number of arguments for 'hmset' command");
  CHECK(m.text({"hsetnx", "h", "a"}) == "(error) ERR wrong number of arguments for 'hsetnx' command");
  CHECK(m.text({"hget", "h"}) == "(error) ERR wrong number of arguments for 'hget' command");
  CHECK(m.text({"hdel", "h"}) == "(error) ERR wrong number of arguments for 'hdel' command");
  CHECK(m.text({"hmget", "h"}) == "(error) ERR wrong number of arguments for 'hmget' command");
  CHECK(m.text({"hincrby", "h", "f"}) == "(error) ERR wrong number of arguments for 'hincrby' command");
  for (auto cmd : {std::initializer_list<std::string>{"hset", "s", "a", "1"},
                   {"hsetnx", "s", "a", "1"},
                   {"hget", "s", "a"},
                   {"hdel", "s", "a"},
                   {"hexists", "s", "a"},
                   {"hincrby", "s", "a", "1"},
                   {"hgetall", "s"},
                   {"hkeys", "s"},
                   {"hvals", "s"},
                   {"hlen", "s"},
                   {"hmget", "s", "a"}})
    CHECK(m.text(cmd) == wrongtype);
  CHECK(m.text({"exists", "h"}) == "(integer) 0");
}

TEST_CASE("HSETNX HEXISTS HINCRBY and empty-hash deletion") {
  Model m;
  CHECK(m.text({"hsetnx", "h", "f", "1"}) == "(integer) 1");
  CHECK(m.text({"hsetnx", "h", "f", "2"}) == "(integer) 0");
  CHECK(m.text({"hget", "h", "f"}) == "\"1\"");
  CHECK(m.text({"hexists", "h", "f"}) == "(integer) 1");
  CHECK(m.text({"hexists", "h", "g"}) == "(integer) 0");
  CHECK(m.text({"hexists", "none", "g"}) == "(integer) 0");
  CHECK(m.text({"hincrby", "h", "f", "5"}) == "(integer) 6");
  CHECK(m.text({"hincrby", "h", "n", "-2"}) == "(integer) -2");
  CHECK(m.text({"hincrby", "new", "n", "1"}) == "(integer) 1");
  CHECK(m.text({"hincrby", "h", "f", "x"}) == "(error) ERR value is not an integer or out of range");
  m.run({"hset", "h", "s", "abc"});
  CHECK(m.text({"hincrby", "h", "s", "1"}) == "(error) ERR hash value is not an integer");
  m.run({"hset", "h", "big", "9223372036854775807"});
  CHECK(m.text({"hincrby", "h", "big", "1"}) == "(error) ERR increment or decrement would overflow");
  CHECK(m.text({"hdel", "new", "n"}) == "(integer) 1");
  CHECK(m.text({"exists", "new"}) == "(integer) 0");  // the last field removed deletes the key
  CHECK(m.text({"hdel", "none", "n"}) == "(integer) 0");
}

TEST_CASE("HINCRBYFLOAT refuses an infinite increment before it makes the hash") {
  Model m;
  CHECK(m.text({"hincrbyfloat", "h", "f", "+inf"}) == "(error) ERR value is NaN or Infinity");
  CHECK(m.text({"hincrbyfloat", "h", "f", "-inf"}) == "(error) ERR value is NaN or Infinity");
  CHECK(m.text({"exists", "h"}) == "(integer) 0");
  CHECK(m.text({"hset", "h", "f", "inf"}) == "(integer) 1");  // a stored infinity fails only the sum
  CHECK(m.text({"hincrbyfloat", "h", "f", "1"}) == "(error) ERR increment would produce NaN or Infinity");
}
