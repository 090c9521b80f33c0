#include <catch2/catch.hpp>

#include <vector>

#include "model_fixture.hpp"

using namespace locksim::redis;
using locksim::redis::testing::Model;

namespace {
struct Recorder : Observer {
  std::vector<KeyEffect> effects;
  void on_effect(const KeyEffect& e) override { effects.push_back(e); }
};
}  // namespace

TEST_CASE("Observer sees writes with connection, old and new values") {
  Model m;
  Recorder rec;
  m.server.set_observer(&rec);
  auto other = m.server.connect();
  m.run({"set", "lock", "A", "px", "1000"});
  m.run_on(other, {"set", "lock", "B", "nx"});  // no effect: NX failed
  m.run_on(other, {"set", "lock", "B"});
  m.run({"pexpire", "lock", "500"});
  m.run({"del", "lock"});
  REQUIRE(rec.effects.size() == 4);
  const auto& set_a = rec.effects[0];
  CHECK(set_a.kind == KeyEffect::Kind::Set);
  CHECK(set_a.conn == m.conn);
  CHECK(set_a.key == "lock");
  CHECK(set_a.old_value == std::nullopt);
  CHECK(set_a.new_value == "A");
  CHECK(set_a.expire_at_ms == m.now + 1000);
  CHECK(set_a.now_ms == m.now);
  CHECK(rec.effects[1].conn == other);
  CHECK(rec.effects[1].old_value == "A");
  CHECK(rec.effects[1].new_value == "B");
  CHECK(rec.effects[1].expire_at_ms == -1);
  CHECK(rec.effects[2].kind == KeyEffect::Kind::ExpireChanged);
  CHECK(rec.effects[2].expire_at_ms == m.now + 500);
  CHECK(rec.effects[3].kind == KeyEffect::Kind::Deleted);
  CHECK(rec.effects[3].old_value == "B");
  m.server.set_observer(nullptr);
  m.run({"set", "x", "1"});
  CHECK(rec.effects.size() == 4);
}

TEST_CASE("Observer sees Expired when a lazy access finds a key past its deadline") {
  Model m;
  Recorder rec;
  m.server.set_observer(&rec);
  m.run({"set", "lock", "A", "px", "100"});
  m.now += 100;
  CHECK(m.server.peek_string("lock", m.now + 1) == std::nullopt);  // introspection reports nothing
  m.run({"get", "lock"});
  REQUIRE(rec.effects.size() == 1);
  m.now += 1;
  m.run({"set", "lock", "B", "nx"});
  REQUIRE(rec.effects.size() == 3);
  CHECK(rec.effects[1].kind == KeyEffect::Kind::Expired);
  CHECK(rec.effects[1].conn == 0);
  CHECK(rec.effects[1].old_value == "A");
  CHECK(rec.effects[1].now_ms == m.now);
  CHECK(rec.effects[2].kind == KeyEffect::Kind::Set);
  CHECK(rec.effects[2].old_value == std::nullopt);
  CHECK(rec.effects[2].new_value == "B");
}

TEST_CASE("Observer: scripts report on the calling connection, hashes render in field order") {
  Model m;
  Recorder rec;
  m.server.set_observer(&rec);
  auto other = m.server.connect();
  m.run_on(other, {"eval", "redis.call('hincrby', KEYS[1], ARGV[1], 1) return redis.call('pexpire', KEYS[1], 30000)",
                   "1", "rlock", "owner:1"});
  m.run_on(other, {"hset", "rlock", "b", "2"});
  REQUIRE(rec.effects.size() == 3);
  CHECK(rec.effects[0].conn == other);
  CHECK(rec.effects[0].new_value == "{owner:1=1}");
  CHECK(rec.effects[1].kind == KeyEffect::Kind::ExpireChanged);
  CHECK(rec.effects[2].old_value == "{owner:1=1}");
  CHECK(rec.effects[2].new_value == "{owner:1=1,b=2}");
  CHECK(rec.effects[2].expire_at_ms == m.now + 30000);
  m.run({"flushall"});
  REQUIRE(rec.effects.size() == 4);
  CHECK(rec.effects[3].kind == KeyEffect::Kind::Deleted);
  CHECK(rec.effects[3].conn == m.conn);
}
