// What Redis 7.0.15's own suite (tests/server/redis_suite.sh, external mode) found serve
// doing differently, each checked against redis-server 7.0.15 by hand: FUNCTION STATS
// while a function runs, engines and function names in any case, register_function's
// argument errors, COMMAND GETKEYS of SORT ... STORE, the encodings' limits set over the
// wire, and CLIENT REPLY ON right after SKIP (the suite waited forever for its OK).
#include <catch2/catch.hpp>

#include <sys/time.h>

#include <chrono>
#include <string>
#include <thread>

#include "raw_client.hpp"
#include "resp_checks.hpp"
#include "server_fixture.hpp"

using namespace locksim::server;
using namespace locksim::server::testing;

namespace {
struct Patient : Hiredis {  // a hang fails the test instead of stalling it
  explicit Patient(int port) : Hiredis(port) {
    timeval timeout{10, 0};
    redisSetTimeout(ctx, timeout);
  }
};
}  // namespace

TEST_CASE("FUNCTION STATS names the running function and its FCALL, and is allowed while busy",
          "[server][functions]") {
  Options options = test_options(TimeMode::Wall);
  options.model.lua_instruction_budget = 1'000'000'000'000ULL;  // SCRIPT KILL, not the budget, stops it
  options.log = [](std::string_view) {};
  RunningServer s(options);
  Patient admin(s.port());
  CHECK(admin.command("FUNCTION STATS") == "[\"running_script\", (nil), \"engines\", [\"LUA\", [\"libraries_count\", "
                                           "(integer) 0, \"functions_count\", (integer) 0]]]");
  CHECK(admin.command("FUNCTION LOAD %s",
                      "#!lua name=spin\nredis.register_function('spin', function() while true do end end)") ==
        "\"spin\"");
  CHECK(admin.command("CONFIG SET busy-reply-threshold 10") == "OK");
  RawClient caller(s.port());
  caller.send(resp({"FCALL", "spin", "0"}));
  std::string busy;
  for (int i = 0; i < 200 && !busy.starts_with("(error) BUSY"); ++i) {
    busy = admin.command("PING");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  REQUIRE(busy.starts_with("(error) BUSY"));
  const std::string stats = admin.command("FUNCTION STATS");
  CHECK_THAT(stats, Catch::StartsWith("[\"running_script\", [\"name\", \"spin\", \"command\", [\"FCALL\", \"spin\", "
                                      "\"0\"], \"duration_ms\", (integer) "));
  CHECK_THAT(stats, Catch::EndsWith("\"engines\", [\"LUA\", [\"libraries_count\", (integer) 1, \"functions_count\", "
                                    "(integer) 1]]]"));
  CHECK(admin.command("FUNCTION KILL") == "OK");
  // The script stops at its next hook, as in Redis (its suite waits 200 ms for it).
  std::string pong;
  for (int i = 0; i < 200 && pong != "PONG"; ++i) {
    pong = admin.command("PING");
    if (pong != "PONG") std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(pong == "PONG");
}

TEST_CASE("Function engines and function names are case-blind, library names are not (as in Redis)", "[server][functions]") {
  RunningServer s(test_options());
  Hiredis c(s.port());
  CHECK(c.command("FUNCTION LOAD %s", "#!LUA name=lib\nredis.register_function('hello', function() return 'hi' end)") ==
        "\"lib\"");
  CHECK(c.command("FCALL HELLO 0") == "\"hi\"");
  CHECK(c.command("FUNCTION LOAD %s", "#!lua name=lib\nredis.register_function('x', function() return 1 end)") ==
        "(error) ERR Library 'lib' already exists");
  CHECK(c.command("FUNCTION LOAD %s", "#!lua name=LIB\nredis.register_function('x', function() return 1 end)") ==
        "\"LIB\"");  // libraries are case-sensitive
  CHECK_THAT(c.command("FUNCTION LOAD %s", "#!lua name=other\nredis.register_function('HeLLo', function() end)"),
             Catch::Contains("Function HeLLo already exists"));
}

TEST_CASE("redis.register_function refuses bad arguments with Redis 7.0.15's texts", "[server][functions]") {
  RunningServer s(test_options());
  Hiredis c(s.port());
  auto load = [&](const std::string& body) { return c.command("FUNCTION LOAD %s", ("#!lua name=l\n" + body).c_str()); };
  CHECK(load("redis.register_function('f', 'x')") ==
        "(error) ERR Error registering functions: ERR second argument to redis.register_function must be a function");
  CHECK(load("redis.register_function({}, function() end)") ==
        "(error) ERR Error registering functions: ERR first argument to redis.register_function must be a string");
  CHECK(load("redis.register_function{function_name='f', callback=function() end, bad=1}") ==
        "(error) ERR Error registering functions: ERR unknown argument given to redis.register_function");
  CHECK(load("redis.register_function{callback=function() end}") ==
        "(error) ERR Error registering functions: ERR redis.register_function must get a function name argument");
  CHECK(load("redis.register_function{function_name='f'}") ==
        "(error) ERR Error registering functions: ERR redis.register_function must get a callback argument");
  CHECK(load("redis.register_function{FUNCTION_NAME='f', CALLBACK=function() return 1 end}") == "\"l\"");
  // The load-time `redis` has no setresp, and is read-only.
  CHECK_THAT(c.command("FUNCTION LOAD REPLACE %s", "#!lua name=l\nreturn redis.setresp(3)"),
             Catch::Contains("attempted to access nonexistent global variable 'setresp'"));
  CHECK(c.command("FUNCTION LOAD REPLACE %s",
                  "#!lua name=l\nlocal lib = redis\nlib.register_function('f1', function() lib.redis = redis "
                  "return 1 end)") == "\"l\"");
  CHECK_THAT(c.command("FCALL f1 0"), Catch::Contains("Attempt to modify a readonly table"));
}

TEST_CASE("COMMAND GETKEYS of SORT names the last STORE's destination", "[server]") {
  RunningServer s(test_options());
  Hiredis c(s.port());
  CHECK(c.command("COMMAND GETKEYS SORT abc STORE def") == "[\"abc\", \"def\"]");
  CHECK(c.command("COMMAND GETKEYS SORT abc STORE invalid STORE stillbad STORE def") == "[\"abc\", \"def\"]");
  CHECK(c.command("COMMAND GETKEYS SORT abc BY x GET store LIMIT 0 1") == "[\"abc\"]");
  CHECK(c.command("COMMAND GETKEYS SORT_RO abc") == "[\"abc\"]");
}

TEST_CASE("CONFIG SET of the encodings' limits changes OBJECT ENCODING, by either name", "[server]") {
  RunningServer s(test_options());
  Hiredis c(s.port());
  CHECK(c.command("CONFIG SET zset-max-ziplist-entries 0") == "OK");
  CHECK(c.command("CONFIG GET zset-max-listpack-entries") == "[\"zset-max-listpack-entries\", \"0\"]");
  CHECK(c.command("ZADD z 1 a") == "(integer) 1");
  CHECK(c.command("OBJECT ENCODING z") == "\"skiplist\"");
  CHECK(c.command("CONFIG SET hash-max-listpack-value 8") == "OK");
  CHECK(c.command("HSET h f 0") == "(integer) 1");
  CHECK(c.command("OBJECT ENCODING h") == "\"listpack\"");
  CHECK(c.command("HINCRBYFLOAT h f 0.000005") == "\"0.000005\"");  // 8 bytes: still fits
  CHECK(c.command("OBJECT ENCODING h") == "\"listpack\"");
  CHECK(c.command("HINCRBYFLOAT h f 0.0000005") == "\"0.0000055\"");  // 9 bytes: converted
  CHECK(c.command("OBJECT ENCODING h") == "\"hashtable\"");
  CHECK(c.command("CONFIG SET zset-max-listpack-entries nope") ==
        "(error) ERR CONFIG SET failed (possibly related to argument 'zset-max-listpack-entries') - argument "
        "couldn't be parsed into an integer");
}

TEST_CASE("CLIENT REPLY ON answers even when SKIP came just before it", "[server]") {
  RunningServer s(test_options());
  RawClient c(s.port());
  c.send(resp({"CLIENT", "REPLY", "SKIP"}) + resp({"CLIENT", "REPLY", "ON"}) + resp({"PING"}));
  CHECK(c.read(std::string("+OK\r\n+PONG\r\n").size()) == "+OK\r\n+PONG\r\n");
}

TEST_CASE("SHUTDOWN and SAVE are refused inside MULTI, and EXEC aborts (the suite's server went away)", "[server]") {
  RunningServer s(test_options());
  Hiredis c(s.port());
  CHECK(c.command("MULTI") == "OK");
  CHECK(c.command("SET k v") == "QUEUED");
  CHECK(c.command("SHUTDOWN") == "(error) ERR Command not allowed inside a transaction");
  CHECK(c.command("EXEC") == "(error) EXECABORT Transaction discarded because of previous errors.");
  CHECK(c.command("MULTI") == "OK");
  CHECK(c.command("SAVE") == "(error) ERR Command not allowed inside a transaction");
  CHECK(c.command("EXEC") == "(error) EXECABORT Transaction discarded because of previous errors.");
  CHECK(c.command("PING") == "PONG");
  CHECK(c.command("EXISTS k") == "(integer) 0");
}
