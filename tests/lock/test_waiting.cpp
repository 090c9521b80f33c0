// Waiting on Redis in the simulator: blocking pops answered by another
// client's push or by their timeout, pub/sub messages carried to subscribers
// over the network model and lost with the connection, and pubsub-wait, the
// lock whose waiters wake on the unlock message.
#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "locksim/lock/lua_variant.hpp"
#include "locksim/lock/redis_node.hpp"
#include "locksim/lock/sim_env.hpp"
#include "locksim/sim/fault.hpp"

using namespace locktest;

namespace {

// One Redis node and two clients (A, B), each with a command connection and a
// subscriber connection; every link takes exactly 10 ms one way.
struct Bench {
  sim::World w{7};
  History history;
  RedisNode& redis =
      (w.network().set_default_latency(sim::LatencyDist{10_ms}), w.make<RedisNode>(w, "redis", &history));
  std::vector<sim::NodeId> nodes;
  std::vector<RedisNode::Channel*> main, sub;
  std::vector<ClientLife> lives = std::vector<ClientLife>(2);
  std::vector<CallFault> no_faults;

  Bench() {
    for (const char* name : {"A", "B"}) nodes.push_back(w.add_node(name));
    for (sim::NodeId n : nodes) main.push_back(&redis.connect(n));
    for (sim::NodeId n : nodes) sub.push_back(&redis.connect(n));
  }
  // Runs `body` as client c's task from `start` on.
  void client(uint32_t c, std::function<sim::Task<void>(SimEnv&)> body) {
    w.set_start(nodes[c], [this, c, body](sim::Proc p) -> sim::Task<void> {
      SimEnv env(p, *main[c], c, lives[c], history, 500_ms, no_faults);
      env.set_subscriber_route([this, c](uint32_t) -> RedisNode::Channel& { return *sub[c]; });
      co_await body(env);
    });
  }
};

// What a client got, and when (true time, ms).
struct Got {
  int64_t at_ms = -1;
  RedisResult result;
};

sim::Task<void> send_at(SimEnv& env, sim::Duration when, Command command, RedisResult* out = nullptr) {
  co_await env.sleep(when);
  RedisResult r = co_await env.redis(std::move(command), Purpose::Other);
  if (out) *out = r;
}

}  // namespace

TEST_CASE("waiting: BLPOP is answered when another client's RPUSH serves it, one trip later", "[lock][sim]") {
  Bench b;
  Got popped;
  RedisResult pushed;
  b.client(0, [&](SimEnv& env) -> sim::Task<void> {
    RedisResult r = co_await env.redis_blocking(0, cmd("BLPOP", "q", "5"), Purpose::Other, 5_s);
    popped = {b.w.now().ms(), r};
  });
  b.client(1, [&](SimEnv& env) { return send_at(env, 100_ms, cmd("RPUSH", "q", "job"), &pushed); });
  b.w.run_until(at(10_s));
  REQUIRE(popped.result.ok());
  CHECK(redis::to_string(popped.result.value) == "[\"q\", \"job\"]");
  CHECK(popped.at_ms == 120);  // the RPUSH reaches the server at 110 ms; the pop travels 10 ms
  CHECK(replied_int(pushed, 1));
  CHECK(b.redis.waiting_calls() == 0);
}

TEST_CASE("waiting: a BLPOP nobody serves answers nil when its timeout passes on the server's clock", "[lock][sim]") {
  Bench b;
  Got popped;
  b.client(0, [&](SimEnv& env) -> sim::Task<void> {
    RedisResult r = co_await env.redis_blocking(0, cmd("BLPOP", "q", "1"), Purpose::Other, 1_s);
    popped = {b.w.now().ms(), r};
  });
  b.w.run_until(at(10_s));
  REQUIRE(popped.result.ok());
  CHECK(popped.result.value.type == Reply::Type::NilArray);
  // Blocked at 10 ms with a 1 s timeout: timed out just after 1010 ms, back 10 ms later.
  CHECK(popped.at_ms >= 1020);
  CHECK(popped.at_ms <= 1022);
}

