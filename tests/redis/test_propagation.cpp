// Replication: a replica that runs what the master propagates, in order, holds what
// the master holds — every type, any bytes, deadlines as absolute times — whatever
// the command was (scripts, functions, MULTI, a served BLPOP, an expiry).
#include <catch2/catch.hpp>
#include <rapidcheck.h>
#include <rapidcheck/catch.h>

#include <algorithm>
#include <string>
#include <vector>

#include "model_fixture.hpp"

using namespace locksim::redis;
using locksim::redis::testing::Model;

namespace {

struct Pair {
  Model master, replica;
  ConnectionId stream = replica.server.connect();
  std::vector<Propagated> last;
  Pair() {
    master.server.set_propagation_listener([this](std::vector<Propagated> batch) {
      last = batch;
      for (const Propagated& p : batch) replica.server.execute(stream, p.command, replica.now);
    });
  }
  Reply run(const Command& c) { return master.server.execute(master.conn, c, master.now); }
  void tick(int64_t ms) {
    master.now += ms;
    replica.now += ms;
    master.server.advance(master.now);
  }
};

// Every key of every database, with its value and absolute deadline, as one text.
std::string contents(Server& s, int64_t now) {
  const ConnectionId c = s.connect();
  std::string out;
  for (int db = 0; db < 16; ++db) {
    s.execute(c, {"SELECT", std::to_string(db)}, now);
    Reply keys = s.execute(c, {"KEYS", "*"}, now);
    std::vector<std::string> names;
    for (const Reply& k : keys.elements) names.push_back(k.str);
    std::sort(names.begin(), names.end());
    for (const std::string& k : names) {
      out += std::to_string(db) + " " + k + " " + to_string(s.execute(c, {"TYPE", k}, now)) + " " +
             to_string(s.execute(c, {"DUMP", k}, now)) + " " + to_string(s.execute(c, {"PEXPIRETIME", k}, now)) +
             "\n";
    }
  }
  s.disconnect(c);
  return out;
}

const char* kReentrantAcquire =
    "if redis.call('exists', KEYS[1]) == 0 or redis.call('hexists', KEYS[1], ARGV[2]) == 1 then "
    "redis.call('hincrby', KEYS[1], ARGV[2], 1); redis.call('pexpire', KEYS[1], ARGV[1]); return nil end "
    "return redis.call('pttl', KEYS[1])";

}  // namespace

TEST_CASE("replication: a hash lock, its renewal and release reach the replica as they are", "[replication]") {
  Pair p;
  p.run({"EVAL", kReentrantAcquire, "1", "lock", "30000", "A-1:1"});
  CHECK(contents(p.replica.server, p.replica.now) == contents(p.master.server, p.master.now));
  CHECK(to_string(p.replica.server.execute(p.stream, {"HGET", "lock", "A-1:1"}, p.replica.now)) == "\"1\"");
  CHECK(p.replica.server.peek_pttl("lock", p.replica.now) == 30000);
  // A renewal changes only the deadline: propagated as PEXPIREAT, an absolute time.
  p.tick(10000);
  p.run({"PEXPIRE", "lock", "30000"});
  REQUIRE(p.last.size() == 1);
  CHECK(p.last[0].command ==
        Command{"PEXPIREAT", "lock", std::to_string(p.master.now + 30000)});
  CHECK(p.replica.server.peek_pttl("lock", p.replica.now) == 30000);
  p.run({"DEL", "lock"});
  CHECK(p.replica.server.dbsize(p.replica.now) == 0);
}

TEST_CASE("replication: strings are copied byte for byte, braces and all", "[replication]") {
  Pair p;
  for (const std::string& v : {std::string("{a=1}"), std::string("{}"), std::string("x\0y", 3), std::string("")}) {
    p.run({"SET", "k", v, "PX", "5000"});
    CHECK(p.replica.server.peek_string("k", p.replica.now) == v);
  }
  CHECK(contents(p.replica.server, p.replica.now) == contents(p.master.server, p.master.now));
}

