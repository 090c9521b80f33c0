// The exact commands of one uncontended acquire and release, per algorithm,
// as the client sent them (rendered into the trace; Lua bodies are cut to
// their first words there, and tokens are shown as <token>).
#include <catch2/catch.hpp>

#include <map>

#include "helpers.hpp"
#include "locksim/lock/env.hpp"
#include "locksim/lock/registry.hpp"

using namespace locktest;

namespace {

std::vector<std::string> one_round(const std::string& algorithm, LockParams params = {}) {
  SimulationConfig c;
  c.algorithm = algorithm;
  c.lock = params;
  c.workload.clients = 1;
  c.workload.iterations = 1;
  c.workload.start_spread = 0_ms;                     // starts at true time 0: timestamps are exact
  c.workload.work_min = c.workload.work_max = 50_ms;  // shorter than any renewal interval
  c.workload.write_resource = false;
  auto s = run(c);
  const History& h = s->history();
  REQUIRE(steps(h, Step::Acquired).size() == 1);
  REQUIRE(steps(h, Step::Released).size() == 1);
  CHECK(steps(h, Step::Released)[0].own_lock);
  return commands_sent(*s, "A");
}

using Cmds = std::vector<std::string>;

const std::map<std::string, Cmds>& expected() {
  static const std::map<std::string, Cmds> table = {
      {"setnx-del", {"SETNX lock 1", "DEL lock"}},
      {"setnx-expire", {"SETNX lock 1", "EXPIRE lock 1", "DEL lock"}},
      // value: unix ms of the client's clock (epoch 1700000000000 at true time 0) + lease + 1
      {"del-setnx", {"SETNX lock 1700000001001", "DEL lock"}},
      {"getset", {"SETNX lock 1700000001001", "DEL lock"}},
      {"set-nx-px", {"SET lock 1 NX PX 1000", "DEL lock"}},
      {"token-check-del", {"SET lock <token> NX PX 1000", "GET lock", "DEL lock"}},
      {"token-lua", {"SET lock <token> NX PX 1000", "EVAL if redis.call('get', KEYS[1]) == ARGV... 1 lock <token>"}},
      {"watchdog", {"SET lock <token> NX PX 1000", "EVAL if redis.call('get', KEYS[1]) == ARGV... 1 lock <token>"}},
      {"reentrant",
       {"EVAL if ((redis.call('exists', KEYS[1]) ==... 1 lock 1000 <token>",
        "EVAL if (redis.call('hexists', KEYS[1], AR... 2 lock redisson_lock__channel:{lock} 0 1000 <token>"}},
      {"watch-multi",
       {"WATCH lock", "GET lock", "MULTI", "SET lock <token> PX 1000", "EXEC",
        "EVAL if redis.call('get', KEYS[1]) == ARGV... 1 lock <token>"}},
      {"fenced",
       {"SET lock <token> NX PX 1000", "INCR lock:fence",
        "EVAL if redis.call('get', KEYS[1]) == ARGV... 1 lock <token>"}},
      {"fair",
       {"EVAL local t = redis.call('incr', KEYS[1])... 2 lock:tickets lock:waiter: 1200 <token>",
        "EVAL if redis.call('get', KEYS[1]) == ARGV... 4 lock lock:serving lock:waiter: lock:tickets 1 <token> 1000 "
        "1200",
        "EVAL if redis.call('get', KEYS[1]) == ARGV... 1 lock <token>"}},
      // One master by default: Redlock's majority of one.
      {"redlock", {"SET lock <token> NX PX 1000", "EVAL if redis.call('get', KEYS[1]) == ARGV... 1 lock <token>"}},
      // Uncontended, it never subscribes: the waiting starts with a lost SET.
      {"pubsub-wait",
       {"SET lock <token> NX PX 1000", "EVAL if redis.call('get', KEYS[1]) == ARGV... 2 lock unlock:lock <token>"}},
      // The database locks: SQL to the db node.
      {"db-insert-delete",
       {"INSERT INTO locks VALUES ('lock','<token>',NULL,1)",
        "DELETE FROM locks WHERE name='lock' AND owner='<token>'"}},
      {"db-insert-expiry",
       {"INSERT INTO locks VALUES ('lock','<token>',1700000001000,1)",
        "DELETE FROM locks WHERE name='lock' AND owner='<token>'"}},
      {"db-for-update", {"BEGIN", "SELECT * FROM locks WHERE name='lock' FOR UPDATE", "COMMIT"}},
      {"db-reentrant",
       {"SELECT * FROM locks WHERE name='lock'", "INSERT INTO locks VALUES ('lock','A/main',NULL,1)",
        "DELETE FROM locks WHERE name='lock' AND owner='A/main'"}},
  };
  return table;
}

}  // namespace