TEST_CASE("waiting: a reset of a blocked call's connection loses it and unblocks the server", "[lock][sim]") {
  Bench b;
  Got popped;
  RedisResult pushed, length;
  b.client(0, [&](SimEnv& env) -> sim::Task<void> {
    RedisResult r = co_await env.redis_blocking(0, cmd("BLPOP", "q", "5"), Purpose::Other, 5_s);
    popped = {b.w.now().ms(), r};
  });
  b.client(1, [&](SimEnv& env) -> sim::Task<void> {
    co_await send_at(env, 100_ms, cmd("RPUSH", "q", "job"), &pushed);
    co_await send_at(env, 0_ms, cmd("LLEN", "q"), &length);
  });
  b.w.run_until(at(50_ms));
  CHECK(b.redis.waiting_calls() == 1);
  b.w.reset(b.nodes[0], b.redis.node());
  b.w.run_until(at(10_s));
  CHECK(popped.result.status == sim::CallStatus::ConnectionLost);
  CHECK(popped.at_ms == 50);
  CHECK(b.redis.waiting_calls() == 0);
  // Nobody was blocked any more when the RPUSH came: the job stays in the list.
  CHECK(replied_int(pushed, 1));
  CHECK(replied_int(length, 1));
}

TEST_CASE("waiting: a crash of the Redis node fails a blocked call, and after the restart nobody is blocked",
          "[lock][sim]") {
  Bench b;
  Got popped, again;
  RedisResult length;
  b.client(0, [&](SimEnv& env) -> sim::Task<void> {
    RedisResult r = co_await env.redis_blocking(0, cmd("BLPOP", "q", "5"), Purpose::Other, 5_s);
    popped = {b.w.now().ms(), r};
    co_await env.sleep(200_ms);  // past the restart and B's RPUSH
    RedisResult r2 = co_await env.redis_blocking(0, cmd("BLPOP", "q", "5"), Purpose::Other, 5_s);
    again = {b.w.now().ms(), r2};
  });
  b.client(1, [&](SimEnv& env) -> sim::Task<void> {
    co_await send_at(env, 150_ms, cmd("RPUSH", "q", "job"));
    co_await send_at(env, 0_ms, cmd("LLEN", "q"), &length);
  });
  b.w.run_until(at(50_ms));
  b.w.crash(b.redis.node());
  b.w.run_until(at(100_ms));
  b.w.restart(b.redis.node());
  b.w.run_until(at(10_s));
  CHECK(popped.result.status == sim::CallStatus::ConnectionLost);
  CHECK(popped.at_ms == 50);
  CHECK(replied_int(length, 1));  // the RPUSH found nobody blocked
  REQUIRE(again.result.ok());
  CHECK(redis::to_string(again.result.value) == "[\"q\", \"job\"]");
  CHECK(b.redis.waiting_calls() == 0);
}

TEST_CASE("waiting: a Redis node paused past a BLPOP's deadline answers it when the pause ends", "[lock][sim]") {
  Bench b;
  Got popped;
  b.client(0, [&](SimEnv& env) -> sim::Task<void> {
    RedisResult r = co_await env.redis_blocking(0, cmd("BLPOP", "q", "1"), Purpose::Other, 5_s);
    popped = {b.w.now().ms(), r};
  });
  b.w.run_until(at(500_ms));
  b.w.pause(b.redis.node(), 1_s);
  b.w.run_until(at(10_s));
  REQUIRE(popped.result.ok());
  CHECK(popped.result.value.type == Reply::Type::NilArray);
  CHECK(popped.at_ms == 1510);  // the timer fires at the resume (1.5 s); the nil travels 10 ms
}

