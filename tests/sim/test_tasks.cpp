// Tasks: values, nested awaits, exceptions, sleep, spawn, cancel, the local clock.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "helpers.hpp"

using namespace simtest;

namespace {

Task<int> leaf(int x) { co_return x * 2; }
Task<int> middle(int x) {
  int a = co_await leaf(x);
  int b = co_await leaf(a);
  co_return a + b;
}
Task<int> deep(int n) {
  if (n == 0) co_return 0;
  const int below = co_await deep(n - 1);
  co_return 1 + below;
}
Task<std::string> sleepy_value(Proc p, Duration d, std::string s) {
  co_await p.sleep(d);
  co_return s + "@" + std::to_string(p.world().now().ns);
}
Task<int> thrower() {
  throw std::runtime_error("boom");
  co_return 0;
}

}  // namespace

TEST_CASE("tasks return values through nested awaits", "[tasks]") {
  World w(1);
  NodeId n = w.add_node("n");
  int result = -1;
  w.set_start(n, [&](Proc) -> Task<void> { result = co_await middle(5); });
  w.run();
  CHECK(result == 30);  // a = 10, b = 20
  CHECK(count_of(w, TraceKind::FiberStart) == 1);
  CHECK(count_of(w, TraceKind::FiberEnd) == 1);
}

// Symmetric transfer is a tail call in an optimised build; AddressSanitizer's
// instrumentation keeps the frames, so there the chain is only long, not huge.
#if defined(__SANITIZE_ADDRESS__)
constexpr int kChain = 2'000;
#else
constexpr int kChain = 200'000;
#endif

TEST_CASE("a long chain of awaits does not grow the native stack", "[tasks]") {
  World w(1);
  NodeId n = w.add_node("n");
  int result = -1;
  w.set_start(n, [&](Proc) -> Task<void> { result = co_await deep(kChain); });
  w.run();
  CHECK(result == kChain);
}

TEST_CASE("a task is lazy: nothing runs until it is awaited or spawned", "[tasks]") {
  int ran = 0;
  auto make = [&]() -> Task<void> {
    ++ran;
    co_return;
  };
  {
    Task<void> t = make();
    CHECK(t.valid());
    CHECK_FALSE(t.done());
  }
  CHECK(ran == 0);
}

TEST_CASE("an exception propagates to the awaiter, and out of run() from a root task", "[tasks]") {
  World w(1);
  NodeId n = w.add_node("n");
  std::string caught;
  w.set_start(n, [&](Proc) -> Task<void> {
    try {
      (void)co_await thrower();
    } catch (const std::runtime_error& e) {
      caught = e.what();
    }
  });
  w.run();
  CHECK(caught == "boom");

  World w2(1);
  NodeId m = w2.add_node("m");
  w2.set_start(m, [](Proc) -> Task<void> { (void)co_await thrower(); });
  CHECK_THROWS_WITH(w2.run(), "boom");
}

TEST_CASE("sleep wakes at exactly now + span on a perfect clock", "[tasks]") {
  World w(1);
  NodeId n = w.add_node("n");
  std::vector<int64_t> woke;
  w.set_start(n, [&](Proc p) -> Task<void> {
    co_await p.sleep(3_ms);
    woke.push_back(w.now().ns);
    co_await p.sleep(0_ms);
    woke.push_back(w.now().ns);
    co_await p.sleep(-(5_ms));  // a negative span sleeps for zero
    woke.push_back(w.now().ns);
    std::string s = co_await sleepy_value(p, 7_ns, "v");
    woke.push_back(w.now().ns);
    p.note(s);
  });
  w.run();
  CHECK(woke == std::vector<int64_t>{3'000'000, 3'000'000, 3'000'000, 3'000'007});
  auto notes = events_of(w, TraceKind::Note);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].text == "v@3000007");
  CHECK(notes[0].node == n);
}

