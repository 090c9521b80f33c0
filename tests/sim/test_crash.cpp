// Crash and restart: tasks die with their destructors run and never resume;
// replies to a crashed node are dropped and recorded; requests it sent still
// run; a restart is a new incarnation running the start routine again.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "helpers.hpp"

using namespace simtest;

TEST_CASE("a crash destroys every task of the node, nested and spawned, and none resumes", "[crash]") {
  World w(1);
  NodeId n = w.add_node("n");
  NodeId other = w.add_node("other");
  int destroyed = 0, resumed_after_crash = 0;
  std::vector<int64_t> ticks;
  bool crashed = false;
  auto nested = [&](Proc p) -> Task<int> {
    Probe probe(&destroyed);
    co_await p.sleep(100_ms);
    if (crashed) ++resumed_after_crash;
    co_return 1;
  };
  auto watchdog = [&](Proc p) -> Task<void> {
    Probe probe(&destroyed);
    for (;;) {
      co_await p.sleep(1_ms);
      if (crashed) ++resumed_after_crash;
      ticks.push_back(w.now().ms());
    }
  };
  int starts = 0;
  w.set_start(n, [&](Proc p) -> Task<void> {
    ++starts;
    if (starts > 1) co_return;  // the second incarnation does nothing
    Probe probe(&destroyed);
    p.spawn(watchdog(p));
    int x = co_await nested(p);
    if (crashed) ++resumed_after_crash;
    (void)x;
  });
  // Another node keeps time running past the crash.
  w.set_start(other, [&](Proc p) -> Task<void> { co_await p.sleep(1_s); });
  w.schedule(
      at(5_ms) + 500_us,
      [](World& world, const Event& e) {
        *static_cast<bool*>(e.obj) = true;
        world.crash(static_cast<NodeId>(e.id));
      },
      &crashed, n);
  w.run();
  CHECK(destroyed == 3);  // root, nested awaited task, spawned watchdog
  CHECK(resumed_after_crash == 0);
  CHECK(ticks == std::vector<int64_t>{1, 2, 3, 4, 5});
  CHECK(w.node(n).state == NodeState::Crashed);
  CHECK(w.node(n).incarnation == 1);
  CHECK(w.node(n).fibers.empty());
  CHECK(count_of(w, TraceKind::FiberCancelled) == 2);
  auto crashes = events_of(w, TraceKind::Crash);
  REQUIRE(crashes.size() == 1);
  CHECK(crashes[0].at == at(5500_us));
  CHECK(crashes[0].node == n);
  CHECK(starts == 1);
  CHECK(w.now() == at(1_s));
  CHECK_FALSE(w.is_up(n));
}

TEST_CASE("crash hooks run at the crash", "[crash]") {
  World w(1);
  NodeId n = w.add_node("n");
  int hooks = 0;
  w.node(n).crash_hooks.push_back([&] { ++hooks; });
  w.crash(n);
  w.crash(n);  // crashing a crashed node does nothing
  CHECK(hooks == 1);
  CHECK(count_of(w, TraceKind::Crash) == 1);
}

TEST_CASE_METHOD(EchoPair, "a reply in flight to a crashed client is dropped and recorded", "[crash]") {
  bool resumed = false;
  w.set_start(client, [&](Proc) -> Task<void> {
    auto r = co_await ch.call(42, 1_s);
    resumed = true;
    (void)r;
  });
  // Request arrives at 10ms and runs; the reply is in flight until 20ms.
  w.schedule(
      at(15_ms), [](World& world, const Event& e) { world.crash(static_cast<NodeId>(e.id)); }, nullptr, client);
  w.run();
  CHECK_FALSE(resumed);
  CHECK(echo.executed == std::vector<int64_t>{42});
  auto drops = events_of(w, TraceKind::MessageDropped);
  REQUIRE(drops.size() == 1);
  CHECK(drops[0].at == at(20_ms));
  CHECK(drops[0].node == client);
  CHECK(drops[0].drop_reason() == DropReason::ReceiverCrashed);
  CHECK(drops[0].call() == 1);  // call #1
  CHECK(count_of(w, TraceKind::ReplyReceived) == 0);
  CHECK(count_of(w, TraceKind::CallTimedOut) == 0);  // the timeout died with the task
  CHECK(ch.in_flight() == 0);
  CHECK(Trace::render(drops[0], "client") == "   0.020s  client   message-dropped  (receiver crashed) call #1");
}