TEST_CASE("replication: the effects of scripts, functions, transactions and served blocks", "[replication]") {
  Pair p;
  p.run({"EVAL", "redis.call('rpush', 'q', 'a', 'b'); redis.call('sadd', 's', 'x'); "
                 "redis.call('zadd', 'z', 1.5, 'm'); return redis.call('spop', 's')",
         "0"});
  p.run({"FUNCTION", "LOAD",
         "#!lua name=lib\nredis.register_function('put', function(keys, args) "
         "return redis.call('hset', keys[1], 'f', args[1]) end)"});
  p.run({"FCALL", "put", "1", "h", "v"});
  p.run({"MULTI"});
  p.run({"INCRBYFLOAT", "n", "1.5"});
  p.run({"SETEX", "t", "100", "v"});
  p.run({"RENAME", "q", "q2"});
  p.run({"EXEC"});
  // A client blocked on a list is served by another's push: both writes reach the replica.
  const ConnectionId blocked = p.master.server.connect();
  p.master.server.execute(blocked, {"BLMOVE", "in", "out", "LEFT", "RIGHT", "0"}, p.master.now);
  p.run({"RPUSH", "in", "job"});
  p.run({"SELECT", "3"});
  p.run({"HSET", "other-db", "a", "b"});
  p.run({"SWAPDB", "0", "3"});
  CHECK(contents(p.replica.server, p.replica.now) == contents(p.master.server, p.master.now));
  p.run({"FLUSHDB"});
  CHECK(contents(p.replica.server, p.replica.now) == contents(p.master.server, p.master.now));
}

TEST_CASE("replication: an expiry on the master reaches the replica as a DEL nobody sent", "[replication]") {
  Pair p;
  p.run({"SET", "k", "v", "PX", "100"});
  p.replica.now -= 500;  // the replica's clock is behind: it would keep the key longer
  p.tick(200);
  p.run({"GET", "k"});  // the master's lazy expiry
  REQUIRE(p.last.size() == 1);
  CHECK(p.last[0].command == Command{"DEL", "k"});
  CHECK(p.last[0].expiry);
  CHECK(p.replica.server.dbsize(p.replica.now) == 0);
}

TEST_CASE("replication: any sequence of writes leaves the replica equal to the master", "[replication]") {
  rc::prop("replica == master", [] {
    Pair p;
    const std::vector<std::string> keys = {"a", "b", "{c}"};
    const auto n = *rc::gen::inRange(1, 40);
    for (int i = 0; i < n; ++i) {
      const std::string k = *rc::gen::elementOf(keys), k2 = *rc::gen::elementOf(keys);
      const std::string v = *rc::gen::container<std::string>(*rc::gen::inRange(0, 4), rc::gen::elementOf(std::string("{}x=\0", 5)));
      const std::vector<Command> choices = {
          {"SET", k, v},
          {"SET", k, v, "PX", "50"},
          {"HSET", k, v.empty() ? "f" : v, "1"},
          {"HINCRBY", k, "f", "1"},
          {"HDEL", k, "f"},
          {"LPUSH", k, v},
          {"LPOP", k},
          {"SADD", k, v},
          {"SPOP", k},
          {"ZADD", k, "2", v},
          {"ZINCRBY", k, "1", v},
          {"PEXPIRE", k, "30"},
          {"PERSIST", k},
          {"DEL", k},
          {"RENAME", k, k2},
          {"COPY", k, k2, "REPLACE"},
          {"MOVE", k, "1"},
          {"EVAL", "redis.call('del', KEYS[1]); return redis.call('hset', KEYS[1], 'g', ARGV[1])", "1", k, v},
          {"INCR", k},
          {"APPEND", k, v},
      };
      p.run(*rc::gen::elementOf(choices));
      if (*rc::gen::inRange(0, 4) == 0) p.tick(*rc::gen::inRange(0, 80));
      RC_ASSERT(contents(p.replica.server, p.replica.now) == contents(p.master.server, p.master.now));
    }
  });
}
