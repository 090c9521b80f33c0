// Commands that attack the model: exponential globs, data without bound,
// deadlines at the edges of int64, and the console's clock.
#include <catch2/catch.hpp>

#include <limits>
#include <sstream>
#include <string>

#include "locksim/sim/redis/arguments.hpp"
#include "locksim/sim/redis/console.hpp"
#include "locksim/sim/redis/glob.hpp"
#include "locksim/sim/redis/server.hpp"

using namespace locksim::redis;

TEST_CASE("KEYS with many stars is linear-ish, as Redis 7.0.9+ (CVE-2022-36021)") {
  Server server;
  const ConnectionId conn = server.connect();
  server.execute(conn, {"SET", std::string(70, 'a'), "v"}, 0);
  CHECK(to_string(server.execute(conn, {"KEYS", "*a*a*a*a*a*a*a*b"}, 0)) == "[]");
  CHECK(!glob_match(std::string(40, '*') + "b", std::string(5000, 'a')));
  CHECK(!glob_match("*a*a*a*a*a*a*a*a*a*a*a*a*b", std::string(5000, 'a')));
  // Results unchanged.
  CHECK(glob_match("*a*a*", "xaya"));
  CHECK(glob_match("h*llo", "heeeello"));
  CHECK(glob_match("a*b*c", "aXbYc"));
  CHECK(!glob_match("a*b*c", "aXbY"));
  CHECK(glob_match("*", "anything"));
  CHECK(glob_match("a*", "a"));
  CHECK(!glob_match("a*b", "a"));
  CHECK(glob_match("h[^e]llo", "hallo"));
}

TEST_CASE("maxmemory: over the cap, commands that add data get Redis's OOM error") {
  ServerOptions options;
  options.maxmemory_bytes = 1024 * 1024;
  Server server(options);
  const ConnectionId conn = server.connect();
  const std::string oom = "(error) OOM command not allowed when used memory > 'maxmemory'.";
  // From a script: the loop stops at the cap instead of growing without bound.
  const std::string reply = to_string(server.execute(
      conn, {"EVAL", "for i = 1, 1000 do redis.call('APPEND', 'big', string.rep('x', 100000)) end", "0"}, 0));
  CHECK(reply.find("OOM command not allowed when used memory > 'maxmemory'.") != std::string::npos);
  const Reply len = server.execute(conn, {"STRLEN", "big"}, 0);
  CHECK(len.integer <= 2 * 1024 * 1024);
  CHECK(to_string(server.execute(conn, {"SET", "k", "v"}, 0)) == oom);
  CHECK(to_string(server.execute(conn, {"HSET", "h", "f", "v"}, 0)) == oom);
  CHECK(to_string(server.execute(conn, {"GET", "k"}, 0)) == "(nil)");  // reads still work
  CHECK(to_string(server.execute(conn, {"DEL", "big"}, 0)) == "(integer) 1");
  CHECK(to_string(server.execute(conn, {"SET", "k", "v"}, 0)) == "OK");
  // A transaction's writes are checked one by one.
  server.execute(conn, {"MULTI"}, 0);
  server.execute(conn, {"SET", "a", std::string(2 * 1024 * 1024, 'x')}, 0);
  server.execute(conn, {"SET", "b", "v"}, 0);
  CHECK(to_string(server.execute(conn, {"EXEC"}, 0)) == "[OK, " + oom.substr(0) + "]");
}

