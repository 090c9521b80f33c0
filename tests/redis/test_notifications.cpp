// Keyspace notifications, with the expectations of Redis 7.0's tests/unit/pubsub.tcl.
#include <catch2/catch.hpp>

#include "model_fixture.hpp"

using namespace locksim::redis;
using namespace locksim::redis::testing;

namespace {
// The messages a `PSUBSCRIBE *` connection received, as "channel message" lines.
std::vector<std::string> messages(Model& m, ConnectionId sub) {
  std::vector<std::string> out;
  for (const Reply& r : m.server.take_pushed(sub))
    if (r.elements.size() == 4 && r.elements[0].str == "pmessage")
      out.push_back(r.elements[2].str + " " + r.elements[3].str);
  return out;
}

ConnectionId psubscriber(Model& m) {
  const ConnectionId sub = m.server.connect();
  m.run_on(sub, {"psubscribe", "*"});
  return sub;
}
}  // namespace

TEST_CASE("keyspace notifications: K and E channels, class masks, CONFIG GET's canonical form") {
  Model m;
  const ConnectionId sub = psubscriber(m);
  m.run({"set", "foo", "bar"});
  CHECK(messages(m, sub).empty());  // off by default
  CHECK(m.text({"config", "set", "notify-keyspace-events", "KEA"}) == "OK");
  CHECK(m.text({"config", "get", "notify-keyspace-events"}) == "[\"notify-keyspace-events\", \"AKE\"]");
  m.run({"set", "foo", "bar"});
  CHECK(messages(m, sub) == std::vector<std::string>{"__keyspace@0__:foo set", "__keyevent@0__:set foo"});
  m.run({"config", "set", "notify-keyspace-events", "KEl"});
  m.run({"set", "foo", "bar"});
  m.run({"lpush", "mylist", "a"});
  CHECK(messages(m, sub) == std::vector<std::string>{"__keyspace@0__:mylist lpush", "__keyevent@0__:lpush mylist"});
  m.run({"config", "set", "notify-keyspace-events", "$lshzxeKE"});
  CHECK(m.text({"config", "get", "notify-keyspace-events"}) == "[\"notify-keyspace-events\", \"$lshzxeKE\"]");
  CHECK(m.text({"config", "set", "notify-keyspace-events", "q"}) ==
        "(error) ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - Invalid event "
        "class character. Use 'Ag$lshzxeKEtmdn'.");
}

TEST_CASE("keyspace notifications: generic, list, set, zset and hash events, nothing when nothing changed") {
  Model m;
  const ConnectionId sub = psubscriber(m);
  m.run({"config", "set", "notify-keyspace-events", "KEg"});
  m.run({"set", "foo", "bar"});
  m.run({"expire", "foo", "1"});
  m.run({"del", "foo"});
  CHECK(messages(m, sub) == std::vector<std::string>{"__keyspace@0__:foo expire", "__keyevent@0__:expire foo",
                                                     "__keyspace@0__:foo del", "__keyevent@0__:del foo"});
  m.run({"config", "set", "notify-keyspace-events", "KEl"});
  m.run({"lpush", "mylist", "a"});
  m.run({"rpush", "mylist", "a"});
  m.run({"rpop", "mylist"});
  CHECK(messages(m, sub) == std::vector<std::string>{"__keyspace@0__:mylist lpush", "__keyevent@0__:lpush mylist",
                                                     "__keyspace@0__:mylist rpush", "__keyevent@0__:rpush mylist",
                                                     "__keyspace@0__:mylist rpop", "__keyevent@0__:rpop mylist"});
  m.run({"config", "set", "notify-keyspace-events", "Ks"});
  m.run({"sadd", "myset", "a", "b", "c", "d"});
  m.run({"srem", "myset", "x"});
  m.run({"sadd", "myset", "x", "y", "z"});
  m.run({"srem", "myset", "x"});
  CHECK(messages(m, sub) == std::vector<std::string>{"__keyspace@0__:myset sadd", "__keyspace@0__:myset sadd",
                                                     "__keyspace@0__:myset srem"});
  m.run({"config", "set", "notify-keyspace-events", "Kz"});
  m.run({"zadd", "myzset", "1", "a", "2", "b"});
  m.run({"zrem", "myzset", "x"});
  m.run({"zadd", "myzset", "3", "x"});
  m.run({"zrem", "myzset", "x"});
  CHECK(messages(m, sub) == std::vector<std::string>{"__keyspace@0__:myzset zadd", "__keyspace@0__:myzset zadd",
                                                     "__keyspace@0__:myzset zrem"});
  m.run({"config", "set", "notify-keyspace-events", "Kh"});
  m.run({"hmset", "myhash", "yes", "1", "no", "0"});
  m.run({"hincrby", "myhash", "yes", "10"});
  CHECK(messages(m, sub) == std::vector<std::string>{"__keyspace@0__:myhash hset", "__keyspace@0__:myhash hincrby"});
}

TEST_CASE("keyspace notifications: expired (lazy and active), new keys, emptied keys, scripts") {
  Model m;
  const ConnectionId sub = psubscriber(m);
  m.run({"config", "set", "notify-keyspace-events", "Ex"});
  m.run({"psetex", "foo", "100", "1"});
  m.now += 200;
  CHECK(m.text({"exists", "foo"}) == "(integer) 0");
  m.run({"psetex", "bar", "100", "1"});
  m.server.advance(m.now + 1000);
  CHECK(messages(m, sub) == std::vector<std::string>{"__keyevent@0__:expired foo", "__keyevent@0__:expired bar"});
  m.run({"config", "set", "notify-keyspace-events", "En"});
  m.run({"set", "foo", "bar"});
  m.run({"set", "foo", "baz"});
  m.run({"set", "bar", "bar"});
  CHECK(messages(m, sub) == std::vector<std::string>{"__keyevent@0__:new foo", "__keyevent@0__:new bar"});
  m.run({"config", "set", "notify-keyspace-events", "KA"});
  m.run({"rpush", "l", "a"});
  messages(m, sub);
  m.run({"eval", "redis.call('lpop', KEYS[1]) redis.call('select', 3) redis.call('set', KEYS[1], 1)", "1", "l"});
  CHECK(messages(m, sub) ==
        std::vector<std::string>{"__keyspace@0__:l lpop", "__keyspace@0__:l del", "__keyspace@3__:l set"});
}