TEST_CASE("waiting: a subscriber whose process crashes is unsubscribed when its close reaches the server",
          "[lock][sim]") {
  Bench b;
  RedisResult before, after;
  b.client(1, [&](SimEnv& env) -> sim::Task<void> {
    RedisResult s = co_await env.subscriber(0, cmd("SUBSCRIBE", "ch"), Purpose::Other);
    (void)s;
    co_await env.sleep(10_s);
  });
  b.client(0, [&](SimEnv& env) -> sim::Task<void> {
    co_await send_at(env, 50_ms, cmd("PUBLISH", "ch", "one"), &before);
    co_await send_at(env, 100_ms, cmd("PUBLISH", "ch", "two"), &after);
  });
  b.w.run_until(at(100_ms));
  b.w.crash(b.nodes[1]);
  b.w.run_until(at(10_s));
  CHECK(replied_int(before, 1));
  CHECK(replied_int(after, 0));  // the close arrived at 110 ms, before the PUBLISH at 180 ms
}

TEST_CASE("waiting: a published message reaches a subscriber's read one trip after the PUBLISH runs", "[lock][sim]") {
  Bench b;
  RedisResult subscribed, published;
  Got message, nothing;
  b.client(1, [&](SimEnv& env) -> sim::Task<void> {
    subscribed = co_await env.subscriber(0, cmd("SUBSCRIBE", "ch"), Purpose::Other);
    RedisResult m = co_await env.next_pushed(0, 2_s);
    message = {b.w.now().ms(), m};
    RedisResult n = co_await env.next_pushed(0, 300_ms);  // nothing more: nil when the wait passes
    nothing = {b.w.now().ms(), n};
  });
  b.client(0, [&](SimEnv& env) { return send_at(env, 100_ms, cmd("PUBLISH", "ch", "hello"), &published); });
  b.w.run_until(at(10_s));
  CHECK(redis::to_string(subscribed.value) == "[\"subscribe\", \"ch\", (integer) 1]");
  CHECK(replied_int(published, 1));  // one subscriber
  REQUIRE(message.result.ok());
  CHECK(redis::to_string(message.result.value) == "[\"message\", \"ch\", \"hello\"]");
  CHECK(message.at_ms == 120);
  REQUIRE(nothing.result.ok());
  CHECK(nothing.result.value.is_nil());
  CHECK(nothing.at_ms == 120 + 10 + 300 + 10);
}

TEST_CASE("waiting: a message sent into a cut is lost, and a reset loses the subscription and the read says so",
          "[lock][sim]") {
  Bench b;
  RedisResult published;
  Got lost, after_reset;
  b.client(1, [&](SimEnv& env) -> sim::Task<void> {
    RedisResult s = co_await env.subscriber(0, cmd("SUBSCRIBE", "ch"), Purpose::Other);
    (void)s;
    RedisResult m = co_await env.next_pushed(0, 1_s);  // the server answers it at 110 ms, into the cut
    lost = {b.w.now().ms(), m};
    co_await env.sleep(100_ms);  // the reset comes meanwhile
    RedisResult n = co_await env.next_pushed(0, 1_s);
    after_reset = {b.w.now().ms(), n};
  });
  b.client(0, [&](SimEnv& env) { return send_at(env, 100_ms, cmd("PUBLISH", "ch", "hello"), &published); });
  b.w.run_until(at(105_ms));
  b.w.cut(b.nodes[1], b.redis.node(), 100_ms);
  b.w.run_until(at(1600_ms));
  b.w.reset(b.nodes[1], b.redis.node());
  b.w.run_until(at(10_s));
  CHECK(replied_int(published, 1));
  CHECK(lost.result.status == sim::CallStatus::TimedOut);
  CHECK(lost.at_ms == 20 + 1000 + 500);  // the read's wait plus the call timeout
  bool dropped = false;
  for (const sim::TraceEvent& e : b.w.trace().events())
    dropped |= e.kind == sim::TraceKind::MessageDropped && e.first == static_cast<int64_t>(sim::DropReason::Cut) &&
               e.at.ns == 110'000'000;
  CHECK(dropped);
  REQUIRE(after_reset.result.ok());
  CHECK(after_reset.result.value.is_error());
}

