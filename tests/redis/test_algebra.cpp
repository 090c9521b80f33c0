// Multi-key pops, sorted-set algebra, LCS, SORT, DUMP/RESTORE and the console's
// handling of blocking commands. Expected replies are redis-server 7.0.15's.
#include <catch2/catch.hpp>

#include <sstream>

#include "locksim/sim/redis/console.hpp"
#include "model_fixture.hpp"

using namespace locksim::redis;
using namespace locksim::redis::testing;

TEST_CASE("LMPOP and ZMPOP pop from the first non-empty key, their errors are Redis's") {
  Model m;
  m.run({"rpush", "l", "a", "b", "c", "d", "e"});
  CHECK(m.text({"lmpop", "2", "nokey", "l", "right", "count", "3"}) == "[\"l\", [\"e\", \"d\", \"c\"]]");
  CHECK(m.text({"lmpop", "1", "l", "left", "count", "10"}) == "[\"l\", [\"a\", \"b\"]]");
  CHECK(m.text({"exists", "l"}) == "(integer) 0");
  CHECK(m.text({"lmpop", "1", "l", "left"}) == "(nil array)");
  CHECK(m.text({"lmpop", "0", "l", "left"}) == "(error) ERR numkeys should be greater than 0");
  CHECK(m.text({"lmpop", "x", "l", "left"}) == "(error) ERR numkeys should be greater than 0");
  CHECK(m.text({"lmpop", "2", "l", "left"}) == "(error) ERR syntax error");
  CHECK(m.text({"lmpop", "1", "l", "left", "count", "0"}) == "(error) ERR count should be greater than 0");
  CHECK(m.text({"lmpop", "1", "l", "left", "count", "1", "count", "1"}) == "(error) ERR syntax error");
  m.run({"zadd", "z", "1", "a", "2", "b", "3", "c"});
  CHECK(m.text({"zmpop", "1", "z", "max", "count", "2"}) == "[\"z\", [[\"c\", \"3\"], [\"b\", \"2\"]]]");
  CHECK(m.text({"zmpop", "1", "z", "mid"}) == "(error) ERR syntax error");
  m.run({"set", "s", "v"});
  CHECK(m.text({"zmpop", "2", "nokey", "s", "min"}).starts_with("(error) WRONGTYPE"));
}

TEST_CASE("BLMPOP and BZMPOP block, are served by a push and time out on the server clock") {
  Model m;
  const ConnectionId other = m.server.connect();
  CHECK(m.run({"blmpop", "1", "1", "l", "left", "count", "2"}).is_blocked());
  CHECK(m.run_on(other, {"rpush", "l", "a", "b", "c"}) == Reply::integer_(3));
  auto pushed = m.server.take_pushed(m.conn);
  REQUIRE(pushed.size() == 1);
  CHECK(to_string(pushed[0]) == "[\"l\", [\"a\", \"b\"]]");
  CHECK(m.run({"bzmpop", "0.5", "1", "z", "min"}).is_blocked());
  m.server.advance(m.now + 501);
  pushed = m.server.take_pushed(m.conn);
  REQUIRE(pushed.size() == 1);
  CHECK(pushed[0] == Reply::nil_array());
  CHECK(m.text({"blmpop", "-1", "1", "l", "left"}) == "(error) ERR timeout is negative");
}

TEST_CASE("ZUNION, ZINTER, ZDIFF, their STORE forms and ZINTERCARD, sets counting as score 1") {
  Model m;
  m.run({"zadd", "z1", "1", "a", "2", "b", "3", "c"});
  m.run({"zadd", "z2", "10", "b", "20", "c", "30", "d"});
  m.run({"sadd", "s1", "a", "d", "e"});
  CHECK(m.text({"zunion", "3", "z1", "z2", "s1", "weights", "1", "2", "3", "withscores"}) ==
        "[\"e\", \"3\", \"a\", \"4\", \"b\", \"22\", \"c\", \"43\", \"d\", \"63\"]");
  CHECK(m.text({"zinter", "2", "z1", "z2", "aggregate", "max", "withscores"}) == "[\"b\", \"10\", \"c\", \"20\"]");
  CHECK(m.text({"zdiff", "2", "z1", "s1", "withscores"}) == "[\"b\", \"2\", \"c\", \"3\"]");
  CHECK(m.text({"zdiff", "2", "z1", "z2", "weights", "1", "2"}) == "(error) ERR syntax error");
  CHECK(m.text({"zunionstore", "dst", "2", "z1", "z2", "weights", "2", "3"}) == "(integer) 4");
  CHECK(m.text({"zscore", "dst", "c"}) == "\"66\"");
  CHECK(m.text({"zinterstore", "dst", "2", "z1", "nokey"}) == "(integer) 0");
  CHECK(m.text({"exists", "dst"}) == "(integer) 0");
  CHECK(m.text({"zintercard", "2", "z1", "z2", "limit", "1"}) == "(integer) 1");
  CHECK(m.text({"zintercard", "2", "z1", "z2", "limit", "-1"}) == "(error) ERR LIMIT can't be negative");
  CHECK(m.text({"zunion", "0", "z1"}) == "(error) ERR at least 1 input key is needed for 'zunion' command");
  CHECK(m.text({"zunion", "3", "z1", "z2"}) == "(error) ERR syntax error");
  CHECK(m.text({"zunion", "2", "z1", "z2", "weights", "1", "x"}) == "(error) ERR weight value is not a float");
  m.run({"zadd", "zi", "1", "x"});
  m.run({"zadd", "zi2", "-inf", "x"});
  CHECK(m.text({"zunion", "2", "zi", "zi2", "weights", "inf", "1", "withscores"}) == "[\"x\", \"0\"]");
}

