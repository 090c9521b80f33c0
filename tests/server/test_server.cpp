// The server front-end with real clients (hiredis, plain sockets): commands, pipelining,
// transactions per connection, the connection commands clients send, time control.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <thread>

#include "raw_client.hpp"
#include "server_fixture.hpp"

using namespace locksim::server;
using namespace locksim::server::testing;

TEST_CASE("hiredis runs commands and pipelines against the server", "[server]") {
  RunningServer s;
  Hiredis c(s.port());
  CHECK(c.command("PING") == "PONG");
  CHECK(c.command("SET %s %s", "k", "v") == "OK");
  CHECK(c.command("GET %s", "k") == "\"v\"");
  CHECK(c.command("GET %s", "missing") == "(nil)");
  for (int i = 0; i < 100; ++i) redisAppendCommand(c.ctx, "INCR n");
  for (int i = 1; i <= 100; ++i) REQUIRE(c.next_reply() == "(integer) " + std::to_string(i));
  CHECK(c.command("HSET h a 1 b 2") == "(integer) 2");
  CHECK(c.command("HGETALL h") == "[\"a\", \"1\", \"b\", \"2\"]");
  CHECK(c.command("NOSUCH x") == "(error) ERR unknown command 'NOSUCH', with args beginning with: 'x' ");
}

TEST_CASE("MULTI and WATCH belong to each connection", "[server]") {
  RunningServer s;
  Hiredis a(s.port()), b(s.port());
  CHECK(a.command("WATCH lock") == "OK");
  CHECK(a.command("MULTI") == "OK");
  CHECK(a.command("SET lock a") == "QUEUED");
  CHECK(b.command("SET lock b") == "OK");  // b is not in a transaction
  CHECK(a.command("EXEC") == "(nil)");     // a's WATCHed key changed
  CHECK(a.command("GET lock") == "\"b\"");
  CHECK(a.command("MULTI") == "OK");
  CHECK(a.command("INCR c") == "QUEUED");
  CHECK(b.command("GET c") == "(nil)");  // not yet run
  CHECK(a.command("EXEC") == "[(integer) 1]");
}

TEST_CASE("manual time: a TTL expires only when the clock is advanced", "[server]") {
  RunningServer s;
  Hiredis c(s.port());
  CHECK(c.command("SET lock me PX 1000") == "OK");
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  CHECK(c.command("GET lock") == "\"me\"");  // real time passed, the server's did not
  const int64_t t0 = s.server.now_ms();
  CHECK(c.command("LOCKSIM.ADVANCE 999") == "(integer) " + std::to_string(t0 + 999));
  CHECK(c.command("PTTL lock") == "(integer) 1");
  s.server.advance(1);                       // the same, from C++
  CHECK(c.command("GET lock") == "\"me\"");  // as in Redis, a key lives until its deadline has passed
  s.server.advance(1);
  CHECK(c.command("GET lock") == "(nil)");
  CHECK(c.command("LOCKSIM.TIME") == "(integer) " + std::to_string(t0 + 1001));
  CHECK(c.command("LOCKSIM.JUMP -500") == "(integer) " + std::to_string(t0 + 501));
  CHECK(c.command("LOCKSIM.ADVANCE -1") == "(error) ERR value is not an integer or out of range");
}

TEST_CASE("wall time runs, FREEZE stops it and RESUME continues without a jump", "[server]") {
  RunningServer s(test_options(TimeMode::Wall));
  Hiredis c(s.port());
  CHECK(c.command("SET k v PX 150") == "OK");
  CHECK(c.command("LOCKSIM.FREEZE") == "OK");
  const int64_t frozen = s.server.now_ms();
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  CHECK(s.server.now_ms() == frozen);
  CHECK(c.command("EXISTS k") == "(integer) 1");
  CHECK(c.command("LOCKSIM.RESUME") == "OK");
  CHECK(s.server.now_ms() - frozen < 100);
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  CHECK(c.command("EXISTS k") == "(integer) 0");
}

