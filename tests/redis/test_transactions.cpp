#include <catch2/catch.hpp>

#include "model_fixture.hpp"

using locksim::redis::testing::Model;

TEST_CASE("MULTI queues, EXEC runs without rollback") {
  Model m;
  m.run({"set", "s", "abc"});
  CHECK(m.text({"multi"}) == "OK");
  CHECK(m.text({"multi"}) == "(error) ERR MULTI calls can not be nested");
  CHECK(m.text({"set", "a", "1"}) == "QUEUED");
  CHECK(m.text({"incr", "s"}) == "QUEUED");
  CHECK(m.text({"incr", "a"}) == "QUEUED");
  CHECK(m.text({"exec"}) == "[OK, (error) ERR value is not an integer or out of range, (integer) 2]");
  CHECK(m.text({"get", "a"}) == "\"2\"");
  CHECK(m.text({"exec"}) == "(error) ERR EXEC without MULTI");
  CHECK(m.text({"discard"}) == "(error) ERR DISCARD without MULTI");
  CHECK(m.text({"multi"}) == "OK");
  CHECK(m.text({"exec"}) == "[]");
}

TEST_CASE("Queueing errors abort the transaction with EXECABORT") {
  Model m;
  m.run({"multi"});
  m.run({"set", "a", "1"});
  CHECK(m.text({"nosuch"}) == "(error) ERR unknown command 'nosuch', with args beginning with: ");
  CHECK(m.text({"exec"}) == "(error) EXECABORT Transaction discarded because of previous errors.");
  CHECK(m.text({"get", "a"}) == "(nil)");
  m.run({"multi"});
  CHECK(m.text({"get"}) == "(error) ERR wrong number of arguments for 'get' command");
  CHECK(m.text({"exec"}) == "(error) EXECABORT Transaction discarded because of previous errors.");
  m.run({"multi"});
  CHECK(m.text({"script", "bogus"}) == "(error) ERR unknown subcommand 'bogus'. Try SCRIPT HELP.");
  CHECK(m.text({"exec"}) == "(error) EXECABORT Transaction discarded because of previous errors.");
  // WATCH inside MULTI is refused but does not abort the transaction.
  m.run({"multi"});
  CHECK(m.text({"watch", "a"}) == "(error) ERR WATCH inside MULTI is not allowed");
  m.run({"set", "a", "1"});
  CHECK(m.text({"exec"}) == "[OK]");
}

TEST_CASE("EXEC with arguments discards the transaction, in MULTI or not") {
  Model m;
  const std::string abort =
      "(error) EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' command";
  CHECK(m.text({"exec", "x"}) == abort);
  m.run({"multi"});
  m.run({"set", "a", "1"});
  CHECK(m.text({"exec", "x"}) == abort);
  CHECK(m.text({"exec"}) == "(error) ERR EXEC without MULTI");
  CHECK(m.text({"get", "a"}) == "(nil)");
  m.run({"multi"});
  CHECK(m.text({"discard", "x"}) == "(error) ERR wrong number of arguments for 'discard' command");
  CHECK(m.text({"exec"}) == "(error) EXECABORT Transaction discarded because of previous errors.");
}

TEST_CASE("DISCARD drops the queue and the watches") {
  Model m;
  m.run({"watch", "a"});
  m.run({"multi"});
  m.run({"set", "a", "1"});
  CHECK(m.text({"discard"}) == "OK");
  CHECK(m.text({"get", "a"}) == "(nil)");
  m.run({"set", "a", "2"});  // no longer watched
  m.run({"multi"});
  m.run({"get", "a"});
  CHECK(m.text({"exec"}) == "[\"2\"]");
}

TEST_CASE("WATCH: another connection's write makes EXEC answer a null array") {
  Model m;
  auto other = m.server.connect();
  m.run({"set", "lock", "x"});
  CHECK(m.text({"watch", "lock"}) == "OK");
  m.run_on(other, {"set", "lock", "y"});
  m.run({"multi"});
  m.run({"set", "lock", "mine"});
  CHECK(m.text({"exec"}) == "(nil array)");
  CHECK(m.text({"get", "lock"}) == "\"y\"");
  // After EXEC the watch is gone.
  m.run({"multi"});
  m.run({"set", "lock", "mine"});
  CHECK(m.text({"exec"}) == "[OK]");
}

TEST_CASE("WATCH: writes that change nothing do not invalidate, UNWATCH clears") {
  Model m;
  auto other = m.server.connect();
  m.run({"watch", "k"});
  m.run_on(other, {"set", "k", "v", "xx"});  // did not write
  m.run_on(other, {"del", "k"});             // nothing deleted
  m.run_on(other, {"get", "k"});
  m.run({"multi"});
  m.run({"set", "k", "mine"});
  CHECK(m.text({"exec"}) == "[OK]");
  m.run({"watch", "k"});
  m.run_on(other, {"set", "k", "theirs"});
  CHECK(m.text({"unwatch"}) == "OK");
  m.run({"multi"});
  m.run({"get", "k"});
  CHECK(m.text({"exec"}) == "[\"theirs\"]");
}

TEST_CASE("WATCH: expiry of a watched key aborts EXEC (Redis 7.0)") {
  Model m;
  m.run({"set", "lock", "x", "px", "100"});
  m.run({"watch", "lock"});
  m.now += 101;
  m.run({"multi"});
  m.run({"set", "lock", "mine"});
  CHECK(m.text({"exec"}) == "(nil array)");
  // A key already expired when WATCHed is "absent" at WATCH time: its lazy deletion changes nothing.
  m.run({"set", "lock", "x", "px", "100"});
  m.now += 101;
  m.run({"watch", "lock"});
  CHECK(m.text({"get", "lock"}) == "(nil)");  // lazily deleted here
  m.run({"multi"});
  m.run({"set", "lock", "mine"});
  CHECK(m.text({"exec"}) == "[OK]");
}

TEST_CASE("WATCH: FLUSHALL and scripts invalidate, a transaction's own writes do not") {
  Model m;
  auto other = m.server.connect();
  m.run({"set", "k", "v"});
  m.run({"watch", "k"});
  m.run_on(other, {"flushall"});
  m.run({"multi"});
  m.run({"set", "k", "x"});
  CHECK(m.text({"exec"}) == "(nil array)");
  m.run({"watch", "k"});
  m.run_on(other, {"eval", "return redis.call('set', KEYS[1], 'z')", "1", "k"});
  m.run({"multi"});
  m.run({"get", "k"});
  CHECK(m.text({"exec"}) == "(nil array)");
  m.run({"watch", "k"});
  m.run({"multi"});
  m.run({"set", "k", "1"});
  m.run({"incr", "k"});
  CHECK(m.text({"exec"}) == "[OK, (integer) 2]");
}

TEST_CASE("watch-multi lock (docs/failures.md F21): two racers, one winner") {
  Model m;
  auto a = m.conn;
  auto b = m.server.connect();
  for (auto c : {a, b}) {
    CHECK(to_string(m.run_on(c, {"watch", "lock"})) == "OK");
    CHECK(to_string(m.run_on(c, {"get", "lock"})) == "(nil)");
  }
  m.run_on(a, {"multi"});
  m.run_on(a, {"set", "lock", "tokA", "px", "30000"});
  m.run_on(b, {"multi"});
  m.run_on(b, {"set", "lock", "tokB", "px", "30000"});
  CHECK(to_string(m.run_on(a, {"exec"})) == "[OK]");
  CHECK(to_string(m.run_on(b, {"exec"})) == "(nil array)");
  CHECK(m.text({"get", "lock"}) == "\"tokA\"");
}
