// Replies without a request: pub/sub messages (arrays in RESP2, '>' pushes in RESP3)
// and the late replies of blocked commands, written to the right connection.
#include <catch2/catch.hpp>

#include <thread>

#include "raw_client.hpp"
#include "server_fixture.hpp"

using namespace locksim::server;
using namespace locksim::server::testing;

TEST_CASE("pub/sub: a subscriber receives what another connection publishes", "[server]") {
  RunningServer s;
  Hiredis sub(s.port()), pub(s.port());
  CHECK(sub.command("SUBSCRIBE news weather") == "[\"subscribe\", \"news\", (integer) 1]");
  CHECK(sub.next_reply() == "[\"subscribe\", \"weather\", (integer) 2]");
  CHECK(pub.command("PUBLISH news hello") == "(integer) 1");
  CHECK(pub.command("PUBLISH nobody x") == "(integer) 0");
  CHECK(sub.next_reply() == "[\"message\", \"news\", \"hello\"]");
  CHECK(sub.command("UNSUBSCRIBE news") == "[\"unsubscribe\", \"news\", (integer) 1]");
  CHECK(pub.command("PUBLISH news again") == "(integer) 0");
  CHECK(pub.command("PUBLISH weather rain") == "(integer) 1");
  CHECK(sub.next_reply() == "[\"message\", \"weather\", \"rain\"]");
}

TEST_CASE("pub/sub in RESP3: notices and messages are pushes", "[server]") {
  RunningServer s;
  RawClient sub(s.port());
  Hiredis pub(s.port());
  REQUIRE(sub.roundtrip("HELLO 3\r\n", 4096, 300).starts_with("%7\r\n"));
  const std::string notice = ">3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n";
  CHECK(sub.roundtrip("SUBSCRIBE ch\r\n", notice.size()) == notice);
  CHECK(pub.command("PUBLISH ch hi") == "(integer) 1");
  const std::string message = ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n";
  CHECK(sub.read(message.size()) == message);
}

TEST_CASE("BLPOP blocks its connection until another one pushes, what it sent next waits", "[server]") {
  RunningServer s;
  RawClient waiter(s.port());
  Hiredis pusher(s.port());
  waiter.send("BLPOP queue 0\r\nPING\r\n");
  CHECK(waiter.read(1, 100).empty());
  CHECK(pusher.command("RPUSH queue job") == "(integer) 1");
  const std::string expected = "*2\r\n$5\r\nqueue\r\n$3\r\njob\r\n+PONG\r\n";
  CHECK(waiter.read(expected.size()) == expected);
}

TEST_CASE("CLIENT UNBLOCK from another connection answers the blocked one now, in MULTI too", "[server]") {
  RunningServer s;
  RawClient waiter(s.port());
  Hiredis admin(s.port());
  waiter.send("CLIENT ID\r\n");
  const std::string id_line = waiter.read(4);  // ":<id>\r\n": the first connections have one-digit ids
  REQUIRE((id_line.starts_with(":") && id_line.ends_with("\r\n")));
  const std::string id = id_line.substr(1, 1);
  waiter.send("BLPOP queue 0\r\n");
  CHECK(waiter.read(1, 100).empty());
  CHECK(admin.command(("CLIENT UNBLOCK " + id + " ERROR").c_str()) == "(integer) 1");
  const std::string error = "-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n";
  CHECK(waiter.read(error.size()) == error);
  waiter.send("BLPOP queue 0\r\n");
  CHECK(waiter.read(1, 100).empty());
  CHECK(admin.command("MULTI") == "OK");
  CHECK(admin.command(("CLIENT UNBLOCK " + id).c_str()) == "QUEUED");
  CHECK(admin.command("EXEC") == "[(integer) 1]");
  CHECK(waiter.read(5) == "*-1\r\n");
  CHECK(admin.command(("CLIENT UNBLOCK " + id).c_str()) == "(integer) 0");
}

TEST_CASE("BLPOP times out on the server clock: in manual time only once advanced", "[server]") {
  RunningServer s;
  RawClient waiter(s.port());
  waiter.send("BLPOP queue 1\r\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  CHECK(waiter.read(1, 50).empty());
  s.server.advance(1001);
  CHECK(waiter.read(5) == "*-1\r\n");
}

TEST_CASE("a subscriber that reads nothing is disconnected at the pub/sub output limit", "[server]") {
  RunningServer s;
  RawClient sub(s.port());
  REQUIRE(sub.roundtrip("SUBSCRIBE ch\r\n", 33).starts_with("*3\r\n"));
  Hiredis pub(s.port());
  const std::string payload(1024 * 1024, 'p');
  int delivered = 0;
  for (int i = 0; i < 100; ++i)
    delivered += pub.command("PUBLISH ch %b", payload.data(), payload.size()) == "(integer) 1";
  CHECK(delivered < 100);  // it was dropped once 32 MB waited for it
  CHECK(pub.command("PING") == "PONG");
}
