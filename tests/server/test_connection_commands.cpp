// Connection state the front-end keeps, against redis-server 7.0.15 byte for byte (each
// expectation below was read from one): RESET, and the front-end's own commands (CLIENT,
// HELLO, AUTH) queued by MULTI and run by EXEC in their turn.
#include <catch2/catch.hpp>

#include "raw_client.hpp"
#include "resp_checks.hpp"
#include "server_fixture.hpp"

using namespace locksim::server;
using namespace locksim::server::testing;

TEST_CASE("RESET leaves MULTI, subscriptions, RESP3, the name and the database", "[server]") {
  RunningServer s;
  RawClient c(s.port());
  hello3(c);
  check(c, {"CLIENT", "SETNAME", "worker"}, "+OK\r\n");
  check(c, {"SELECT", "3"}, "+OK\r\n");
  check(c, {"SET", "k", "in-db-3"}, "+OK\r\n");
  check(c, {"MULTI"}, "+OK\r\n");
  check(c, {"SET", "k", "never"}, "+QUEUED\r\n");
  check(c, {"RESET"}, "+RESET\r\n");
  check(c, {"EXEC"}, "-ERR EXEC without MULTI\r\n");
  check(c, {"GET", "k"}, "$-1\r\n");  // database 0, and RESP2's null
  check(c, {"CLIENT", "GETNAME"}, "$-1\r\n");
  check(c, {"SELECT", "3"}, "+OK\r\n");
  check(c, {"GET", "k"}, "$7\r\nin-db-3\r\n");
  check(c, {"SUBSCRIBE", "ch"}, "*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n");
  check(c, {"RESET"}, "+RESET\r\n");
  check(c, {"PING"}, "+PONG\r\n");  // no longer in the subscribed context
  check(c, {"RESET", "x"}, "-ERR wrong number of arguments for 'reset' command\r\n");
}

TEST_CASE("RESET with --requirepass: the connection must authenticate again", "[server]") {
  Options options = test_options();
  options.requirepass = "secret";
  RunningServer s(options);
  RawClient c(s.port());
  check(c, {"AUTH", "secret"}, "+OK\r\n");
  check(c, {"PING"}, "+PONG\r\n");
  check(c, {"RESET"}, "+RESET\r\n");
  check(c, {"PING"}, "-NOAUTH Authentication required.\r\n");
}

TEST_CASE("MULTI queues the front-end's commands and EXEC runs them in their turn", "[server]") {
  RunningServer s;
  RawClient c(s.port());
  check(c, {"MULTI"}, "+OK\r\n");
  check(c, {"CLIENT", "SETNAME", "worker"}, "+QUEUED\r\n");
  check(c, {"CLIENT", "GETNAME"}, "+QUEUED\r\n");
  check(c, {"SET", "k", "v"}, "+QUEUED\r\n");
  check(c, {"EXEC"}, "*3\r\n+OK\r\n$6\r\nworker\r\n+OK\r\n");
  check(c, {"CLIENT", "GETNAME"}, "$6\r\nworker\r\n");
  // Refused when queued (arity, unknown subcommand): the transaction is aborted.
  check(c, {"MULTI"}, "+OK\r\n");
  check(c, {"CLIENT", "SETNAME"}, "-ERR wrong number of arguments for 'client|setname' command\r\n");
  check(c, {"CLIENT", "NOSUCH"}, "-ERR unknown subcommand 'NOSUCH'. Try CLIENT HELP.\r\n");
  check(c, {"SET", "k", "x"}, "+QUEUED\r\n");
  check(c, {"EXEC"}, "-EXECABORT Transaction discarded because of previous errors.\r\n");
  check(c, {"GET", "k"}, "$1\r\nv\r\n");
  // DISCARD drops them unrun; RESET runs at once even inside MULTI.
  check(c, {"MULTI"}, "+OK\r\n");
  check(c, {"CLIENT", "SETNAME", "again"}, "+QUEUED\r\n");
  check(c, {"DISCARD"}, "+OK\r\n");
  check(c, {"CLIENT", "GETNAME"}, "$6\r\nworker\r\n");
  check(c, {"MULTI"}, "+OK\r\n");
  check(c, {"HELLO"}, "+QUEUED\r\n");
  check(c, {"AUTH"}, "-ERR wrong number of arguments for 'auth' command\r\n");
  check(c, {"PING"}, "+QUEUED\r\n");
  check(c, {"RESET"}, "+RESET\r\n");
  check(c, {"CLIENT", "GETNAME"}, "$-1\r\n");
}

TEST_CASE("CLIENT REPLY OFF and SKIP silence replies but not pub/sub notices", "[server]") {
  RunningServer s;
  RawClient c(s.port());
  RawClient publisher(s.port());
  c.send(resp({"CLIENT", "REPLY", "SKIP"}) + resp({"SET", "a", "1"}));
  check(c, {"GET", "a"}, "$1\r\n1\r\n");  // nothing came before this reply
  c.send(resp({"CLIENT", "REPLY", "OFF"}) + resp({"SET", "a", "2"}) + resp({"GET", "a"}));
  CHECK(c.read(1, 100).empty());
  check(c, {"SUBSCRIBE", "ch"}, "*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n");
  check(publisher, {"PUBLISH", "ch", "hi"}, ":1\r\n");
  check(c, {"UNSUBSCRIBE", "ch"},
        "*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n*3\r\n$11\r\nunsubscribe\r\n$2\r\nch\r\n:0\r\n");
  c.send(resp({"CLIENT", "REPLY", "BAD"}));  // its syntax error is silenced too
  check(c, {"CLIENT", "REPLY", "ON"}, "+OK\r\n");
  check(c, {"GET", "a"}, "$1\r\n2\r\n");
  c.send(resp({"CLIENT", "REPLY", "OFF"}));
  check(c, {"RESET"}, "+RESET\r\n");  // RESET turns replies back on before it answers
  check(c, {"GET", "a"}, "$1\r\n2\r\n");
}