namespace {

// Two pubsub-wait clients starting together: one holds the lock for 300 ms, the other waits.
SimulationConfig two_waiting_clients() {
  SimulationConfig c;
  c.algorithm = "pubsub-wait";
  c.latency = sim::LatencyDist{10_ms};
  c.lock.lease = 2_s;
  c.workload.clients = 2;
  c.workload.iterations = 1;
  c.workload.start_spread = 0_ms;
  c.workload.work_min = c.workload.work_max = 300_ms;
  c.workload.write_resource = false;
  return c;
}

struct Handover {
  HistoryEvent first, second;  // the two Acquired steps, in order
  HistoryEvent unlocked;       // the first holder's release deleting its key
};

Handover handover(const History& h) {
  auto acquired = steps(h, Step::Acquired);
  REQUIRE(acquired.size() == 2);
  Handover out{acquired[0], acquired[1], {}};
  bool found = false;
  for (const HistoryEvent& e : steps(h, Step::KeyDeleted, out.first.client))
    if (e.purpose == Purpose::Release && !found) out.unlocked = e, found = true;
  REQUIRE(found);
  return out;
}

}  // namespace

TEST_CASE("pubsub-wait: the waiter is woken by the unlock PUBLISH, not by the lease's end", "[lock][sim]") {
  auto s = run(two_waiting_clients());
  const Handover h = handover(s->history());
  CHECK(overlaps(s->history()).empty());
  // The message takes one trip (10 ms) and the SET NX one round trip (20 ms).
  CAPTURE(h.first.at.ns, h.unlocked.at.ns, h.second.at.ns);
  CHECK((h.second.at - h.unlocked.at) == 30_ms);
  // The first holder's lease (2 s from its SET) would have run out much later.
  CHECK(h.second.at < h.first.at + 1_s);
  const std::string waiter = h.second.client == 0 ? "A" : "B";
  const auto sent = commands_sent(*s, waiter);
  CHECK(std::count(sent.begin(), sent.end(), "SUBSCRIBE unlock:lock") == 1);
  CHECK(std::count(sent.begin(), sent.end(), "UNSUBSCRIBE unlock:lock") == 1);
  CHECK(std::count(sent.begin(), sent.end(), "PTTL lock") == 1);
}

TEST_CASE("pubsub-wait: an unlock message lost to a cut link costs the waiter the TTL, not the lock", "[lock][sim]") {
  // Who wins the first SET is fixed by the seed: A (asserted below); B waits.
  SimulationConfig c = two_waiting_clients();
  c.faults = *sim::parse_fault_plan("cut B redis @325ms for 20ms");  // the message leaves the server at 330 ms
  auto s = run(c);
  const Handover h = handover(s->history());
  REQUIRE(h.first.client == 0);
  CHECK(h.second.client == 1);
  CHECK(overlaps(s->history()).empty());
  // No wake-up by the message: B wakes when its read gives up, after A's lease would have run out.
  CHECK(h.second.at > h.first.at + c.lock.lease);
  CHECK(h.second.at < at(c.lock.wait_limit));
  bool dropped = false;
  for (const sim::TraceEvent& e : s->world().trace().events())
    dropped |= e.kind == sim::TraceKind::MessageDropped && e.first == static_cast<int64_t>(sim::DropReason::Cut) &&
               e.at == h.unlocked.at;
  CHECK(dropped);
}

TEST_CASE("pubsub-wait: the same seed gives the same trace hash, under cuts, resets and crashes", "[lock][sim]") {
  SimulationConfig c;
  c.algorithm = "pubsub-wait";
  c.workload.clients = 4;
  c.workload.iterations = 4;
  c.faults = *sim::parse_fault_plan(
      "cut B redis @300ms for 200ms; reset C redis @700ms; crash redis @1.2s; restart redis @1.4s; crash D @2s; "
      "restart D @2.2s");
  for (uint64_t seed : {1, 2}) {
    CAPTURE(seed);
    c.seed = seed;
    auto x = run(c);
    auto y = run(c);
    CHECK(x->trace_hash() == y->trace_hash());
    CHECK(x->history().events().size() == y->history().events().size());
    CHECK_FALSE(steps(x->history(), Step::Acquired).empty());
  }
  c.seed = 1;
  auto one = run(c);
  c.seed = 2;
  auto two = run(c);
  CHECK(one->trace_hash() != two->trace_hash());
}

