// Redis 7.0's refusals over maxmemory (processCommand, MULTI/EXEC, flagged and
// unflagged scripts), over the model's cap (ServerOptions::maxmemory_bytes).
#include <catch2/catch.hpp>

#include <string>

#include "model_fixture.hpp"

using namespace locksim::redis;
using namespace locksim::redis::testing;

namespace {
const std::string kOom = "(error) OOM command not allowed when used memory > 'maxmemory'.";

// A model whose cap of 2 KB is already full: x holds a value, the rest is padding.
Model full_model() {
  ServerOptions options;
  options.maxmemory_bytes = 2048;
  Model m(options);
  m.run({"set", "x", "value"});
  m.run({"set", "padding", std::string(4096, 'p')});  // admitted: the check comes before the write
  return m;
}
}  // namespace

TEST_CASE("over maxmemory: writes are refused, reads and deletes pass, and room made is used again") {
  Model m = full_model();
  CHECK(m.text({"set", "y", "1"}) == kOom);
  CHECK(m.text({"lpush", "l", "a"}) == kOom);
  CHECK(m.text({"get", "x"}) == "\"value\"");
  CHECK(m.text({"del", "padding"}) == "(integer) 1");
  CHECK(m.text({"set", "y", "1"}) == "OK");
  // CONFIG SET maxmemory (bytes) moves the cap, 0 lifts it, as in Redis.
  CHECK(m.text({"config", "set", "maxmemory", "1"}) == "OK");
  CHECK(m.text({"set", "z", "1"}) == kOom);
  CHECK(m.text({"config", "set", "maxmemory", "0"}) == "OK");
  CHECK(m.text({"set", "z", "1"}) == "OK");
  CHECK(m.text({"config", "set", "maxmemory", "-1"}) ==
        "(error) ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be between 0 and "
        "9223372036854775807 inclusive");
  CHECK(m.text({"config", "set", "maxmemory", "lots"}) ==
        "(error) ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value");
}

TEST_CASE("MULTI over maxmemory: queueing is refused and aborts EXEC, DISCARD works, reads-only EXEC runs") {
  ServerOptions options;
  options.maxmemory_bytes = 2048;
  Model m(options);
  const ConnectionId other = m.server.connect();
  m.run({"set", "x", "value"});
  // Queued before the cap was reached, executed after: an EXEC holding a write is aborted.
  CHECK(m.text({"multi"}) == "OK");
  CHECK(m.text({"set", "x", "1"}) == "QUEUED");
  CHECK(m.text({"get", "x"}) == "QUEUED");
  CHECK(to_string(m.run_on(other, {"set", "padding", std::string(4096, 'p')})) == "OK");
  CHECK(m.text({"exec"}) == "(error) EXECABORT Transaction discarded because of: OOM command not allowed when used "
                            "memory > 'maxmemory'.");
  CHECK(m.text({"exec"}) == "(error) ERR EXEC without MULTI");  // the transaction is gone
  // Reads only: EXEC runs.
  CHECK(to_string(m.run_on(other, {"del", "padding"})) == "(integer) 1");
  CHECK(m.text({"multi"}) == "OK");
  CHECK(m.text({"get", "x"}) == "QUEUED");
  CHECK(m.text({"ping"}) == "QUEUED");
  CHECK(to_string(m.run_on(other, {"set", "padding", std::string(4096, 'p')})) == "OK");
  CHECK(m.text({"exec"}) == "[\"value\", PONG]");
  // Over the cap, MULTI itself runs but nothing can be queued; DISCARD still works.
  CHECK(m.text({"multi"}) == "OK");
  CHECK(m.text({"get", "x"}) == kOom);
  CHECK(m.text({"discard"}) == "OK");
  CHECK(m.text({"multi"}) == "OK");
  CHECK(m.text({"set", "x", "1"}) == kOom);
  CHECK(to_string(m.run_on(other, {"del", "padding"})) == "(integer) 1");
  CHECK(m.text({"exec"}) ==
        "(error) EXECABORT Transaction discarded because of previous errors.");  // the refusal flagged it
}

TEST_CASE("scripts over maxmemory: flagged ones need allow-oom or no-writes, unflagged ones fail at a write") {
  Model m = full_model();
  CHECK(m.text({"eval", "#!lua\nreturn 1", "0"}) == kOom);
  CHECK(m.text({"eval", "#!lua flags=no-writes\nreturn redis.call('get', 'x')", "0"}) == "\"value\"");
  CHECK(m.text({"eval", "#!lua flags=allow-oom\nreturn redis.call('set', 'y', 1)", "0"}) == "OK");
  CHECK(m.text({"eval", "return redis.call('get', 'x')", "1", "x"}) == "\"value\"");
  CHECK_THAT(m.text({"eval", "return redis.call('set', 'z', 1)", "1", "z"}),
             Catch::Contains("OOM command not allowed when used memory > 'maxmemory'"));
  CHECK(m.text({"eval", "return redis.pcall('set', 'z', 1)['err']", "1", "z"}) ==
        "\"OOM command not allowed when used memory > 'maxmemory'.\"");
  CHECK(m.text({"del", "padding"}) == "(integer) 1");
  m.run({"function", "load",
         "#!lua name=lib\n"
         "redis.register_function('w', function() return redis.call('set', 'f', 1) end)\n"
         "redis.register_function{function_name='wo', callback=function() return redis.call('set', 'f', 2) end, "
         "flags={'allow-oom'}}\n"
         "redis.register_function{function_name='r', callback=function() return 1 end, flags={'no-writes'}}"});
  m.run({"set", "padding", std::string(4096, 'p')});
  CHECK(m.text({"fcall", "w", "0"}) == kOom);
  CHECK(m.text({"fcall", "wo", "0"}) == "OK");
  CHECK(m.text({"fcall", "r", "0"}) == "(integer) 1");
  CHECK(m.text({"del", "padding"}) == "(integer) 1");
  CHECK(m.text({"eval", "#!lua\nreturn 1", "0"}) == "(integer) 1");
}

TEST_CASE("a host's own bytes count against maxmemory and in INFO's used_memory") {
  ServerOptions options;
  options.maxmemory_bytes = 10'000;
  Model m(options);
  size_t host = 0;
  m.server.set_host_memory([&host] { return host; });
  CHECK(m.text({"set", "x", "1"}) == "OK");
  host = 20'000;  // e.g. a client's unread replies: the data alone is under the cap, the process is not
  CHECK(m.text({"set", "y", "1"}) == kOom);
  CHECK(m.text({"get", "x"}) == "\"1\"");
  const std::string info = to_string(m.run({"info", "memory"}));
  CHECK(info.find("used_memory:20") != std::string::npos);  // the host's bytes plus the data's
  host = 0;
  CHECK(m.text({"set", "y", "1"}) == "OK");
}
