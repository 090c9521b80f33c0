// Pause: a paused node's tasks are frozen (spawned ones too), and what arrives
// meanwhile is delivered, in order, when the pause ends.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "helpers.hpp"

using namespace simtest;

namespace {
void pause_event(World& w, const Event& e) {
  w.pause(static_cast<NodeId>(e.id), Duration{static_cast<int64_t>(e.generation)});
}
void schedule_pause(World& w, NodeId n, Instant when, Duration how_long) {
  w.schedule(when, &pause_event, nullptr, n, static_cast<uint64_t>(how_long.ns));
}
}  // namespace

TEST_CASE("a sleeping task's wake-up is deferred to the end of the pause", "[pause]") {
  World w(1);
  NodeId n = w.add_node("n");
  std::vector<int64_t> woke;
  w.set_start(n, [&](Proc p) -> Task<void> {
    co_await p.sleep(10_ms);  // due at 10ms, inside the pause
    woke.push_back(w.now().ns);
    co_await p.sleep(10_ms);  // measured from the late wake-up
    woke.push_back(w.now().ns);
    co_await p.sleep(100_ms);  // due after the pause: untouched
    woke.push_back(w.now().ns);
  });
  schedule_pause(w, n, at(5_ms), 20_ms);
  w.run();
  CHECK(woke == std::vector<int64_t>{25'000'000, 35'000'000, 135'000'000});
  auto pauses = events_of(w, TraceKind::Pause), resumes = events_of(w, TraceKind::Resume);
  REQUIRE(pauses.size() == 1);
  REQUIRE(resumes.size() == 1);
  CHECK(pauses[0].at == at(5_ms));
  CHECK(pauses[0].span().ns == 20'000'000);
  CHECK(resumes[0].at == at(25_ms));
}

TEST_CASE("a spawned task of a paused node is frozen too", "[pause]") {
  World w(1);
  NodeId n = w.add_node("n");
  std::vector<int64_t> main_ticks, watchdog_ticks;
  auto watchdog = [&](Proc p) -> Task<void> {
    for (int i = 0; i < 6; ++i) {
      co_await p.sleep(4_ms);
      watchdog_ticks.push_back(w.now().ms());
    }
  };
  w.set_start(n, [&](Proc p) -> Task<void> {
    p.spawn(watchdog(p));
    for (int i = 0; i < 5; ++i) {
      co_await p.sleep(3_ms);
      main_ticks.push_back(w.now().ms());
    }
  });
  schedule_pause(w, n, at(7_ms), 10_ms);  // frozen from 7ms to 17ms
  w.run();
  // Due at 8 (watchdog) and 9 (main), inside the pause: both delivered at 17, in the order they fell due.
  CHECK(main_ticks == std::vector<int64_t>{3, 6, 17, 20, 23});
  CHECK(watchdog_ticks == std::vector<int64_t>{4, 17, 21, 25, 29, 33});
  CHECK(w.node(n).deferred.empty());
}

TEST_CASE("a server pause defers request execution to its end, in arrival order", "[pause]") {
  World w(1);
  w.network().set_default_latency(LatencyDist{10_ms});
  NodeId server = w.add_node("server"), a = w.add_node("a"), b = w.add_node("b");
  EchoServer echo(w, server);
  auto& ca = echo.service->connect(a);
  auto& cb = echo.service->connect(b);
  std::vector<std::string> replies;
  auto caller = [&](Proc p, EchoChannel& ch, int64_t value, Duration delay) -> Task<void> {
    co_await p.sleep(delay);
    auto r = co_await ch.call(value, 1_s);
    replies.push_back(std::to_string(r.value) + "@" + std::to_string(w.now().ms()));
  };
  // a sends 1..4 at 0, 2, 4, 6ms; b sends 11..13 at 1, 3, 5ms: arrivals at 10..16ms, interleaved.
  w.set_start(a, [&](Proc p) -> Task<void> {
    for (int i = 0; i < 4; ++i) p.spawn(caller(p, ca, 1 + i, milliseconds(2 * i)));
    co_return;
  });
  w.set_start(b, [&](Proc p) -> Task<void> {
    for (int i = 0; i < 3; ++i) p.spawn(caller(p, cb, 11 + i, milliseconds(2 * i + 1)));
    co_return;
  });
  schedule_pause(w, server, at(12_ms) + 500_us, 30_ms);  // 12.5ms .. 42.5ms
  w.run();
  CHECK(echo.executed == std::vector<int64_t>{1, 11, 2, 12, 3, 13, 4});
  CHECK(echo.executed_at ==
        std::vector<Instant>{at(10_ms), at(11_ms), at(12_ms), at(42500_us), at(42500_us), at(42500_us), at(42500_us)});
  CHECK(replies == std::vector<std::string>{"1@20", "11@21", "2@22", "12@52", "3@52", "13@52", "4@52"});
}

