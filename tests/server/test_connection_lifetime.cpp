// Connection lifetime (issue 33): a connection can end - closed by its client, killed by
// itself or another (CLIENT KILL), dropped (LOCKSIM.DROP), restarted away - while it holds
// state: a MULTI queue, WATCHed keys, a blocked pop, subscriptions, pending replies. Its
// state is released after the command that ended it, in one place, and the server, the
// other clients and the model go on as if it had never been there.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "raw_client.hpp"
#include "resp_checks.hpp"
#include "server_fixture.hpp"

using namespace locksim::server;
using namespace locksim::server::testing;

namespace {
// Retired connections are released after the command that closed them, or at once
// when nothing runs: the count settles within a moment.
bool settles_at(Server& server, size_t clients) {
  for (int i = 0; i < 200; ++i) {
    if (server.client_count() == clients) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

std::string client_id(RawClient& c) {
  c.send("CLIENT ID\r\n");
  std::string line = c.read(3);
  while (!line.ends_with("\r\n")) line += c.read(1);
  return line.substr(1, line.size() - 3);
}

std::string subscribe_many(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += resp({"SUBSCRIBE", "ch" + std::to_string(i)});
  return out;
}
}  // namespace

TEST_CASE("lifetime: CLIENT KILL of itself inside MULTI, EXEC runs on, then the connection goes", "[server]") {
  RunningServer s;
  RawClient victim(s.port());
  Hiredis other(s.port());
  const std::string id = client_id(victim);
  // SKIPME no: Redis's CLIENT KILL spares its caller unless told (as serve does since issue 31).
  victim.send(resp({"MULTI"}) + resp({"CLIENT", "KILL", "ID", id, "SKIPME", "no"}) + resp({"SET", "k", "v"}) +
              resp({"RPUSH", "l", "a"}) + subscribe_many(40) + resp({"EXEC"}) + resp({"PING"}));
  std::string replies;
  CHECK(victim.read_until_closed(replies, 3000));
  CHECK(replies.starts_with("+OK\r\n+QUEUED\r\n"));
  CHECK(replies.find("*43\r\n:1\r\n+OK\r\n:1\r\n") != std::string::npos);  // EXEC's reply, then closed
  CHECK(replies.find("+PONG") == std::string::npos);                       // nothing after the killing command
  CHECK(settles_at(s.server, 1));
  CHECK(other.command("PUBLISH ch7 hello") == "(integer) 0");  // its subscriptions went with it
  CHECK(other.command("GET k") == "\"v\"");
  CHECK(other.command("LRANGE l 0 -1") == "[\"a\"]");
}

TEST_CASE("lifetime: CLIENT KILL of itself answers, then closes", "[server]") {
  RunningServer s;
  RawClient victim(s.port());
  const std::string id = client_id(victim);
  CHECK(victim.roundtrip(resp({"CLIENT", "KILL", "ID", id}), 4) == ":0\r\n");  // SKIPME yes, Redis's default
  victim.send(resp({"CLIENT", "KILL", "ID", id, "SKIPME", "no"}) + resp({"PING"}));
  std::string replies;
  CHECK(victim.read_until_closed(replies));
  CHECK(replies == ":1\r\n");
  CHECK(settles_at(s.server, 0));
}

TEST_CASE("lifetime: a client that closes inside MULTI with WATCHed keys", "[server]") {
  RunningServer s;
  Hiredis other(s.port());
  {
    RawClient c(s.port());
    c.send(resp({"WATCH", "w"}) + resp({"MULTI"}) + resp({"SET", "w", "mine"}));
    CHECK(c.read(19) == "+OK\r\n+OK\r\n+QUEUED\r\n");
  }
  CHECK(settles_at(s.server, 1));
  CHECK(other.command("SET w theirs") == "OK");
  CHECK(other.command("GET w") == "\"theirs\"");
  CHECK(other.command("MULTI") == "OK");
  CHECK(other.command("EXEC") == "[]");
}

TEST_CASE("lifetime: CLIENT KILL of another connection in MULTI, WATCHing, or blocked", "[server]") {
  RunningServer s;
  Hiredis admin(s.port());
  RawClient in_multi(s.port()), watching(s.port()), blocked(s.port());
  const std::string multi_id = client_id(in_multi), watch_id = client_id(watching), blocked_id = client_id(blocked);
  in_multi.send(resp({"MULTI"}) + resp({"SET", "k", "from-multi"}));
  CHECK(in_multi.read(14) == "+OK\r\n+QUEUED\r\n");
  watching.send(resp({"WATCH", "k"}));
  CHECK(watching.read(5) == "+OK\r\n");
  blocked.send(resp({"BLPOP", "queue", "0"}));
  CHECK(blocked.read(1, 100).empty());
  for (const std::string& id : {multi_id, watch_id, blocked_id})
    CHECK(admin.command(("CLIENT KILL ID " + id).c_str()) == "(integer) 1");
  std::string rest;
  CHECK(in_multi.read_until_closed(rest));
  CHECK(watching.read_until_closed(rest));
  CHECK(blocked.read_until_closed(rest));
  CHECK(settles_at(s.server, 1));
  CHECK(admin.command("RPUSH queue job") == "(integer) 1");  // nobody pops it: the blocked pop is gone
  CHECK(admin.command("LLEN queue") == "(integer) 1");
  CHECK(admin.command("GET k") == "(nil)");  // the killed MULTI never ran
  CHECK(admin.command(("CLIENT KILL ID " + multi_id).c_str()) == "(integer) 0");
}

TEST_CASE("lifetime: subscriptions of a closed, dropped or killed subscriber are released", "[server]") {
  RunningServer s;
  Hiredis admin(s.port());
  RawClient closes(s.port()), dropped(s.port()), killed(s.port());
  const std::string dropped_id = client_id(dropped), killed_id = client_id(killed);
  for (RawClient* c : {&closes, &dropped, &killed}) {
    c->send(subscribe_many(3));
    CHECK(c->read(3 * 32).size() == 3 * 32);  // "*3 $9 subscribe $3 chN :n" is 32 bytes
  }
  CHECK(admin.command("PUBLISH ch1 x") == "(integer) 3");
  CHECK(admin.command(("LOCKSIM.DROP " + dropped_id).c_str()) == "(integer) 1");
  CHECK(admin.command(("CLIENT KILL ID " + killed_id).c_str()) == "(integer) 1");
  CHECK(admin.command("PUBLISH ch1 x") == "(integer) 1");
  closes.send(resp({"QUIT"}));
  std::string rest;
  CHECK(closes.read_until_closed(rest));
  CHECK(settles_at(s.server, 1));
  CHECK(admin.command("PUBLISH ch1 x") == "(integer) 0");
  CHECK(admin.command("PUBSUB NUMSUB ch1") == "[\"ch1\", (integer) 0]");
}

TEST_CASE("lifetime: LOCKSIM.DROP and LOCKSIM.RESTART queued in MULTI, with others blocked and subscribed", "[server]") {
  RunningServer s;
  RawClient blocked(s.port()), subscriber(s.port()), admin(s.port());
  blocked.send(resp({"BLPOP", "queue", "0"}));
  CHECK(blocked.read(1, 100).empty());
  subscriber.send(resp({"SUBSCRIBE", "ch"}));
  CHECK(subscriber.read(31).size() == 31);
  admin.send(resp({"MULTI"}) + resp({"SET", "k", "v"}) + resp({"LOCKSIM.RESTART"}) + resp({"RPUSH", "queue", "a"}) +
             resp({"PUBLISH", "ch", "m"}) + resp({"LOCKSIM.DROP"}) + resp({"EXEC"}) + resp({"PING"}));
  std::string replies;
  CHECK(admin.read_until_closed(replies, 3000));
  // Inside EXEC the others are closed but not yet released: the push finds no consumer...
  CHECK(replies.find("*5\r\n+OK\r\n+OK\r\n:1\r\n:0\r\n:1\r\n") != std::string::npos);
  CHECK(replies.find("PONG") == std::string::npos);
  std::string rest;
  CHECK(blocked.read_until_closed(rest));
  CHECK(rest.empty());  // ... and the blocked pop got nothing
  CHECK(subscriber.read_until_closed(rest));
  CHECK(settles_at(s.server, 0));
  Hiredis after(s.port());
  CHECK(after.command("LRANGE queue 0 -1") == "[\"a\"]");
  CHECK(after.command("GET k") == "(nil)");
}

TEST_CASE("lifetime: a client killed with replies pending that it never read", "[server]") {
  RunningServer s;
  Hiredis admin(s.port());
  RawClient lazy(s.port());
  const std::string id = client_id(lazy);
  CHECK(admin.command("SET big %s", std::string(1 << 20, 'x').c_str()) == "OK");
  std::string pipeline;
  for (int i = 0; i < 50; ++i) pipeline += resp({"GET", "big"});
  lazy.send(pipeline);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(admin.command(("CLIENT KILL ID " + id).c_str()) == "(integer) 1");
  CHECK(settles_at(s.server, 1));
  CHECK(admin.command("PING") == "PONG");
}

TEST_CASE("lifetime: connections opened and ended in every order leave nothing behind", "[server]") {
  RunningServer s;
  Hiredis admin(s.port());
  for (int round = 0; round < 20; ++round) {
    RawClient a(s.port()), b(s.port());
    const std::string a_id = client_id(a), b_id = client_id(b);
    a.send(resp({"MULTI"}) + resp({"CLIENT", "KILL", "ID", b_id}) + resp({"SUBSCRIBE", "x"}) + resp({"EXEC"}));
    b.send(resp({"BLPOP", "q", "0"}));
    std::string rest;
    CHECK(a.read(5).starts_with("+OK\r\n"));
    if (round % 2) CHECK(admin.command(("CLIENT KILL ID " + a_id).c_str()) == "(integer) 1");
    CHECK(b.read_until_closed(rest));
  }
  CHECK(settles_at(s.server, 1));
  CHECK(admin.command("PUBLISH x y") == "(integer) 0");
  CHECK(admin.command("LPUSH q job") == "(integer) 1");
}
