// The event queue and World's event loop: ordering by (time, sequence),
// run_until's limits, the internal errors (scheduling in the past, unknown
// ids), stop().
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "death.hpp"
#include "helpers.hpp"

using namespace simtest;

namespace {
struct Log {
  std::vector<std::pair<int64_t, uint64_t>> ran;  // (now, tag)
};
void record(World& w, const Event& e) { static_cast<Log*>(e.obj)->ran.emplace_back(w.now().ns, e.id); }
void record_and_schedule(World& w, const Event& e) {
  static_cast<Log*>(e.obj)->ran.emplace_back(w.now().ns, e.id);
  if (e.generation > 0)
    w.schedule(w.now() + Duration{static_cast<int64_t>(e.generation)}, &record_and_schedule, e.obj, e.id + 1,
               e.generation - 1);
}
void stop_world(World& w, const Event&) { w.stop(); }
}  // namespace

TEST_CASE("EventQueue pops by time, then by scheduling order", "[scheduler]") {
  EventQueue q;
  auto push = [&](int64_t t, uint64_t tag) {
    Event e;
    e.at = Instant{t};
    e.id = tag;
    q.push(e);
  };
  push(30, 1);
  push(10, 2);
  push(20, 3);
  push(10, 4);
  push(30, 5);
  push(0, 6);
  push(10, 7);
  CHECK(q.size() == 7);
  CHECK(q.scheduled() == 7);
  std::vector<uint64_t> tags;
  std::vector<uint64_t> seqs;
  while (!q.empty()) {
    Event e = q.pop();
    tags.push_back(e.id);
    seqs.push_back(e.seq);
  }
  CHECK(tags == std::vector<uint64_t>{6, 2, 4, 7, 3, 1, 5});
  CHECK(seqs == std::vector<uint64_t>{5, 1, 3, 6, 2, 0, 4});
}

TEST_CASE("EventQueue is a stable priority queue", "[scheduler][property]") {
  rc::prop("pops in (time, insertion) order under interleaved pushes and pops", [] {
    const auto ops = *rc::gen::container<std::vector<int>>(rc::gen::inRange(-1, 8));  // -1: pop, else push at that time
    EventQueue q;
    std::vector<std::pair<int64_t, uint64_t>> model;  // (time, seq) of what is queued
    uint64_t seq = 0;
    for (int op : ops) {
      if (op < 0) {
        if (q.empty()) {
          RC_ASSERT(model.empty());
          continue;
        }
        auto best = std::min_element(model.begin(), model.end());
        Event e = q.pop();
        RC_ASSERT(e.at.ns == best->first);
        RC_ASSERT(e.seq == best->second);
        model.erase(best);
      } else {
        Event e;
        e.at = Instant{op};
        q.push(e);
        model.emplace_back(op, seq++);
      }
      RC_ASSERT(q.size() == model.size());
    }
  });
}

TEST_CASE("EventQueue cancels an event and leaves the others in order", "[scheduler][property]") {
  rc::prop("pops in (time, insertion) order under pushes, pops and cancels", [] {
    // -2: cancel the ticket drawn next (it may have run or gone already), -1: pop, else push at that time.
    const auto ops = *rc::gen::container<std::vector<int>>(rc::gen::inRange(-2, 8));
    EventQueue q;
    std::vector<std::pair<int64_t, uint64_t>> model;  // (time, seq) of what is queued
    std::vector<EventTicket> tickets;
    std::vector<int64_t> times;  // by seq
    for (int op : ops) {
      if (op == -2) {
        if (tickets.empty()) continue;
        const EventTicket t = tickets[*rc::gen::inRange<size_t>(0, tickets.size())];
        const auto queued = std::find(model.begin(), model.end(), std::make_pair(times[t.seq], t.seq));
        const std::optional<Instant> at = q.cancel(t);
        RC_ASSERT(at.has_value() == (queued != model.end()));
        if (at) {
          RC_ASSERT(at->ns == times[t.seq]);
          model.erase(queued);
        }
      } else if (op == -1) {
        if (q.empty()) {
          RC_ASSERT(model.empty());
          continue;
        }
        auto best = std::min_element(model.begin(), model.end());
        Event e = q.pop();
        RC_ASSERT(e.at.ns == best->first);
        RC_ASSERT(e.seq == best->second);
        model.erase(best);
      } else {
        Event e;
        e.at = Instant{op};
        tickets.push_back(q.push(e));
        RC_ASSERT(tickets.back().seq == times.size());
        model.emplace_back(op, times.size());
        times.push_back(op);
      }
      RC_ASSERT(q.size() == model.size());
    }
  });
}

