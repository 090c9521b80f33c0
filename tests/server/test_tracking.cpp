// CLIENT TRACKING's invalidation messages (issue 31), byte for byte as redis-server
// 7.0.15 sends them: RESP3 pushes after a read key changes (after the reply when the
// reader changed it itself), NOLOOP, BCAST with PREFIX, REDIRECT to a RESP2 client
// subscribed to __redis__:invalidate, a broken redirect, FLUSHALL's null.
#include <catch2/catch.hpp>

#include <string>

#include "raw_client.hpp"
#include "server_fixture.hpp"

using namespace locksim::server;
using namespace locksim::server::testing;

namespace {
std::string resp_command(std::initializer_list<std::string> args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const auto& a : args) out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return out;
}
std::string invalidate(const std::string& key) {
  return ">2\r\n$10\r\ninvalidate\r\n*1\r\n$" + std::to_string(key.size()) + "\r\n" + key + "\r\n";
}
// Sends and reads what arrives within a short wait (replies and pushes).
std::string exchange(RawClient& c, const std::string& bytes, size_t expected) {
  c.send(bytes);
  return c.read(expected, 1000);
}
void switch_to_resp3(RawClient& c) {
  c.send(resp_command({"HELLO", "3"}));
  c.read(1 << 20, 200);  // the whole map, whatever its length
}
}  // namespace

TEST_CASE("CLIENT TRACKING: a read key that changes is invalidated once", "[server][tracking]") {
  RunningServer s;
  RawClient reader(s.port()), writer(s.port());
  switch_to_resp3(reader);
  REQUIRE(exchange(reader, resp_command({"CLIENT", "TRACKING", "on"}), 5) == "+OK\r\n");
  REQUIRE(exchange(reader, resp_command({"GET", "k"}), 3) == "_\r\n");
  REQUIRE(exchange(writer, resp_command({"SET", "k", "1"}), 5) == "+OK\r\n");
  CHECK(reader.read(invalidate("k").size()) == invalidate("k"));
  REQUIRE(exchange(writer, resp_command({"SET", "k", "2"}), 5) == "+OK\r\n");  // no longer tracked: nothing
  CHECK(reader.read(1, 200).empty());
  // Its own write: the reply first, then the push.
  REQUIRE(exchange(reader, resp_command({"GET", "k3"}), 3) == "_\r\n");
  CHECK(exchange(reader, resp_command({"SET", "k3", "x"}), 5 + invalidate("k3").size()) == "+OK\r\n" + invalidate("k3"));
  // A DEL that deletes nothing changes nothing.
  REQUIRE(exchange(reader, resp_command({"GET", "k2"}), 3) == "_\r\n");
  REQUIRE(exchange(writer, resp_command({"DEL", "k2"}), 4) == ":0\r\n");
  CHECK(reader.read(1, 200).empty());
  CHECK(exchange(writer, resp_command({"FLUSHALL"}), 5) == "+OK\r\n");
  CHECK(reader.read(22) == ">2\r\n$10\r\ninvalidate\r\n_\r\n");
}

TEST_CASE("CLIENT TRACKING: NOLOOP, BCAST PREFIX, REDIRECT, a broken redirect", "[server][tracking]") {
  RunningServer s;
  RawClient writer(s.port());
  {  // NOLOOP: its own writes are not reported to it
    RawClient c(s.port());
    switch_to_resp3(c);
    REQUIRE(exchange(c, resp_command({"CLIENT", "TRACKING", "on", "NOLOOP"}), 5) == "+OK\r\n");
    REQUIRE(exchange(c, resp_command({"GET", "n"}), 3) == "_\r\n");
    CHECK(exchange(c, resp_command({"SET", "n", "1"}), 5 + 1) == "+OK\r\n");
  }
  {  // BCAST: every key under a prefix, read or not
    RawClient c(s.port());
    switch_to_resp3(c);
    REQUIRE(exchange(c, resp_command({"CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "p:"}), 5) == "+OK\r\n");
    REQUIRE(exchange(writer, resp_command({"SET", "q:1", "x"}), 5) == "+OK\r\n");
    REQUIRE(exchange(writer, resp_command({"SET", "p:1", "x"}), 5) == "+OK\r\n");
    CHECK(c.read(invalidate("p:1").size() + 1, 500) == invalidate("p:1"));
  }
  {  // REDIRECT to a RESP2 client subscribed to __redis__:invalidate
    RawClient c(s.port()), sink(s.port());
    const std::string id = exchange(sink, resp_command({"CLIENT", "ID"}), 3);
    REQUIRE(exchange(sink, resp_command({"SUBSCRIBE", "__redis__:invalidate"}), 51).starts_with("*3\r\n$9\r\nsubscribe"));
    REQUIRE(exchange(c, resp_command({"CLIENT", "TRACKING", "on", "REDIRECT", id.substr(1, id.size() - 3)}), 5) == "+OK\r\n");
    REQUIRE(exchange(c, resp_command({"GET", "r"}), 5) == "$-1\r\n");
    REQUIRE(exchange(writer, resp_command({"SET", "r", "1"}), 5) == "+OK\r\n");
    const std::string message = "*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n*1\r\n$1\r\nr\r\n";
    CHECK(sink.read(message.size()) == message);
  }
  {  // the client it redirects to is gone
    RawClient c(s.port());
    std::string id;
    {
      RawClient gone(s.port());
      id = exchange(gone, resp_command({"CLIENT", "ID"}), 3);
    }
    id = id.substr(1, id.size() - 3);
    switch_to_resp3(c);
    const std::string tracking = exchange(c, resp_command({"CLIENT", "TRACKING", "on", "REDIRECT", id}), 5);
    if (tracking == "+OK\r\n") {  // (if the close was seen before, Redis refuses the id)
      REQUIRE(exchange(c, resp_command({"GET", "w"}), 3) == "_\r\n");
      REQUIRE(exchange(writer, resp_command({"SET", "w", "1"}), 5) == "+OK\r\n");
      const std::string broken = ">2\r\n$21\r\ntracking-redir-broken\r\n:" + id + "\r\n";
      CHECK(c.read(broken.size()) == broken);
    } else {
      CHECK(tracking.starts_with("-ERR The client ID you want redirect to does not exist"));
    }
  }
}

TEST_CASE("CLIENT TRACKING OPTIN tracks only after CLIENT CACHING yes", "[server][tracking]") {
  RunningServer s;
  RawClient c(s.port()), writer(s.port());
  switch_to_resp3(c);
  REQUIRE(exchange(c, resp_command({"CLIENT", "TRACKING", "on", "OPTIN"}), 5) == "+OK\r\n");
  REQUIRE(exchange(c, resp_command({"GET", "a"}), 3) == "_\r\n");
  REQUIRE(exchange(c, resp_command({"CLIENT", "CACHING", "yes"}), 5) == "+OK\r\n");
  REQUIRE(exchange(c, resp_command({"GET", "b"}), 3) == "_\r\n");
  REQUIRE(exchange(writer, resp_command({"MSET", "a", "1", "b", "1"}), 5) == "+OK\r\n");
  CHECK(c.read(invalidate("b").size() + 1, 500) == invalidate("b"));
}