TEST_CASE("lex ranges on mixed scores walk as Redis's listpack walk does") {
  Model m;
  m.run({"zadd", "z", "1", "a"});
  m.run({"zadd", "z", "inf", "1"});
  CHECK(m.text({"zrange", "z", "[a", "+", "bylex"}) == "[]");
  m.run({"zadd", "zm", "0", "a", "0", "b", "0", "c", "0", "d", "1", "1"});
  CHECK(m.text({"zrange", "zm", "[b", "[c", "bylex"}) == "[]");  // the last member, "1", is below [b
  CHECK(m.text({"zrange", "zm", "[c", "-", "bylex", "rev", "limit", "1", "2"}) == "[\"d\", \"c\"]");
  CHECK(m.text({"zlexcount", "zm", "[b", "+"}) == "(integer) 0");
  CHECK(m.text({"zrange", "zm", "-", "[c", "bylex"}) == "[\"a\", \"b\", \"c\"]");
  m.run({"zadd", "zm2", "0", "a", "0", "b", "0", "c", "0", "d", "1", "z"});
  CHECK(m.text({"zrange", "zm2", "[b", "[c", "bylex"}) == "[\"b\", \"c\"]");
  CHECK(m.text({"zrange", "zm2", "[c", "-", "bylex", "rev", "limit", "1", "2"}) == "[\"b\", \"a\"]");
  CHECK(m.text({"zlexcount", "zm2", "[b", "+"}) == "(integer) 4");
}

TEST_CASE("LCS: the subsequence, LEN, IDX with MINMATCHLEN and WITHMATCHLEN") {
  Model m;
  m.run({"set", "k1", "ohmytext"});
  m.run({"set", "k2", "mynewtext"});
  CHECK(m.text({"lcs", "k1", "k2"}) == "\"mytext\"");
  CHECK(m.text({"lcs", "k1", "k2", "len"}) == "(integer) 6");
  CHECK(m.text({"lcs", "k1", "k2", "idx", "minmatchlen", "4", "withmatchlen"}) ==
        "[\"matches\", [[[(integer) 4, (integer) 7], [(integer) 5, (integer) 8], (integer) 4]], \"len\", (integer) 6]");
  CHECK(m.text({"lcs", "k1", "k2", "len", "idx"}) ==
        "(error) ERR If you want both the length and indexes, please just use IDX.");
  m.run({"rpush", "l", "x"});
  CHECK(m.text({"lcs", "k1", "l"}) == "(error) ERR The specified keys must contain string values");
}

TEST_CASE("SORT: numeric, ALPHA, LIMIT, BY and GET patterns, STORE, SORT_RO refuses STORE") {
  Model m;
  m.run({"rpush", "l", "3", "1", "2"});
  CHECK(m.text({"sort", "l", "desc", "limit", "0", "2"}) == "[\"3\", \"2\"]");
  m.run({"set", "w_1", "30"});
  m.run({"set", "w_2", "20"});
  m.run({"hset", "h_3", "f", "x"});
  CHECK(m.text({"sort", "l", "by", "w_*", "get", "#", "get", "h_*->f"}) ==
        "[\"3\", \"x\", \"2\", (nil), \"1\", (nil)]");
  CHECK(m.text({"sort", "l", "by", "nosort", "desc"}) == "[\"2\", \"1\", \"3\"]");
  CHECK(m.text({"sort", "l", "store", "dst"}) == "(integer) 3");
  CHECK(m.text({"lrange", "dst", "0", "-1"}) == "[\"1\", \"2\", \"3\"]");
  CHECK(m.text({"sort_ro", "l", "store", "dst"}) == "(error) ERR syntax error");
  m.run({"rpush", "la", "b", "a"});
  CHECK(m.text({"sort", "la"}) == "(error) ERR One or more scores can't be converted into double");
  CHECK(m.text({"sort", "la", "alpha"}) == "[\"a\", \"b\"]");
  m.run({"sadd", "sa", "x", "b", "a"});
  CHECK(m.text({"eval", "return redis.call('sort', KEYS[1], 'by', 'nosort')", "1", "sa"}) == "[\"a\", \"b\", \"x\"]");
}