TEST_CASE("a cancelled event never runs, and the run ends when it would have run as a no-op", "[scheduler]") {
  World w(1);
  Log log;
  w.schedule(at(5_ms), &record, &log, 1);
  const EventTicket late = w.schedule(at(50_ms), &record, &log, 2);
  const EventTicket past = w.schedule(at(2_s), &record, &log, 3);
  w.cancel(late);
  w.cancel(late);  // no longer queued: nothing happens
  CHECK(w.pending_events() == 2);
  w.run_until(at(1_s));
  CHECK(log.ran == std::vector<std::pair<int64_t, uint64_t>>{{5'000'000, 1}});
  CHECK(w.now() == at(1_s));  // the event at 2s is still to happen
  w.cancel(past);
  CHECK(w.pending_events() == 0);
  w.run_until(at(3_s));
  CHECK(w.now() == at(2_s));  // as if the cancelled event had run at 2s
  CHECK(w.events_processed() == 1);

  World v(1);
  const EventTicket beyond = v.schedule(at(2_s), &record, &log, 4);
  v.cancel(beyond);
  v.run_until(at(1_s));
  CHECK(v.now() == at(1_s));  // a cancelled event past the limit still lets time move to it
  v.run();
  CHECK(v.now() == at(2_s));
}

TEST_CASE("World runs raw events at their instants, same-instant ones in order", "[scheduler]") {
  World w(1);
  Log log;
  w.schedule(at(5_ms), &record, &log, 1);
  w.schedule(at(2_ms), &record, &log, 2);
  w.schedule(at(5_ms), &record, &log, 3);
  w.schedule(at(2_ms), &record, &log, 4);
  CHECK(w.pending_events() == 4);
  w.run();
  CHECK(log.ran ==
        std::vector<std::pair<int64_t, uint64_t>>{{2'000'000, 2}, {2'000'000, 4}, {5'000'000, 1}, {5'000'000, 3}});
  CHECK(w.events_processed() == 4);
  CHECK(w.now() == at(5_ms));  // run() leaves the clock at the last event
  CHECK(w.pending_events() == 0);
}

TEST_CASE("run_until runs events at or before the limit and then sets now to it", "[scheduler]") {
  World w(1);
  Log log;
  w.schedule(at(10_ms), &record, &log, 1);
  w.schedule(at(20_ms), &record, &log, 2);
  w.schedule(at(20_ms) + 1_ns, &record, &log, 3);
  w.run_until(at(20_ms));
  CHECK(log.ran == std::vector<std::pair<int64_t, uint64_t>>{{10'000'000, 1}, {20'000'000, 2}});
  CHECK(w.now() == at(20_ms));
  CHECK(w.pending_events() == 1);
  w.run_until(at(15_ms));  // a limit in the past does nothing and does not rewind
  CHECK(w.now() == at(20_ms));
  w.schedule(at(1_s), &record, &log, 4);
  w.run_until(at(30_ms));
  CHECK(log.ran.size() == 3);
  CHECK(w.now() == at(30_ms));
}

TEST_CASE("an event scheduled in the past is an internal error that names the seed", "[scheduler]") {
  // It used to be moved to "now" silently, which hid the bug that computed its time.
  const ChildEnd end = run_in_child([] {
    World w(4242);
    Log log;
    w.schedule(at(1_s), &record, &log, 3);
    w.run_until(at(100_ms));
    w.schedule(at(1_ms), &record, &log, 1);
  });
  CHECK(end.aborted);
  CHECK(end.stderr_text.find("internal error at") != std::string::npos);
  CHECK(end.stderr_text.find("sim/world.cpp:") != std::string::npos);
  CHECK(end.stderr_text.find("an event scheduled in the past: at 0.001s, now 0.100s") != std::string::npos);
  CHECK(end.stderr_text.find("check failed: at >= now_") != std::string::npos);
  // The seed of the world being run, when it was scheduled from inside the run.
  const ChildEnd inside = run_in_child([] {
    World w(4242);
    w.schedule(
        at(5_ms), [](World& world, const Event&) { world.schedule(at(1_ms), &stop_world, nullptr); }, nullptr);
    w.run();
  });
  CHECK(inside.aborted);
  CHECK(inside.stderr_text.find("simulation seed: 4242") != std::string::npos);
}

