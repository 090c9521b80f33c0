// A script past busy-reply-threshold (issue 33), as Redis 7.0 behaves (checked against
// redis-server 7.0.15): the other clients get -BUSY but for the allow-busy commands,
// SCRIPT KILL stops a script that has not written, FUNCTION KILL a function, and
// SHUTDOWN NOSAVE stops the server even during a script that wrote.
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
const std::string kBusyEval = "(error) BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
const std::string kBusyFunction =
    "(error) BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";
const std::string kUnkillable =
    "(error) UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the "
    "script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.";

// A server whose scripts may run for minutes (the budget is not what stops them here).
Options long_script_options() {
  Options options = test_options();
  options.model.lua_instruction_budget = 1'000'000'000'000ULL;
  options.log = [](std::string_view) {};
  return options;
}

struct Admin : Hiredis {
  explicit Admin(int port) : Hiredis(port) {
    timeval timeout{10, 0};  // a hang fails the test instead of stalling it
    redisSetTimeout(ctx, timeout);
  }
};

// PINGs until the answer is -BUSY (the script passed the threshold); the last answer.
std::string wait_busy(Admin& admin) {
  std::string reply;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    reply = admin.command("PING");
    if (reply.starts_with("(error) BUSY")) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return reply;
}
}  // namespace

TEST_CASE("busy script: others get -BUSY, SCRIPT KILL stops it, the caller gets Redis's error", "[server][busy]") {
  RunningServer s(long_script_options());
  Admin admin(s.port());
  REQUIRE(admin.command("CONFIG SET busy-reply-threshold 100") == "OK");
  RawClient caller(s.port());
  // The script and a command pipelined behind it: the latter runs after the script.
  caller.send(resp({"EVAL", "while true do end", "0"}) + resp({"PING", "after"}));
  REQUIRE(wait_busy(admin) == kBusyEval);

  CHECK(admin.command("GET x") == kBusyEval);
  CHECK(admin.command("CLIENT LIST") == kBusyEval);
  CHECK(admin.command("INFO server") == kBusyEval);
  CHECK(admin.command("SCRIPT FLUSH") == kBusyEval);
  CHECK(admin.command("FUNCTION KILL") == kBusyEval);  // an EVAL is not FUNCTION KILL's to stop
  CHECK(admin.command("SHUTDOWN") == kBusyEval);       // only SHUTDOWN NOSAVE
  CHECK(admin.command("LOCKSIM.ADVANCE 10") == kBusyEval);
  CHECK(admin.command("HELLO 2").starts_with("[\"server\", \"redis\""));  // allow-busy
  CHECK(admin.command("AUTH x").starts_with("(error) ERR AUTH <password> called without any password"));
  CHECK(admin.command("WATCH x") == "OK");
  CHECK(admin.command("UNWATCH") == "OK");
  // A transaction begun during the script is aborted by the command it could not queue.
  CHECK(admin.command("MULTI") == "OK");
  CHECK(admin.command("INCR x") == kBusyEval);
  CHECK(admin.command("DISCARD") == "OK");
  CHECK(admin.command("MULTI") == "OK");
  CHECK(admin.command("EXEC") == "(error) EXECABORT Transaction discarded because of: " + kBusyEval.substr(8));
  CHECK(admin.command("DISCARD") == "(error) ERR DISCARD without MULTI");
  CHECK(admin.command("RESET") == "RESET");
  {  // a client that connects during the script is served the same way
    Admin late(s.port());
    CHECK(late.command("PING") == kBusyEval);
  }

  CHECK(admin.command("SCRIPT KILL") == "OK");
  const std::string killed =
      "-ERR Script killed by user with SCRIPT KILL... script: 694a5fe1ddb97a4c6a1bf299d9537c7d3d0f84e7, on "
      "@user_script:1.\r\n";
  CHECK(caller.read(killed.size() + 11, 5000) == killed + "$5\r\nafter\r\n");
  CHECK(admin.command("PING") == "PONG");
  CHECK(admin.command("GET x") == "(nil)");  // the aborted transaction ran nothing
  CHECK(admin.command("SCRIPT KILL") == "(error) NOTBUSY No scripts in execution right now.");
}

TEST_CASE("busy script: a pcall cannot catch SCRIPT KILL", "[server][busy]") {
  RunningServer s(long_script_options());
  Admin admin(s.port());
  REQUIRE(admin.command("CONFIG SET lua-time-limit 50") == "OK");
  RawClient caller(s.port());
  caller.send(resp({"EVAL", "while true do pcall(function() while true do end end) end return 1", "0"}));
  REQUIRE(wait_busy(admin) == kBusyEval);
  CHECK(admin.command("SCRIPT KILL") == "OK");
  CHECK(caller.read(1, 5000).starts_with("-ERR Script killed by user with SCRIPT KILL..."));
  CHECK(admin.command("PING") == "PONG");
}

TEST_CASE("busy script: FUNCTION KILL stops a function, SCRIPT KILL does not", "[server][busy]") {
  RunningServer s(long_script_options());
  Admin admin(s.port());
  REQUIRE(admin.command("CONFIG SET busy-reply-threshold 100") == "OK");
  REQUIRE(admin.command("FUNCTION LOAD %s",
                        "#!lua name=lib\nredis.register_function('spin', function() while true do end end)") ==
          "\"lib\"");
  RawClient caller(s.port());
  caller.send(resp({"FCALL", "spin", "0"}));
  REQUIRE(wait_busy(admin) == kBusyFunction);
  CHECK(admin.command("SCRIPT KILL") == kBusyFunction);
  CHECK(admin.command("FUNCTION KILL") == "OK");
  CHECK(caller.read(1, 5000) == "-ERR Script killed by user with SCRIPT KILL... script: spin, on @user_function:2.\r\n");
  CHECK(admin.command("PING") == "PONG");
}

TEST_CASE("busy script: a script that wrote is UNKILLABLE and SHUTDOWN NOSAVE stops the server", "[server][busy]") {
  RunningServer s(long_script_options());
  Admin admin(s.port());
  REQUIRE(admin.command("CONFIG SET busy-reply-threshold 100") == "OK");
  RawClient caller(s.port());
  caller.send(resp({"EVAL", "redis.call('set', 'w', '1') while true do end", "0"}));
  REQUIRE(wait_busy(admin) == kBusyEval);
  CHECK(admin.command("SCRIPT KILL") == kUnkillable);
  CHECK(admin.command("FUNCTION KILL") == kUnkillable);
  CHECK(admin.command("SHUTDOWN SAVE") == kBusyEval);
  CHECK(admin.command("SHUTDOWN NOSAVE") == "(connection error)");  // no reply: the server is gone
  std::string rest;
  CHECK(caller.read_until_closed(rest, 5000));
  CHECK(rest.empty());
  CHECK_THROWS(RawClient(s.port()));  // nothing listens any more
}

TEST_CASE("busy script: under the threshold nobody is told BUSY", "[server][busy]") {
  RunningServer s(long_script_options());
  Admin admin(s.port());
  // The default threshold (5 s): a script of ~100 ms makes the others wait, not fail.
  RawClient caller(s.port());
  caller.send(resp({"EVAL", "local i = 0 while i < 20000000 do i = i + 1 end return i", "0"}));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(admin.command("PING") == "PONG");
  CHECK(caller.read(1, 10000) == ":20000000\r\n");
}