TEST_CASE("HELLO 3 switches the connection to RESP3", "[server]") {
  RunningServer s;
  RawClient c(s.port());
  CHECK(c.roundtrip("HELLO 4\r\n", 40) == "-NOPROTO unsupported protocol version\r\n");
  std::string hello = c.roundtrip("HELLO 3\r\n", 4096, 300);
  CHECK(hello.starts_with("%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n"));
  CHECK(hello.find("$5\r\nproto\r\n:3\r\n") != std::string::npos);
  CHECK(c.roundtrip("GET nothing\r\n", 3) == "_\r\n");
  c.send("HSET h f v\r\n");
  CHECK(c.read(4) == ":1\r\n");
  CHECK(c.roundtrip("HGETALL h\r\n", 18) == "%1\r\n$1\r\nf\r\n$1\r\nv\r\n");
  CHECK(c.roundtrip("HELLO 2\r\n", 4096, 300).starts_with("*14\r\n"));
  CHECK(c.roundtrip("GET nothing\r\n", 5) == "$-1\r\n");
}

TEST_CASE("AUTH and --requirepass", "[server]") {
  Options options = test_options();
  options.requirepass = "s3cret";
  RunningServer s(options);
  Hiredis c(s.port());
  CHECK(c.command("GET k") == "(error) NOAUTH Authentication required.");
  CHECK(c.command("AUTH wrong") == "(error) WRONGPASS invalid username-password pair or user is disabled.");
  CHECK(c.command("HELLO 3").starts_with("(error) NOAUTH HELLO must be called with the client already authenticated"));
  CHECK(c.command("AUTH default s3cret") == "OK");
  CHECK(c.command("GET k") == "(nil)");
  RawClient raw(s.port());
  std::string closed;
  raw.send("*11\r\n");  // more than 10 arguments before AUTH
  CHECK(raw.read_until_closed(closed));
  CHECK(closed == "-ERR Protocol error: unauthenticated multibulk length\r\n");
}

TEST_CASE("CLIENT SETNAME GETNAME ID INFO", "[server]") {
  RunningServer s;
  Hiredis a(s.port()), b(s.port());
  const std::string id_a = a.command("CLIENT ID"), id_b = b.command("CLIENT ID");
  CHECK(id_a != id_b);
  CHECK(a.command("CLIENT GETNAME") == "(nil)");
  CHECK(a.command("CLIENT SETNAME worker-1") == "OK");
  CHECK(a.command("CLIENT GETNAME") == "\"worker-1\"");
  CHECK(a.command("CLIENT SETNAME %s", "has space") ==
        "(error) ERR Client names cannot contain spaces, newlines or special characters.");
  const std::string info = a.command("CLIENT INFO");
  CHECK(info.find("id=" + id_a.substr(10) + " ") != std::string::npos);
  CHECK(info.find(" name=worker-1 ") != std::string::npos);
  CHECK(info.find("resp=2") != std::string::npos);
  CHECK(b.command("CLIENT LIST").find("name=worker-1") != std::string::npos);
  CHECK(a.command("CONFIG GET save") == "[\"save\", \"\"]");
  CHECK(a.command("CONFIG GET appendonly") == "[\"appendonly\", \"no\"]");
  CHECK(a.command("CONFIG SET save %s list-max-listpack-size 4", "") == "OK");  // no files, no encodings
  CHECK(a.command("CONFIG SET no-such-parameter 1").starts_with("(error) ERR "));
  CHECK(a.command("MEMORY USAGE nokey") == "(nil)");
  CHECK(a.command("SET k abc") == "OK");
  CHECK(a.command("MEMORY USAGE k").starts_with("(integer) "));
  CHECK(a.command("SELECT 0") == "OK");
  CHECK(a.command("SELECT 99") == "(error) ERR DB index is out of range");
  CHECK(a.command("QUIT") == "OK");
}

TEST_CASE("the server listens on a Unix socket too", "[server]") {
  Options options = test_options();
  options.port = -1;
  options.unix_path = "/tmp/locksim-serve-test-" + std::to_string(::getpid()) + ".sock";
  {
    RunningServer s(options);
    RawClient c(options.unix_path);
    CHECK(c.roundtrip("*1\r\n$4\r\nPING\r\n", 7) == "+PONG\r\n");
  }
  CHECK(::access(options.unix_path.c_str(), F_OK) != 0);  // removed on stop
}

TEST_CASE("maxclients refuses the connection beyond the cap with Redis's error", "[server]") {
  Options options = test_options();
  options.maxclients = 2;
  RunningServer s(options);
  Hiredis a(s.port()), b(s.port());
  CHECK(a.command("PING") == "PONG");
  CHECK(b.command("PING") == "PONG");
  RawClient third(s.port());
  std::string reply;
  CHECK(third.read_until_closed(reply));
  CHECK(reply == "-ERR max number of clients reached\r\n");
  CHECK(a.command("PING") == "PONG");
}