TEST_CASE("an event scheduled at now runs after what is already due", "[scheduler]") {
  World w(1);
  Log log;
  w.schedule(at(1_s), &record, &log, 3);
  w.run_until(at(100_ms));
  REQUIRE(w.now() == at(100_ms));
  w.schedule(at(100_ms), &record, &log, 1);
  w.schedule(at(100_ms), &record, &log, 2);
  w.run();
  CHECK(log.ran == std::vector<std::pair<int64_t, uint64_t>>{{100'000'000, 1}, {100'000'000, 2}, {1'000'000'000, 3}});
}

TEST_CASE("an unknown node or task id is an internal error", "[scheduler]") {
  const ChildEnd node = run_in_child([] {
    World w(7);
    w.add_node("n");
    w.crash(NodeId{3});
  });
  CHECK(node.aborted);
  CHECK(node.stderr_text.find("no node has this id in this world") != std::string::npos);
  const ChildEnd aimed = run_in_child([] {
    World w(7);
    w.schedule(at(1_ms), &stop_world, nullptr, 0, 0, NodeId{0});
  });
  CHECK(aimed.aborted);
  CHECK(aimed.stderr_text.find("no node has this id") != std::string::npos);
  const ChildEnd task = run_in_child([] {
    World w(7);
    (void)w.alive(FiberId{5});
  });
  CHECK(task.aborted);
  CHECK(task.stderr_text.find("no task was ever given the id 0x5") != std::string::npos);
  // An id that was given out and has ended is no error: it is just not alive.
  World w(7);
  NodeId n = w.add_node("n");
  FiberId f = w.spawn(n, [](Proc) -> Task<void> { co_return; }(Proc(w, n)));
  w.run();
  CHECK_FALSE(w.alive(f));
  CHECK_FALSE(w.alive(kNoFiber));
}

TEST_CASE("events may schedule further events, a chain runs to its end", "[scheduler]") {
  World w(1);
  Log log;
  w.schedule(at(0_ns), &record_and_schedule, &log, 0, 5);  // each schedules the next b ns later, b counting down
  w.run();
  CHECK(log.ran == std::vector<std::pair<int64_t, uint64_t>>{{0, 0}, {5, 1}, {9, 2}, {12, 3}, {14, 4}, {15, 5}});
  CHECK(w.events_processed() == 6);
}

TEST_CASE("stop() ends the loop after the current event", "[scheduler]") {
  World w(1);
  Log log;
  w.schedule(at(1_ms), &record, &log, 1);
  w.schedule(at(2_ms), &stop_world, nullptr);
  w.schedule(at(2_ms), &record, &log, 2);
  w.schedule(at(3_ms), &record, &log, 3);
  w.run_until(at(10_ms));
  CHECK(w.stopped());
  CHECK(log.ran.size() == 1);
  CHECK(w.now() == at(2_ms));  // not advanced to the limit
  CHECK(w.pending_events() == 2);
}

TEST_CASE("an event aimed at a node does not reach a later incarnation", "[scheduler]") {
  World w(1);
  NodeId n = w.add_node("n");
  Log log;
  auto guarded = [](World& world, const Event& e) {
    if (world.live(e)) static_cast<Log*>(e.obj)->ran.emplace_back(world.now().ns, e.id);
  };
  w.schedule(at(5_ms), guarded, &log, 1, 0, n);
  w.schedule(
      at(1_ms), [](World& world, const Event& e) { world.crash(static_cast<NodeId>(e.id)); }, nullptr, n);
  w.schedule(
      at(2_ms), [](World& world, const Event& e) { world.restart(static_cast<NodeId>(e.id)); }, nullptr, n);
  w.schedule(at(3_ms), guarded, &log, 2, 0, n);  // scheduled before the crash, aimed at incarnation 0
  w.run();
  CHECK(log.ran.empty());
  CHECK(w.node(n).incarnation == 1);
  w.schedule(at(10_ms), guarded, &log, 3, 0, n);  // aimed at incarnation 1
  w.run();
  CHECK(log.ran == std::vector<std::pair<int64_t, uint64_t>>{{10'000'000, 3}});
}