TEST_CASE("sleep follows the node's clock rate, local_now reads offset, drift and jumps", "[tasks]") {
  World w(1);
  NodeId n = w.add_node("n", LocalClock(1_s, 100'000));  // +10%, one second ahead
  std::vector<int64_t> true_times, local_times;
  w.set_start(n, [&](Proc p) -> Task<void> {
    local_times.push_back(p.local_now().ns);
    co_await p.sleep(110_ms);  // 110ms of local time = 100ms of true time
    true_times.push_back(w.now().ns);
    local_times.push_back(p.local_now().ns);
    w.jump_clock(p.id(), -(500_ms));
    local_times.push_back(p.local_now().ns);
    co_await p.sleep(11_ms);  // the jump does not shorten it
    true_times.push_back(w.now().ns);
  });
  w.run();
  CHECK(true_times == std::vector<int64_t>{100'000'000, 110'000'000});
  CHECK(local_times == std::vector<int64_t>{1'000'000'000, 1'110'000'000, 610'000'000});
  CHECK(w.local_now(n).ns == 1'000'000'000 + 121'000'000 - 500'000'000);
  auto jumps = events_of(w, TraceKind::ClockJump);
  REQUIRE(jumps.size() == 1);
  CHECK(jumps[0].span().ns == -500'000'000);
}

TEST_CASE("a spawned second task runs alongside the first", "[tasks]") {
  World w(1);
  NodeId n = w.add_node("n");
  std::vector<std::string> log;
  auto ticker = [&](Proc p, std::string name, Duration every, int times) -> Task<void> {
    for (int i = 0; i < times; ++i) {
      co_await p.sleep(every);
      log.push_back(name + std::to_string(w.now().ms()));
    }
  };
  FiberId second = kNoFiber;
  w.set_start(n, [&](Proc p) -> Task<void> {
    second = p.spawn(ticker(p, "b", 3_ms, 3));
    CHECK(w.alive(second));
    CHECK(w.fiber_node(second) == p.id());
    co_await ticker(p, "a", 2_ms, 4);
  });
  w.run();
  // At 6ms both wake; b's wake-up was scheduled at 3ms, before a's at 4ms.
  CHECK(log == std::vector<std::string>{"a2", "b3", "a4", "b6", "a6", "a8", "b9"});
  CHECK(count_of(w, TraceKind::FiberStart) == 2);
  CHECK(count_of(w, TraceKind::FiberEnd) == 2);
  CHECK_FALSE(w.alive(second));
  CHECK(w.fiber_node(second) == kNoNode);
  CHECK(w.node(n).fibers.empty());
}

TEST_CASE("cancel destroys a task's frames, it never resumes", "[tasks]") {
  World w(1);
  NodeId n = w.add_node("n");
  int destroyed = 0, resumed = 0;
  auto inner = [&](Proc p) -> Task<void> {
    Probe probe(&destroyed);
    co_await p.sleep(10_ms);
    ++resumed;
  };
  auto victim = [&](Proc p) -> Task<void> {
    Probe probe(&destroyed);
    co_await inner(p);
    ++resumed;
  };
  w.set_start(n, [&](Proc p) -> Task<void> {
    FiberId v = p.spawn(victim(p));
    co_await p.sleep(5_ms);
    CHECK(destroyed == 0);
    p.cancel(v);
    CHECK(destroyed == 2);  // both frames, at once
    CHECK_FALSE(w.alive(v));
    p.cancel(v);  // cancelling a dead task is harmless
    co_await p.sleep(20_ms);
  });
  w.run();
  CHECK(resumed == 0);
  CHECK(destroyed == 2);
  CHECK(count_of(w, TraceKind::FiberCancelled) == 1);
  CHECK(w.now() == at(25_ms));
}

TEST_CASE("a task that cancels itself ends when it next suspends", "[tasks]") {
  World w(1);
  NodeId n = w.add_node("n");
  int destroyed = 0;
  bool after = false;
  w.set_start(n, [&](Proc p) -> Task<void> {
    Probe probe(&destroyed);
    p.cancel(w.current_fiber());
    CHECK(destroyed == 0);  // still running
    co_await p.sleep(1_ms);
    after = true;
  });
  w.run();
  CHECK(destroyed == 1);
  CHECK_FALSE(after);
  auto c = events_of(w, TraceKind::FiberCancelled);
  REQUIRE(c.size() == 1);
  CHECK(c[0].at == at(0_ms));
}

TEST_CASE("each node draws from its own named stream", "[tasks]") {
  auto draws = [](uint64_t seed, const char* name, bool other_first) {
    World w(seed);
    if (other_first) w.add_node("other");
    NodeId n = w.add_node(name);
    std::vector<uint64_t> out;
    w.set_start(n, [&out](Proc p) -> Task<void> {
      for (int i = 0; i < 3; ++i) out.push_back(p.rng().next());
      co_return;
    });
    w.run();
    return out;
  };
  CHECK(draws(5, "A", false) == draws(5, "A", true));  // not shifted by other nodes
  CHECK(draws(5, "A", false) != draws(5, "B", false));
  CHECK(draws(5, "A", false) != draws(6, "A", false));
  CHECK(draws(5, "A", false) == std::vector<uint64_t>{Rng(5).stream("node:A").next(),
                                                      [] {
                                                        Rng r = Rng(5).stream("node:A");
                                                        r.next();
                                                        return r.next();
                                                      }(),
                                                      [] {
                                                        Rng r = Rng(5).stream("node:A");
                                                        r.next();
                                                        r.next();
                                                        return r.next();
                                                      }()});
}

TEST_CASE("awaiting a sim awaitable outside a task is refused", "[tasks]") {
  World w(1);
  NodeId n = w.add_node("n");
  Proc p(w, n);
  auto t = [](Proc q) -> Task<void> { co_await q.sleep(1_ms); }(p);
  // Resumed by hand, not as a task of the world: the sleep has no task to wake,
  // and the error lands in the task like any exception.
  t.handle().resume();
  REQUIRE(t.done());
  CHECK_THROWS_AS(t.result(), std::logic_error);
}
