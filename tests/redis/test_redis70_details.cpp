// Small behaviours of Redis 7.0.15 that clients' suites check, each measured against
// redis-server 7.0.15: a SETBIT that changes no bit is no write, and a -0 score.
#include <catch2/catch.hpp>

#include "model_fixture.hpp"

using locksim::redis::testing::Model;

TEST_CASE("SETBIT that leaves the bit as it was does not abort another client's WATCH", "[redis70]") {
  Model m;
  const auto other = m.server.connect();
  m.run({"SETBIT", "bits", "3", "1"});
  m.run({"WATCH", "bits"});
  CHECK(m.text({"MULTI"}) == "OK");
  m.run({"GET", "bits"});
  CHECK(to_string(m.run_on(other, {"SETBIT", "bits", "3", "1"})) == "(integer) 1");  // already 1
  CHECK(to_string(m.run_on(other, {"SETBIT", "bits", "5", "0"})) == "(integer) 0");  // already 0
  CHECK(m.text({"EXEC"}) != "(nil array)");
  // A bit that does change, or a string that grows, is a write.
  m.run({"WATCH", "bits"});
  m.run({"MULTI"});
  m.run_on(other, {"SETBIT", "bits", "5", "1"});
  CHECK(m.text({"EXEC"}) == "(nil array)");
  m.run({"WATCH", "bits"});
  m.run({"MULTI"});
  m.run_on(other, {"SETBIT", "bits", "100", "0"});  // grows the string: Redis counts it
  CHECK(m.text({"EXEC"}) == "(nil array)");
}

TEST_CASE("ZADD of -0 stores 0, a skiplist update keeps -0, ZINCRBY answers -0", "[redis70]") {
  Model m;
  m.run({"ZADD", "z", "-0", "a"});
  CHECK(m.text({"ZSCORE", "z", "a"}) == "\"0\"");
  m.run({"ZADD", "small", "1", "a"});
  m.run({"ZADD", "small", "-0", "a"});  // listpack: the update is stored as text, read back as 0
  CHECK(m.text({"ZSCORE", "small", "a"}) == "\"0\"");
  CHECK(m.text({"ZINCRBY", "fresh", "-0", "a"}) == "\"-0\"");
  CHECK(m.text({"ZSCORE", "fresh", "a"}) == "\"0\"");
  m.run({"CONFIG", "SET", "zset-max-listpack-entries", "0"});
  m.run({"ZADD", "big", "1", "b"});
  m.run({"ZADD", "big", "-0", "b"});
  CHECK(m.text({"ZSCORE", "big", "b"}) == "\"-0\"");
}