TEST_CASE("DUMP then RESTORE gives every value type back, bad payloads get Redis's errors") {
  Model m;
  m.run({"set", "s", "12"});
  m.run({"rpush", "l", "a", "b"});
  m.run({"sadd", "set", "1", "x"});
  m.run({"zadd", "z", "1.5", "a", "-inf", "b"});
  m.run({"hset", "h", "f", "v", "g", "w"});
  for (const std::string key : {"s", "l", "set", "z", "h"}) {
    INFO(key);
    const Reply dumped = m.server.execute(m.conn, {"dump", key}, m.now);
    REQUIRE(dumped.type == Reply::Type::Bulk);
    const Reply before = m.server.execute(m.conn, {"sort", key, "by", "nosort"}, m.now);
    const std::string encoding = m.text({"object", "encoding", key});
    CHECK(m.server.execute(m.conn, {"restore", key, "0", dumped.str}, m.now).str.starts_with("BUSYKEY"));
    CHECK(m.server.execute(m.conn, {"restore", key, "5000", dumped.str, "replace"}, m.now) == Reply::ok());
    CHECK(m.server.execute(m.conn, {"sort", key, "by", "nosort"}, m.now) == before);
    CHECK(m.text({"object", "encoding", key}) == encoding);
    CHECK(m.text({"pttl", key}) == "(integer) 5000");
    std::string altered = dumped.str;
    altered[1] ^= 1;
    CHECK(m.server.execute(m.conn, {"restore", "new", "0", altered}, m.now).str ==
          "ERR DUMP payload version or checksum are wrong");
  }
  CHECK(m.text({"hgetall", "h"}) == "[\"f\", \"v\", \"g\", \"w\"]");
  CHECK(m.text({"restore", "k", "0", "short"}) == "(error) ERR DUMP payload version or checksum are wrong");
  CHECK(m.text({"restore", "k", "-1", "x"}) == "(error) ERR Invalid TTL value, must be >= 0");
  CHECK(m.text({"restore", "k", "0", "x", "freq", "300"}) == "(error) ERR Invalid FREQ value, must be >= 0 and <= 255");
  CHECK(m.text({"dump", "nokey"}) == "(nil)");
}

TEST_CASE("the console waits out a blocking command and prints pushed replies") {
  std::istringstream in("blpop nokey 2\nblpop nokey 0\nping\nsubscribe a b\n");
  std::ostringstream out, err;
  run_console(in, out, err);
  // SUBSCRIBE's second notice comes through the outbox.
  CHECK(out.str() ==
        "(nil)\nPONG\n1) \"subscribe\"\n2) \"a\"\n3) (integer) 1\n1) \"subscribe\"\n2) \"b\"\n3) (integer) 2\n");
  CHECK(err.str().find("line 2: the command would block forever") != std::string::npos);
}

TEST_CASE("WAIT: no replica acknowledges anything, its argument errors are Redis's") {
  Model m;
  CHECK(m.text({"wait", "0", "0"}) == "(integer) 0");
  CHECK(m.text({"wait", "1", "100"}) == "(integer) 0");
  CHECK(m.text({"wait", "0", "1.5"}) == "(error) ERR timeout is not an integer or out of range");
  CHECK(m.text({"wait", "0", "-1"}) == "(error) ERR timeout is negative");
  CHECK(m.text({"wait", "x", "0"}) == "(error) ERR value is not an integer or out of range");
}

TEST_CASE("ZRANDMEMBER: distinct members for a positive count, repeats for a negative one, Redis's errors") {
  Model m;
  m.run({"zadd", "z", "1", "a", "2", "b", "3", "c"});
  CHECK(m.run({"zrandmember", "z", "2"}).elements.size() == 2);
  const Reply some = m.run({"zrandmember", "z", "-7", "withscores"});
  CHECK(some.elements.size() == 14);  // member, score: a negative count repeats
  const Reply all = m.run({"zrandmember", "z", "10"});
  REQUIRE(all.elements.size() == 3);  // the whole set, highest rank first as Redis 7.0 answers it
  CHECK(all.elements[0].str == "c");
  CHECK(all.elements[2].str == "a");
  CHECK(m.text({"zrandmember", "z", "0"}) == "[]");
  CHECK(m.text({"zrandmember", "nokey", "3"}) == "[]");
  CHECK(m.text({"zrandmember", "nokey"}) == "(nil)");
  CHECK(m.text({"zrandmember", "z", "-9223372036854775808"}) ==
        "(error) ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807");
  CHECK(m.text({"zrandmember", "z", "-9223372036854770000", "withscores"}) == "(error) ERR value is out of range");
  CHECK(m.text({"zrandmember", "z", "1", "bogus"}) == "(error) ERR syntax error");
  CHECK(m.text({"zrandmember", "z", "x"}) == "(error) ERR value is not an integer or out of range");
}

TEST_CASE("Scripts may not call the blocking commands Redis 7.0 flags noscript") {
  Model m;
  for (const char* blocking : {"blpop", "brpop", "bzpopmin", "bzpopmax"})
    CHECK(m.text({"eval", std::string("return redis.pcall('") + blocking + "','x',0)", "0"}) ==
          "(error) ERR This Redis command is not allowed from script");
  CHECK(m.text({"eval", "return redis.pcall('brpoplpush','x','y',0)", "0"}) ==
        "(error) ERR This Redis command is not allowed from script");
  CHECK(m.text({"eval", "return redis.pcall('blmove','x','y','left','left',0)", "0"}) ==
        "(error) ERR This Redis command is not allowed from script");
}