TEST_CASE_METHOD(EchoPair, "a reply to a restarted client's old incarnation is dropped", "[crash]") {
  std::vector<std::string> got;
  w.set_start(client, [&](Proc p) -> Task<void> {
    auto r = co_await ch.call(w.node(p.id()).incarnation == 0 ? 1 : 2, 1_s);
    got.push_back(std::string(to_string(r.status)) + " " + std::to_string(r.value));
  });
  w.schedule(
      at(12_ms), [](World& world, const Event& e) { world.crash(static_cast<NodeId>(e.id)); }, nullptr, client);
  w.schedule(
      at(13_ms), [](World& world, const Event& e) { world.restart(static_cast<NodeId>(e.id)); }, nullptr, client);
  w.run();
  // The old reply lands at 20ms on incarnation 1 and is dropped; the new call is answered at 33ms.
  CHECK(got == std::vector<std::string>{"ok 2"});
  auto drops = events_of(w, TraceKind::MessageDropped);
  REQUIRE(drops.size() == 1);
  CHECK(drops[0].at == at(20_ms));
  CHECK(drops[0].drop_reason() == DropReason::ReceiverCrashed);
  auto replies = events_of(w, TraceKind::ReplyReceived);
  REQUIRE(replies.size() == 1);
  CHECK(replies[0].at == at(33_ms));
}

TEST_CASE_METHOD(EchoPair, "a request sent just before the client crashes still runs on the server", "[crash]") {
  w.set_start(client, [&](Proc) -> Task<void> { (void)co_await ch.call(7, 1_s); });
  w.schedule(
      at(1_ns), [](World& world, const Event& e) { world.crash(static_cast<NodeId>(e.id)); }, nullptr, client);
  w.run();
  CHECK(echo.executed == std::vector<int64_t>{7});
  CHECK(echo.executed_at == std::vector<Instant>{at(10_ms)});
  // The server then learns of the close (sent at the crash, FIFO behind the request).
  CHECK(echo.log == std::vector<std::string>{"req 7", "close 1"});
  auto closed = events_of(w, TraceKind::ConnectionClosed);
  REQUIRE(closed.size() == 1);
  CHECK(closed[0].at == at(10_ms) + 1_ns);
  CHECK(closed[0].node == server);
}

TEST_CASE("restart runs the start routine as a new incarnation", "[crash]") {
  World w(1);
  NodeId n = w.add_node("n");
  std::vector<std::string> log;
  w.set_start(n, [&](Proc p) -> Task<void> {
    uint32_t inc = w.node(p.id()).incarnation;
    log.push_back("start " + std::to_string(inc) + " @" + std::to_string(w.now().ms()));
    for (int i = 0;; ++i) {
      co_await p.sleep(10_ms);
      log.push_back("tick " + std::to_string(inc) + "." + std::to_string(i) + " @" + std::to_string(w.now().ms()));
    }
  });
  w.schedule(
      at(25_ms), [](World& world, const Event& e) { world.crash(static_cast<NodeId>(e.id)); }, nullptr, n);
  w.schedule(
      at(40_ms), [](World& world, const Event& e) { world.restart(static_cast<NodeId>(e.id)); }, nullptr, n);
  w.run_until(at(65_ms));
  CHECK(log == std::vector<std::string>{"start 0 @0", "tick 0.0 @10", "tick 0.1 @20", "start 1 @40", "tick 1.0 @50",
                                        "tick 1.1 @60"});
  auto restarts = events_of(w, TraceKind::Restart);
  REQUIRE(restarts.size() == 1);
  CHECK(restarts[0].at == at(40_ms));
  CHECK(restarts[0].incarnation() == 1);  // the incarnation number
  CHECK(w.node(n).state == NodeState::Up);
  CHECK(w.node(n).fibers.size() == 1);

  // Restarting a live node crashes it first.
  w.restart(n);
  CHECK(w.node(n).incarnation == 2);
  CHECK(count_of(w, TraceKind::Crash) == 2);
  CHECK(w.node(n).fibers.size() == 1);
}

TEST_CASE("a crash during a pause drops what the pause held back", "[crash]") {
  World w(1);
  NodeId n = w.add_node("n");
  int woke = 0, destroyed = 0;
  w.set_start(n, [&](Proc p) -> Task<void> {
    Probe probe(&destroyed);
    co_await p.sleep(10_ms);
    ++woke;
  });
  w.schedule(
      at(5_ms), [](World& world, const Event& e) { world.pause(static_cast<NodeId>(e.id), 20_ms); }, nullptr, n);
  w.schedule(
      at(15_ms), [](World& world, const Event& e) { world.crash(static_cast<NodeId>(e.id)); }, nullptr, n);
  w.run();
  CHECK(woke == 0);
  CHECK(destroyed == 1);
  CHECK(w.node(n).deferred.empty());
  CHECK(count_of(w, TraceKind::Resume) == 0);  // the pause's end is superseded by the crash
  CHECK(w.node(n).state == NodeState::Crashed);
}