TEST_CASE("Deadlines at the edges of int64 are refused, never overflowed") {
  Server server;
  const ConnectionId conn = server.connect();
  const int64_t far_past = std::numeric_limits<int64_t>::min() + 1000;
  const std::string invalid = "(error) ERR invalid expire time in 'set' command";
  CHECK(to_string(server.execute(conn, {"SET", "k", "v", "PX", "9223372036854775807"}, 1'700'000'000'000)) == invalid);
  CHECK(to_string(server.execute(conn, {"SET", "k", "v", "PX", "100"}, far_past)) == invalid);
  CHECK(to_string(server.execute(conn, {"SET", "k", "v"}, far_past)) == "OK");
  CHECK(to_string(server.execute(conn, {"PEXPIRE", "k", "-9223372036854775807"}, far_past)).starts_with("(error) ERR"));
  CHECK(to_string(server.execute(conn, {"SET", "k", "v", "PXAT", "9223372036854775000"}, 0)) == "OK");
  CHECK(server.execute(conn, {"PTTL", "k"}, far_past).integer == std::numeric_limits<int64_t>::max());
}

TEST_CASE("The console's clock refuses to advance past its end") {
  std::istringstream in(".advance 9223372036854775807\nTIME\n.advance 5\n");
  std::ostringstream out, err;
  CHECK(run_console(in, out, err) == 0);
  CHECK(err.str().find("would take the clock outside") != std::string::npos);
  CHECK(out.str().find("1700000000") != std::string::npos);  // the clock did not move
}

TEST_CASE("With fail_on_error the console exits 1 after an error reply or a bad line") {
  auto status = [](const std::string& script, bool fail_on_error) {
    std::istringstream in(script);
    std::ostringstream out, err;
    return run_console(in, out, err, fail_on_error);
  };
  CHECK(status("SET k v\nGET k\n", true) == 0);
  CHECK(status("SET k v\nINCR k\nGET k\n", true) == 1);
  CHECK(status("SET \"unbalanced\n", true) == 1);
  CHECK(status(".nonsense\n", true) == 1);
  CHECK(status("INCR k k k\n", false) == 0);
}

TEST_CASE("A negative random count past the model's limit is refused, not built") {
  Server server;
  const ConnectionId conn = server.connect();
  server.execute(conn, {"SADD", "s", "a"}, 0);
  server.execute(conn, {"HSET", "h", "f", "1"}, 0);
  server.execute(conn, {"ZADD", "z", "1", "a"}, 0);
  const std::string refused = "(error) " + std::string(kRandomCountTooBig);
  CHECK(to_string(server.execute(conn, {"SRANDMEMBER", "s", "-100000000"}, 0)) == refused);
  CHECK(to_string(server.execute(conn, {"HRANDFIELD", "h", "-1000001"}, 0)) == refused);
  CHECK(to_string(server.execute(conn, {"ZRANDMEMBER", "z", "-1000001"}, 0)) == refused);
  CHECK(server.execute(conn, {"SRANDMEMBER", "s", "-1000"}, 0).elements.size() == 1000);
}

TEST_CASE("A script's budget counts the data its commands walk and the replies they build") {
  Server server;
  const ConnectionId conn = server.connect();
  const std::string budget = "(error) BUSY Script exceeded the instruction budget";
  // Big replies in a loop: few Lua instructions, much work in the model.
  server.execute(conn, {"SADD", "s", "a"}, 0);
  CHECK(to_string(server.execute(conn,
                                 {"EVAL", "for i=1,100000 do redis.call('srandmember','s',-100000) end return 1", "0"}, 0))
            .starts_with(budget));
  // Big values walked with a small reply.
  CHECK(to_string(server.execute(
                      conn, {"EVAL", "for i=1,50000 do redis.call('sadd','big',i) end return 1", "0"}, 0)) ==
        "(integer) 1");
  CHECK(to_string(server.execute(conn,
                                 {"EVAL", "for i=1,100000 do redis.call('sunionstore','u','big','big') end return 1",
                                  "0"},
                                 0))
            .starts_with(budget));
  // The lock scripts' few small calls stay far from the budget.
  CHECK(to_string(server.execute(conn,
                                 {"EVAL",
                                  "for i=1,1000 do redis.call('set','k','v','px',100) "
                                  "if redis.call('get','k') == 'v' then redis.call('del','k') end end return 1",
                                  "0"},
                                 0)) == "(integer) 1");
}
