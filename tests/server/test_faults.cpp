// Faults on the wire: LOCKSIM.PAUSE, DROP, DELAY, RESTART (and their C++ forms).
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "raw_client.hpp"
#include "server_fixture.hpp"

using namespace locksim::server;
using namespace locksim::server::testing;
using Steady = std::chrono::steady_clock;

namespace {
int64_t ms_since(Steady::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Steady::now() - start).count();
}
}  // namespace

TEST_CASE("LOCKSIM.PAUSE stalls every client, wall time runs on meanwhile", "[server]") {
  RunningServer s(test_options(TimeMode::Wall));
  Hiredis admin(s.port()), other(s.port());
  CHECK(other.command("SET lock a PX 200") == "OK");
  const auto start = Steady::now();
  CHECK(admin.command("LOCKSIM.PAUSE 400") == "OK");
  CHECK(other.command("GET lock") == "(nil)");  // answered after the pause: the key expired meanwhile
  CHECK(ms_since(start) >= 350);
  CHECK(admin.command("PING") == "PONG");
}

TEST_CASE("LOCKSIM.DROP closes one client's connection, or all", "[server]") {
  RunningServer s;
  Hiredis admin(s.port());
  RawClient victim(s.port()), bystander(s.port());
  CHECK(victim.roundtrip("CLIENT ID\r\n", 4).starts_with(":"));
  // The victim is the connection whose id CLIENT ID answered: ids count up from the admin's.
  const std::string admin_id = admin.command("CLIENT ID").substr(10);
  const int victim_number = std::stoi(admin_id) + 1;
  CHECK(admin.command("LOCKSIM.DROP %d", victim_number) == "(integer) 1");
  std::string rest;
  CHECK(victim.read_until_closed(rest));
  CHECK(bystander.roundtrip("PING\r\n", 7) == "+PONG\r\n");
  CHECK(admin.command("LOCKSIM.DROP 999") == "(integer) 0");
  CHECK(admin.command("LOCKSIM.DROP ALL") == "(integer) 2");  // the bystander and the caller
  CHECK(bystander.read_until_closed(rest));
  CHECK(admin.command("PING") == "(connection error)");
}

TEST_CASE("LOCKSIM.DELAY holds every reply back, the command still runs at once", "[server]") {
  RunningServer s;
  Hiredis a(s.port()), b(s.port());
  CHECK(a.command("LOCKSIM.DELAY 300") == "OK");
  const auto start = Steady::now();
  CHECK(b.command("INCR n") == "(integer) 1");
  CHECK(ms_since(start) >= 250);
  s.server.delay(0);
  const auto again = Steady::now();
  CHECK(b.command("GET n") == "\"1\"");
  CHECK(ms_since(again) < 250);
}

TEST_CASE("LOCKSIM.RESTART forgets all data and closes every connection", "[server]") {
  RunningServer s;
  Hiredis a(s.port()), b(s.port());
  CHECK(b.command("SET k v") == "OK");
  CHECK(b.command("SCRIPT LOAD %s", "return 1").size() == 42);
  CHECK(a.command("LOCKSIM.RESTART") == "OK");
  CHECK(b.command("GET k") == "(connection error)");
  Hiredis c(s.port());
  CHECK(c.command("GET k") == "(nil)");
  CHECK(c.command("EVALSHA e0e1f9fabfc9d4800c877a703b823ac0578ff8db 0").starts_with("(error) NOSCRIPT"));
}

TEST_CASE("the server starts and stops many times on free ports", "[server]") {
  for (int i = 0; i < 20; ++i) {
    RunningServer s;
    Hiredis c(s.port());
    REQUIRE(c.command("PING") == "PONG");
  }
}
