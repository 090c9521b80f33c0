// RESP edge cases as Redis 7.0 reads them (networking.c): partial frames, pipelines,
// inline commands, and malformed input answered with Redis's own protocol error text,
// after which the connection is closed.
#include <catch2/catch.hpp>

#include <thread>

#include "raw_client.hpp"
#include "server_fixture.hpp"

using namespace locksim::server;
using namespace locksim::server::testing;

namespace {
// Sends bytes, expects exactly `error` and then the connection closing.
void check_protocol_error(int port, const std::string& bytes, const std::string& error) {
  RawClient c(port);
  c.send(bytes);
  std::string got;
  INFO("input: " << bytes.substr(0, 40));
  CHECK(c.read_until_closed(got));
  CHECK(got == "-ERR Protocol error: " + error + "\r\n");
}
}  // namespace

TEST_CASE("a command split across many writes is answered once complete", "[server]") {
  RunningServer s;
  RawClient c(s.port());
  const std::string set = "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nva\r\nl\r\n";
  for (char byte : set) {
    c.send(std::string(1, byte));
    if (byte != '\n') CHECK(c.read(1, 20).empty());  // nothing until the last byte
  }
  CHECK(c.read(5) == "+OK\r\n");
  CHECK(c.roundtrip("*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n", 11) == "$5\r\nva\r\nl\r\n");
}

TEST_CASE("a pipeline of many commands in one write is answered in order", "[server]") {
  RunningServer s;
  RawClient c(s.port());
  std::string batch, expected;
  for (int i = 1; i <= 5000; ++i) {
    batch += "*2\r\n$4\r\nINCR\r\n$1\r\nn\r\n";
    expected += ":" + std::to_string(i) + "\r\n";
  }
  batch += "PING\r\n";  // inline and multibulk may be mixed
  expected += "+PONG\r\n";
  CHECK(c.roundtrip(batch, expected.size()) == expected);
}

TEST_CASE("inline commands: quoting as redis-cli, empty lines and empty arrays skipped", "[server]") {
  RunningServer s;
  RawClient c(s.port());
  CHECK(c.roundtrip("SET k \"a b\\x41\"\r\n", 5) == "+OK\r\n");
  CHECK(c.roundtrip("GET k\n", 10) == "$4\r\na bA\r\n");
  CHECK(c.roundtrip("\r\n\n*0\r\n*-1\r\nPING\r\n", 7) == "+PONG\r\n");
  CHECK(c.roundtrip("  ECHO   'it''s' \r\n", 20).starts_with("-ERR Protocol error: unbalanced quotes"));
}

TEST_CASE("malformed RESP gets Redis's protocol error and the connection is closed", "[server]") {
  RunningServer s;
  check_protocol_error(s.port(), "*x\r\n", "invalid multibulk length");
  check_protocol_error(s.port(), "*2147483648\r\n", "invalid multibulk length");
  check_protocol_error(s.port(), "*1\r\n+PING\r\n", "expected '$', got '+'");
  check_protocol_error(s.port(), "*1\r\n$-1\r\n", "invalid bulk length");
  check_protocol_error(s.port(), "*1\r\n$abc\r\n", "invalid bulk length");
  check_protocol_error(s.port(), "*1\r\n$536870913\r\n", "invalid bulk length");       // proto-max-bulk-len
  check_protocol_error(s.port(), "*1\r\n$0000003\r\nfoo\r\n", "invalid bulk length");  // string2ll: no leading 0
  check_protocol_error(s.port(), "*+1\r\n$4\r\nPING\r\n", "invalid multibulk length");
  check_protocol_error(s.port(), "SET k \"unbalanced\r\n", "unbalanced quotes in request");
  check_protocol_error(s.port(), std::string(70 * 1024, 'a'), "too big inline request");
  check_protocol_error(s.port(), "*" + std::string(70 * 1024, '1'), "too big mbulk count string");
  check_protocol_error(s.port(), "*1\r\n$" + std::string(70 * 1024, '1'), "too big bulk count string");
  // Replies to the commands before the bad one are still sent.
  RawClient c(s.port());
  c.send("PING\r\n*1\r\n$x\r\nPING\r\n");
  std::string got;
  CHECK(c.read_until_closed(got));
  CHECK(got == "+PONG\r\n-ERR Protocol error: invalid bulk length\r\n");
}

TEST_CASE("a huge declared bulk length is accepted and read as it arrives", "[server]") {
  RunningServer s;
  RawClient c(s.port());
  const size_t size = 3 * 1024 * 1024;
  c.send("*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$" + std::to_string(size) + "\r\n");
  c.send(std::string(size / 2, 'x'));
  CHECK(c.read(1, 50).empty());
  c.send(std::string(size - size / 2, 'x') + "\r\n");
  CHECK(c.read(5) == "+OK\r\n");
  CHECK(c.roundtrip("STRLEN big\r\n", 10) == ":3145728\r\n");
}

TEST_CASE("a client that sends garbage or reads nothing does not stall the others", "[server]") {
  RunningServer s;
  RawClient filler(s.port());
  REQUIRE(filler.roundtrip("SET big " + std::string(60000, 'v') + "\r\n", 5) == "+OK\r\n");
  // 20000 GETs of 60 KB = 1.2 GB of replies the client never reads.
  std::string gets;
  for (int i = 0; i < 20000; ++i) gets += "GET big\r\n";
  RawClient hog(s.port());
  std::thread sender([&] {
    try {
      hog.send(gets);
    } catch (...) {  // the send blocks once the server stops reading; the socket closes at the end
    }
  });
  RawClient garbage(s.port());
  garbage.send(std::string("\x01\x02\xff garbage without newline"));
  Hiredis other(s.port());
  for (int i = 0; i < 50; ++i) REQUIRE(other.command("INCR n") == "(integer) " + std::to_string(i + 1));
  CHECK(s.server.drop_all() == 4);
  sender.join();
}