TEST_CASE("command sequence of one uncontended acquire and release, per algorithm", "[lock]") {
  for (const Algorithm& algo : algorithms()) {
    const std::string id(algo.id);
    // Variants registered by other tests (in C++ or from variant files).
    if (id.rfind("test-", 0) == 0 || algo.failures == "user variant") continue;
    CAPTURE(id);
    auto it = expected().find(id);
    REQUIRE(it != expected().end());  // a new built-in algorithm needs its sequence pinned here
    CHECK(one_round(id) == it->second);
  }
}

TEST_CASE("command sequence: parameters show up where they should", "[lock]") {
  LockParams p;
  p.lease = 1500_ms;  // not whole seconds: setnx-expire falls back to PEXPIRE
  CHECK(one_round("setnx-expire", p) == Cmds{"SETNX lock 1", "PEXPIRE lock 1500", "DEL lock"});
  p = {};
  p.key = "orders";
  p.lease = 2_s;
  CHECK(one_round("set-nx-px", p) == Cmds{"SET orders 1 NX PX 2000", "DEL orders"});
  p = {};
  p.explicit_lease = 5_s;  // watchdog with an explicit lease: that TTL, no renewal
  CHECK(one_round("watchdog", p) ==
        Cmds{"SET lock <token> NX PX 5000", "EVAL if redis.call('get', KEYS[1]) == ARGV... 1 lock <token>"});
}

TEST_CASE("command sequence: a watchdog hold longer than the renewal interval renews with compare-and-PEXPIRE",
          "[lock]") {
  SimulationConfig c;
  c.algorithm = "watchdog";
  c.workload.clients = 1;
  c.workload.iterations = 1;
  c.workload.start_spread = 0_ms;
  c.workload.work_min = c.workload.work_max = 500_ms;  // one renewal at lease/3 = 333ms
  c.workload.write_resource = false;
  auto s = run(c);
  CHECK(commands_sent(*s, "A") == Cmds{"SET lock <token> NX PX 1000",
                                       "EVAL if redis.call('get', KEYS[1]) == ARGV... 1 lock <token> 1000",
                                       "EVAL if redis.call('get', KEYS[1]) == ARGV... 1 lock <token>"});
}

TEST_CASE("command sequence: a command built in a spent one says its own words only", "[lock]") {
  // A long command ran and went back to the pool: a shorter one built next is not a
  // prefix or a mix of the two, and the words given away keep their text.
  recycle_command(cmd("EVAL", std::string(300, 'x'), "2", "alpha", "beta", "gamma-long-argument-word"));
  std::string token = "A:0123456789abcdef";
  const Command next = cmd("SET", std::string("lock"), token, "NX");
  CHECK(next == Command{"SET", "lock", "A:0123456789abcdef", "NX"});
  CHECK(token == "A:0123456789abcdef");  // an lvalue word is copied, not taken
  recycle_command(Command(next));
  const Command longer = cmd("EVAL", scripts::kCompareAndDelete, "1", "lock", std::string("tok"), "x", "y");
  CHECK(longer == Command{"EVAL", std::string(scripts::kCompareAndDelete), "1", "lock", "tok", "x", "y"});
  // Recycled words may be read by nobody: an empty command goes back too and builds fine.
  recycle_command(Command{});
  CHECK(cmd() == Command{});
}
