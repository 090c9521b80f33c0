// (a) The Redis model in a unit test: set, advance virtual time, see the key expire.
#include <catch2/catch.hpp>
#include <locksim/testing/catch.hpp>
#include <locksim/testing/virtual_redis.hpp>

TEST_CASE("a lock key expires once its lease has passed, as in Redis") {
  locksim::testing::VirtualRedis redis;
  REQUIRE(redis.text("SET lock me NX PX 100") == "OK");
  REQUIRE(redis.text("SET lock you NX PX 100") == "(nil)");
  redis.advance_ms(100);  // Redis expires a key after its deadline, not at it
  REQUIRE(redis.text("GET lock") == "\"me\"");
  redis.advance_ms(1);
  REQUIRE(redis.run("GET lock").is_nil());
}

TEST_CASE("the compare-and-delete script runs as Redis runs it") {
  locksim::testing::VirtualRedis redis;
  redis.run("SET lock me PX 1000");
  const char* release =
      "EVAL \"if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) "
      "else return 0 end\" 1 lock ";
  REQUIRE(redis.text(std::string(release) + "you") == "(integer) 0");
  REQUIRE(redis.text(std::string(release) + "me") == "(integer) 1");
}