namespace {

// pubsub-wait written as a Lua variant: subscriber_call, next_message.
const char* kLuaPubSubWait = R"lua(
name = "test-lua-pubsub-wait"
summary = "pubsub-wait in Lua"
local mine
local function try_set()
  local t = token()
  local r = call("SET", param("key"), t, "NX", "PX", param("lease"))
  if type(r) == "table" and r.ok == "OK" then mine = t return true end
  return false
end
function acquire()
  if try_set() then return true end
  local deadline = now() + param("wait-limit")
  local channel = "unlock:" .. param("key")
  subscriber_call("SUBSCRIBE", channel)
  local held = false
  while now() < deadline do
    if try_set() then held = true break end
    local ttl = call("PTTL", param("key"))
    local wait = (type(ttl) == "number" and ttl >= 0) and math.max(ttl, 1) or param("retry")
    local m = next_message(math.min(wait, deadline - now()))
    if type(m) == "table" then log("woken by " .. m[1] .. " on " .. m[2]) end
  end
  spawn(subscriber_call, "UNSUBSCRIBE", channel)  -- not waited for, as Redisson
  return held
end
function release()
  local script = "if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('del', KEYS[1]) " ..
                 "redis.call('publish', KEYS[2], 'unlocked') return 1 end return 0"
  return call("EVAL", script, 2, param("key"), "unlock:" .. param("key"), mine) == 1
end
)lua";

// BLPOP from a Lua variant: call_blocking.
const char* kLuaBlpop = R"lua(
name = "test-lua-blpop"
function acquire()
  local r = call_blocking(2000, "BLPOP", "q", 1)
  log(r == false and "nil" or "popped")
  return false
end
function release() return true end
)lua";

const Algorithm& lua_variant(const char* text) {
  std::string error;
  auto v = load_lua_variant_text(text, "t/waiting.lua", &error);
  INFO(error);
  REQUIRE(v);
  if (const Algorithm* a = find_algorithm(v->name)) return *a;
  const Algorithm* a = register_lua_variant(v, &error);
  INFO(error);
  REQUIRE(a);
  return *a;
}

}  // namespace

TEST_CASE("waiting from Lua: a variant's waiter wakes on the unlock message, as pubsub-wait does", "[lock][sim]") {
  SimulationConfig c = two_waiting_clients();
  c.algorithm = std::string(lua_variant(kLuaPubSubWait).id);
  auto s = run(c);
  CHECK(steps(s->history(), Step::VariantError).empty());
  const Handover h = handover(s->history());
  CAPTURE(h.first.at.ns, h.unlocked.at.ns, h.second.at.ns);
  CHECK((h.second.at - h.unlocked.at) == 30_ms);
  auto logs = steps(s->history(), Step::Log, h.second.client);
  REQUIRE(logs.size() == 1);
  CHECK(logs[0].text == "woken by message on unlock:lock");
}

TEST_CASE("waiting from Lua: call_blocking waits out the command's own timeout, and its nil comes back as false",
          "[lock][sim]") {
  SimulationConfig c;
  c.algorithm = std::string(lua_variant(kLuaBlpop).id);
  c.latency = sim::LatencyDist{10_ms};
  c.workload.clients = 1;
  c.workload.iterations = 1;
  c.workload.start_spread = 0_ms;
  auto s = run(c);
  CHECK(steps(s->history(), Step::VariantError).empty());
  auto logs = steps(s->history(), Step::Log, 0);
  REQUIRE(logs.size() == 1);
  CHECK(logs[0].text == "nil");
  // Blocked at 10 ms for 1 s on the server's clock; the nil is back 10 ms after it times out.
  CHECK(logs[0].at >= at(1020_ms));
  CHECK(logs[0].at <= at(1022_ms));
}
