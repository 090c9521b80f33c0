// reentrant (Redisson's hash lock, F16): nested acquires count up, releases
// count down, the key goes at zero; another owner's release is refused.
#include <catch2/catch.hpp>

#include <regex>

#include "helpers.hpp"
#include "locksim/lock/algorithms.hpp"
#include "locksim/lock/redis_node.hpp"
#include "locksim/lock/sim_env.hpp"
#include "locksim/sim/fault.hpp"

using namespace locktest;

namespace {

// The hold count a hash value "{owner=3}" shows.
int64_t count_of(const std::optional<std::string>& v) {
  static const std::regex one_field(R"(^\{[^=]+=(-?\d+)\}$)");
  std::smatch m;
  REQUIRE(v);
  REQUIRE(std::regex_match(*v, m, one_field));
  return std::stoll(m[1].str());
}

}  // namespace

TEST_CASE("reentrant: nested acquires increment, releases decrement, the key goes at zero", "[lock]") {
  SimulationConfig c;
  c.algorithm = "reentrant";
  c.workload.clients = 1;
  c.workload.iterations = 1;
  c.workload.nested = 2;
  auto s = run(c);
  const History& h = s->history();

  // Acquired at depth 0, 1, 2; released at depth 2, 1, 0 — each its own.
  auto acquired = steps(h, Step::Acquired);
  REQUIRE(acquired.size() == 3);
  CHECK(acquired[1].depth == 1);
  CHECK(acquired[2].depth == 2);
  auto released = steps(h, Step::Released);
  REQUIRE(released.size() == 3);
  for (const HistoryEvent& e : released) CHECK(e.own_lock);
  CHECK(released[0].depth == 2);
  CHECK(released[1].depth == 1);
  CHECK(released[2].depth == 0);

  // What the server did to the hash: counts 1, 2, 3, 2, 1, 0, then the key goes.
  std::vector<int64_t> counts;
  std::vector<Step> effects;
  for (const HistoryEvent& e : h.events()) {
    if (e.key != "lock") continue;
    if (e.step == Step::KeySet) counts.push_back(count_of(e.new_value));
    if (e.step == Step::KeySet || e.step == Step::KeyDeleted) effects.push_back(e.step);
  }
  CHECK(counts == std::vector<int64_t>{1, 2, 3, 2, 1, 0});
  REQUIRE_FALSE(effects.empty());
  CHECK(effects.back() == Step::KeyDeleted);
  CHECK(s->redis().server().peek_pttl("lock", s->redis().local_ms()) == -2);
}

TEST_CASE("token-lua deadlocks on itself when acquiring again from nested code (F16)", "[lock]") {
  SimulationConfig c;
  c.algorithm = "token-lua";
  c.lock.lease = 10_s;  // longer than the wait: the nested attempt cannot outlive the hold
  c.lock.wait_limit = 1_s;
  c.workload.clients = 1;
  c.workload.iterations = 1;
  c.workload.nested = 1;
  auto s = run(c);
  const History& h = s->history();
  auto failed = steps(h, Step::AcquireFailed);
  REQUIRE(failed.size() == 1);
  CHECK(failed[0].depth == 1);  // at depth 1
  auto start = steps(h, Step::AcquireStart);
  REQUIRE(start.size() == 2);
  CHECK(failed[0].at - start[1].at >= 1_s);  // it waited out its whole wait limit
  // The outer hold is intact: its release still deletes its own key.
  auto released = steps(h, Step::Released);
  REQUIRE(released.size() == 1);
  CHECK(released[0].own_lock);
}

namespace {

struct Outcome {
  bool x_acquired = false, y_released = true, x_released = false, y_ran = false;
  int64_t pttl_after_refusal = 0;
};

// A client that holds the lock for 300ms (the same Lock object acquires and releases).
sim::Task<void> holder(sim::Proc p, RedisNode* redis, RedisNode::Channel* ch, History* h, Outcome* out) {
  ClientLife life;
  const std::vector<CallFault> none;
  SimEnv env(p, *ch, 0, life, *h, 500_ms, none);
  std::unique_ptr<Lock> lock = make_reentrant(LockParams{});
  const bool got = co_await lock->acquire(env);
  out->x_acquired = got;
  co_await env.sleep(300_ms);
  out->pttl_after_refusal = redis->server().peek_pttl("lock", redis->local_ms());
  const bool released = co_await lock->release(env);
  out->x_released = released;
}

// Another client, with its own Lock object, releasing a lock it never took.
sim::Task<void> intruder(sim::Proc p, RedisNode::Channel* ch, History* h, Outcome* out) {
  ClientLife life;
  const std::vector<CallFault> none;
  SimEnv env(p, *ch, 1, life, *h, 500_ms, none);
  std::unique_ptr<Lock> lock = make_reentrant(LockParams{});
  co_await env.sleep(100_ms);
  const bool released = co_await lock->release(env);
  out->y_released = released;
  out->y_ran = true;
}

}  // namespace

TEST_CASE("reentrant: another client's release is refused and changes nothing", "[lock]") {
  sim::World w(7);
  History h;
  RedisNode& redis = w.make<RedisNode>(w, "redis", &h);
  const sim::NodeId x = w.add_node("X"), y = w.add_node("Y");
  h.set_clients({"X", "Y"});
  RedisNode::Channel* cx = &redis.connect(x);
  RedisNode::Channel* cy = &redis.connect(y);
  Outcome out;
  w.set_start(x, [&](sim::Proc p) { return holder(p, &redis, cx, &h, &out); });
  w.set_start(y, [&](sim::Proc p) { return intruder(p, cy, &h, &out); });
  w.run_until(at(2_s));

  CHECK(out.x_acquired);
  REQUIRE(out.y_ran);
  CHECK_FALSE(out.y_released);
  // Y's release touched nothing of the lock key...
  for (const HistoryEvent& e : h.events())
    if (e.key == "lock") CHECK(e.client == 0);
  // ...which was still there, with its TTL, when X came to release it.
  CHECK(out.pttl_after_refusal > 0);
  CHECK(out.x_released);
  CHECK(redis.server().peek_pttl("lock", redis.local_ms()) == -2);
}

TEST_CASE("reentrant: a release whose reply is lost still stops the renewal (Redisson's unlockAsync)", "[lock]") {
  SimulationConfig c;
  c.algorithm = "reentrant";
  c.lock.lease = 3_s;
  c.lock.renew_interval = 1_s;
  c.workload.clients = 1;
  c.workload.iterations = 1;
  c.workload.start_spread = 0_ms;
  c.workload.work_min = c.workload.work_max = 200_ms;
  c.workload.write_resource = false;
  // The release (at ~200ms) is lost in the cut; the first renewal (at ~1s) would get through.
  c.faults = *sim::parse_fault_plan("cut A redis @150ms for 600ms");
  auto s = run(c);
  const History& h = s->history();
  auto released = steps(h, Step::Released, 0);
  REQUIRE(released.size() == 1);
  CHECK(!released[0].own_lock);  // no answer: the client cannot know
  CHECK(steps(h, Step::Renewed).empty());
  // Nobody re-arms the key: it expires one lease after it was taken (expiry is
  // lazy and nobody touches the key again, so peek at that instant is the witness).
  for (const HistoryEvent& e : steps(h, Step::KeyExpireChanged)) CHECK(e.purpose == Purpose::Acquire);
  CHECK(s->redis().server().peek_pttl("lock", unix_ms(at(3_s + 10_ms))) == -2);
  CHECK(s->world().pending_events() == 0);  // no renewal left running after the client finished
}