TEST_CASE("a paused client receives its replies at the end of the pause, in order", "[pause]") {
  World w(1);
  NodeId server = w.add_node("server"), client = w.add_node("client");
  w.network().set_latency(server, client, LatencyDist{1_ms, 8_ms});  // jittered, but FIFO
  EchoServer echo(w, server);
  auto& ch = echo.service->connect(client);
  std::vector<int64_t> order;
  std::vector<int64_t> when;
  w.set_start(client, [&](Proc p) -> Task<void> {
    for (int i = 0; i < 20; ++i) {
      p.spawn([](Proc q, EchoChannel& c, int64_t v, std::vector<int64_t>& o, std::vector<int64_t>& t) -> Task<void> {
        auto r = co_await c.call(v, 1_s);
        o.push_back(r.value);
        t.push_back(q.world().now().ns);
      }(p, ch, i, order, when));
      co_await p.sleep(100_us);
    }
  });
  schedule_pause(w, client, at(2_ms) + 1_ns, 50_ms);
  w.run();
  std::vector<int64_t> expected;
  for (int i = 0; i < 20; ++i) expected.push_back(i);
  CHECK(order == expected);                       // FIFO survives the pause
  for (int64_t t : when) CHECK(t == 52'000'001);  // every reply was due inside the pause
  CHECK(count_of(w, TraceKind::ReplyReceived) == 20);
}

TEST_CASE("a later pause supersedes an earlier pause's end, a crashed node cannot pause", "[pause]") {
  World w(1);
  NodeId n = w.add_node("n");
  std::vector<int64_t> woke;
  w.set_start(n, [&](Proc p) -> Task<void> {
    co_await p.sleep(10_ms);
    woke.push_back(w.now().ms());
  });
  schedule_pause(w, n, at(5_ms), 10_ms);  // would end at 15ms
  schedule_pause(w, n, at(8_ms), 20_ms);  // ends at 28ms instead
  w.run();
  CHECK(woke == std::vector<int64_t>{28});
  CHECK(count_of(w, TraceKind::Resume) == 1);
  CHECK(events_of(w, TraceKind::Resume)[0].at == at(28_ms));

  w.crash(n);
  w.pause(n, 5_ms);
  CHECK(w.node(n).state == NodeState::Crashed);
  CHECK(count_of(w, TraceKind::Pause) == 2);
}

TEST_CASE("a pause within a longer pause does not shorten it: the node resumes at the later end", "[pause]") {
  World w(1);
  NodeId n = w.add_node("n");
  std::vector<int64_t> woke;
  std::vector<TraceKind> told;
  w.set_start(n, [&](Proc p) -> Task<void> {
    co_await p.sleep(10_ms);
    woke.push_back(w.now().ms());
  });
  w.on_node_fault([&](NodeId, TraceKind k) { told.push_back(k); });
  schedule_pause(w, n, at(5_ms), 30_ms);  // ends at 35ms
  schedule_pause(w, n, at(8_ms), 10_ms);  // would end at 18ms: inside the first
  w.run();
  CHECK(woke == std::vector<int64_t>{35});
  CHECK(count_of(w, TraceKind::Pause) == 2);  // both are in the trace
  REQUIRE(count_of(w, TraceKind::Resume) == 1);
  CHECK(events_of(w, TraceKind::Resume)[0].at == at(35_ms));
  // Listeners (the lock history) hear of one pause and one resume: the node never ran between them.
  CHECK(told == std::vector<TraceKind>{TraceKind::Pause, TraceKind::Resume});
}
