// CONFIG SET maxmemory and Redis 7.0's refusals over it (processCommand, MULTI/EXEC,
// flagged and unflagged scripts), and the model's own cap beneath it.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "locksim/sim/redis/memory.hpp"
#include "model_fixture.hpp"

using namespace locksim::redis;
using namespace locksim::redis::testing;

namespace {
const std::string kOom = "(error) OOM command not allowed when used memory > 'maxmemory'.";
}

TEST_CASE("CONFIG SET maxmemory takes Redis's memory values and CONFIG GET shows them") {
  Model m;
  CHECK(m.text({"config", "get", "maxmemory"}) == "[\"maxmemory\", \"0\"]");
  for (const auto& [value, bytes] : std::vector<std::pair<std::string, std::string>>{
           {"100", "100"}, {"1k", "1000"}, {"1KB", "1024"}, {"2mb", "2097152"}, {"1g", "1000000000"}, {"0", "0"}}) {
    CHECK(m.text({"config", "set", "maxmemory", value}) == "OK");
    CHECK(m.text({"config", "get", "maxmemory"}) == "[\"maxmemory\", \"" + bytes + "\"]");
  }
  for (const char* bad : {"bla", "-1", "", "1tb", "99999999999999999999", "18446744073709551615gb"})
    CHECK(m.text({"config", "set", "maxmemory", bad}) ==
          "(error) ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value");
  CHECK_THAT(m.run({"info", "memory"}).str, Catch::Contains("\r\nmaxmemory:0\r\n"));
}

TEST_CASE("over maxmemory: writes are refused, reads and deletes pass, and 0 lifts it") {
  Model m;
  m.run({"set", "x", "value"});
  CHECK(m.text({"config", "set", "maxmemory", "1"}) == "OK");  // below an empty Redis's own use
  CHECK(m.text({"set", "y", "1"}) == kOom);
  CHECK(m.text({"lpush", "l", "a"}) == kOom);
  CHECK(m.text({"get", "x"}) == "\"value\"");
  CHECK(m.text({"del", "x"}) == "(integer) 1");
  CHECK(m.text({"config", "set", "maxmemory", "0"}) == "OK");
  CHECK(m.text({"set", "y", "1"}) == "OK");
  // A cap above the empty server's use leaves room for some data, then refuses.
  CHECK(m.text({"config", "set", "maxmemory", std::to_string(kEmptyServerBytes + 2000)}) == "OK");
  int stored = 0;
  for (int i = 0; i < 100 && m.run({"set", "k" + std::to_string(i), std::string(100, 'v')}).str == "OK"; ++i) ++stored;
  CHECK(stored > 5);
  CHECK(stored < 100);
}

TEST_CASE("MULTI over maxmemory: queueing is refused and aborts EXEC, DISCARD works, reads-only EXEC runs") {
  Model m;
  const ConnectionId admin = m.server.connect();
  m.run({"set", "x", "value"});
  // Queued before the cap, executed after: an EXEC holding a write is aborted.
  CHECK(m.text({"multi"}) == "OK");
  CHECK(m.text({"set", "x", "1"}) == "QUEUED");
  CHECK(m.text({"get", "x"}) == "QUEUED");
  CHECK(to_string(m.run_on(admin, {"config", "set", "maxmemory", "1"})) == "OK");
  CHECK(m.text({"exec"}) == "(error) EXECABORT Transaction discarded because of: OOM command not allowed when used "
                            "memory > 'maxmemory'.");
  CHECK(m.text({"exec"}) == "(error) ERR EXEC without MULTI");  // the transaction is gone
  // Reads only: EXEC runs.
  CHECK(to_string(m.run_on(admin, {"config", "set", "maxmemory", "0"})) == "OK");
  CHECK(m.text({"multi"}) == "OK");
  CHECK(m.text({"get", "x"}) == "QUEUED");
  CHECK(m.text({"ping"}) == "QUEUED");
  CHECK(to_string(m.run_on(admin, {"config", "set", "maxmemory", "1"})) == "OK");
  CHECK(m.text({"exec"}) == "[\"value\", PONG]");
  // Over the cap, MULTI itself runs but nothing can be queued; DISCARD still works.
  CHECK(m.text({"multi"}) == "OK");
  CHECK(m.text({"get", "x"}) == kOom);
  CHECK(m.text({"discard"}) == "OK");
  CHECK(m.text({"multi"}) == "OK");
  CHECK(m.text({"set", "x", "1"}) == kOom);
  CHECK(to_string(m.run_on(admin, {"config", "set", "maxmemory", "0"})) == "OK");
  CHECK(m.text({"exec"}) ==
        "(error) EXECABORT Transaction discarded because of previous errors.");  // the refusal flagged it
}

TEST_CASE("scripts over maxmemory: flagged ones need allow-oom or no-writes, unflagged ones fail at a write") {
  Model m;
  m.run({"set", "x", "value"});
  CHECK(m.text({"config", "set", "maxmemory", "1"}) == "OK");
  CHECK(m.text({"eval", "#!lua\nreturn 1", "0"}) == kOom);
  CHECK(m.text({"eval", "#!lua flags=no-writes\nreturn redis.call('get', 'x')", "0"}) == "\"value\"");
  CHECK(m.text({"eval", "#!lua flags=allow-oom\nreturn redis.call('set', 'y', 1)", "0"}) == "OK");
  CHECK(m.text({"eval", "return redis.call('get', 'x')", "1", "x"}) == "\"value\"");
  CHECK_THAT(m.text({"eval", "return redis.call('set', 'z', 1)", "1", "z"}),
             Catch::Contains("OOM command not allowed when used memory > 'maxmemory'"));
  CHECK(m.text({"eval", "return redis.pcall('set', 'z', 1)['err']", "1", "z"}) ==
        "\"OOM command not allowed when used memory > 'maxmemory'.\"");
  CHECK(m.text({"config", "set", "maxmemory", "0"}) == "OK");
  m.run({"function", "load",
         "#!lua name=lib\n"
         "redis.register_function('w', function() return redis.call('set', 'f', 1) end)\n"
         "redis.register_function{function_name='wo', callback=function() return redis.call('set', 'f', 2) end, "
         "flags={'allow-oom'}}\n"
         "redis.register_function{function_name='r', callback=function() return 1 end, flags={'no-writes'}}"});
  CHECK(m.text({"config", "set", "maxmemory", "1"}) == "OK");
  CHECK(m.text({"fcall", "w", "0"}) == kOom);
  CHECK(m.text({"fcall", "wo", "0"}) == "OK");
  CHECK(m.text({"fcall", "r", "0"}) == "(integer) 1");
  CHECK(m.text({"config", "set", "maxmemory", "0"}) == "OK");
  CHECK(m.text({"eval", "#!lua\nreturn 1", "0"}) == "(integer) 1");
}

TEST_CASE("the model's own cap holds beneath any maxmemory a client sets") {
  ServerOptions options;
  options.maxmemory_bytes = 4096;
  Model m(options);
  CHECK(m.text({"config", "set", "maxmemory", "1gb"}) == "OK");
  int stored = 0;
  for (int i = 0; i < 100 && m.run({"set", "k" + std::to_string(i), std::string(100, 'v')}).str == "OK"; ++i) ++stored;
  CHECK(stored < 100);
  CHECK(m.text({"set", "one-more", "v"}) == kOom);
}
