// The network and request/response calls: FIFO per connection whatever the
// delays, cuts, resets, refused connections, timeouts by the client's clock.
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "helpers.hpp"

using namespace simtest;

namespace {
void crash_event(World& w, const Event& e) { w.crash(static_cast<NodeId>(e.id)); }
void reset_event(World& w, const Event& e) { w.reset(static_cast<NodeId>(e.id), static_cast<NodeId>(e.generation)); }
void cut_event(World& w, const Event& e) {
  w.cut(static_cast<NodeId>(e.id >> 32), static_cast<NodeId>(e.id & 0xffffffff),
        Duration{static_cast<int64_t>(e.generation)});
}
void schedule_cut(World& w, Instant when, NodeId a, NodeId b, Duration how_long) {
  w.schedule(when, &cut_event, nullptr, (uint64_t{a} << 32) | b, static_cast<uint64_t>(how_long.ns));
}

struct Outcome {
  CallStatus status;
  int64_t value;
  int64_t at_ns;
  bool operator==(const Outcome&) const = default;
};
std::ostream& operator<<(std::ostream& os, const Outcome& o) {
  return os << to_string(o.status) << " " << o.value << " @" << o.at_ns;
}

// One call at `when` from its own task; the outcome is appended to `out`.
Task<void> call_at(Proc p, EchoChannel& ch, Duration when, int64_t value, Duration timeout, std::vector<Outcome>& out) {
  co_await p.sleep(when);
  auto r = co_await ch.call(value, timeout);
  out.push_back(Outcome{r.status, r.value, p.world().now().ns});
}
}  // namespace

TEST_CASE("each direction of a connection is FIFO under long-tailed random delays", "[network][property]") {
  rc::prop("requests run, and replies arrive, in the order they were sent", [] {
    const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
    LatencyDist dist;
    dist.base = Duration{*rc::gen::inRange<int64_t>(0, 2'000'000)};
    dist.jitter = Duration{*rc::gen::inRange<int64_t>(0, 20'000'000)};
    dist.spike_probability = *rc::gen::element(0.0, 0.05, 0.3, 1.0);
    dist.spike_scale = Duration{*rc::gen::inRange<int64_t>(1, 50'000'000)};
    dist.spike_alpha = *rc::gen::element(1.1, 1.5, 3.0);
    dist.spike_cap = dist.spike_scale * *rc::gen::inRange<int64_t>(1, 20);
    const int clients = *rc::gen::inRange(1, 4);
    const int calls = *rc::gen::inRange(1, 60);
    const int64_t spread_ns = *rc::gen::inRange<int64_t>(0, 50'000'000);

    World w(seed);
    w.network().set_default_latency(dist);
    NodeId server = w.add_node("server");
    std::vector<NodeId> ids;
    for (int c = 0; c < clients; ++c) ids.push_back(w.add_node("c" + std::to_string(c)));
    EchoServer echo(w, server);
    std::vector<EchoChannel*> channels;
    for (NodeId id : ids) channels.push_back(&echo.service->connect(id));
    std::vector<std::vector<Outcome>> outcomes(clients);
    for (int c = 0; c < clients; ++c) {
      w.set_start(ids[c], [&, c](Proc p) -> Task<void> {
        // Many calls in flight at once on one connection: one task per call.
        for (int i = 0; i < calls; ++i)
          p.spawn(call_at(p, *channels[c], Duration{p.rng().uniform(0, spread_ns)}, c * 1000 + i, 1000_s, outcomes[c]));
        co_return;
      });
    }
    w.run();

    std::map<int64_t, std::vector<int64_t>> sent, executed, received;  // per connection: call ids
    for (const auto& e : w.trace().events()) {
      if (e.kind == TraceKind::CallSent) sent[e.connection()].push_back(e.call());
      if (e.kind == TraceKind::CallExecuted) executed[e.connection()].push_back(e.call());
      if (e.kind == TraceKind::ReplyReceived) received[e.connection()].push_back(e.call());
    }
    RC_ASSERT(static_cast<int>(sent.size()) == clients);
    for (const auto& [conn, ids_sent] : sent) {
      RC_ASSERT(static_cast<int>(ids_sent.size()) == calls);
      RC_ASSERT(std::is_sorted(ids_sent.begin(), ids_sent.end()));
      RC_ASSERT(executed[conn] == ids_sent);
      RC_ASSERT(received[conn] == ids_sent);
    }
    for (int c = 0; c < clients; ++c) {
      RC_ASSERT(static_cast<int>(outcomes[c].size()) == calls);
      for (const Outcome& o : outcomes[c]) RC_ASSERT(o.status == CallStatus::Ok);
    }
    RC_ASSERT(echo.executed.size() == static_cast<size_t>(clients * calls));
  });
}

TEST_CASE_METHOD(EchoPair, "a cut drops in-flight requests, the caller sees TimedOut at its timeout", "[network]") {
  std::vector<Outcome> out;
  w.set_start(client, [&](Proc p) -> Task<void> {
    p.spawn(call_at(p, ch, 0_ms, 1, 100_ms, out));  // in flight when the cut begins (5ms), arrives at 10ms
    p.spawn(call_at(p, ch, 6_ms, 2, 100_ms, out));  // sent during the cut: lost at once
    p.spawn(call_at(p, ch, 8_ms, 3, 100_ms, out));  // sent after the heal (7ms): arrives at 18ms
    co_return;
  });
  schedule_cut(w, at(5_ms), server, client, 2_ms);  // healed at 7ms, before request 1 would arrive
  w.run();
  CHECK(echo.executed == std::vector<int64_t>{3});
  CHECK(out == std::vector<Outcome>{{CallStatus::Ok, 3, 28'000'000},
                                    {CallStatus::TimedOut, 0, 100'000'000},
                                    {CallStatus::TimedOut, 0, 106'000'000}});
  auto drops = events_of(w, TraceKind::MessageDropped);
  REQUIRE(drops.size() == 2);
  CHECK(drops[0].at == at(6_ms));  // request 2, dropped at the sender
  CHECK(drops[0].node == client);
  CHECK(drops[0].call() == 2);
  CHECK(drops[1].at == at(10_ms));  // request 1, lost though the link healed before it arrived
  CHECK(drops[1].node == server);
  CHECK(drops[1].call() == 1);
  for (const auto& d : drops) CHECK(d.drop_reason() == DropReason::Cut);
  auto timeouts = events_of(w, TraceKind::CallTimedOut);
  REQUIRE(timeouts.size() == 2);
  CHECK(timeouts[0].call() == 1);
  CHECK(timeouts[1].call() == 2);
  CHECK(count_of(w, TraceKind::Cut) == 1);
  CHECK(count_of(w, TraceKind::Heal) == 1);
  CHECK(events_of(w, TraceKind::Heal)[0].at == at(7_ms));
}

TEST_CASE_METHOD(EchoPair, "a call answered in time leaves no timeout queued, and the run ends as before", "[network]") {
  std::vector<Outcome> out;
  w.set_start(client, [&](Proc p) -> Task<void> {
    co_await call_at(p, ch, 0_ms, 5, 500_ms, out);
    CHECK(p.world().pending_events() == 0);  // its timeout went with the reply
  });
  w.run();
  CHECK(out == std::vector<Outcome>{{CallStatus::Ok, 5, 20'000'000}});
  CHECK(count_of(w, TraceKind::CallTimedOut) == 0);
  // The run still ends where the timeout would have come and found nothing to do.
  CHECK(w.now() == at(500_ms));
}

TEST_CASE_METHOD(EchoPair, "a cut drops a reply in flight too", "[network]") {
  std::vector<Outcome> out;
  w.set_start(client, [&](Proc p) -> Task<void> { co_await call_at(p, ch, 0_ms, 5, 50_ms, out); });
  schedule_cut(w, at(15_ms), client, server, Duration{});  // until healed: never, here
  w.run();
  CHECK(echo.executed == std::vector<int64_t>{5});  // it ran: the caller cannot know
  CHECK(out == std::vector<Outcome>{{CallStatus::TimedOut, 0, 50'000'000}});
  auto drops = events_of(w, TraceKind::MessageDropped);
  REQUIRE(drops.size() == 1);
  CHECK(drops[0].at == at(20_ms));
  CHECK(drops[0].node == client);
  CHECK(w.network().is_cut(client, server));
  CHECK(w.network().is_cut(server, client));  // links are symmetric
}

TEST_CASE("the timeout is measured by the client's clock rate", "[network]") {
  World w(1);
  w.network().set_default_latency(LatencyDist{1_s});
  NodeId server = w.add_node("server"), client = w.add_node("client", LocalClock(0_s, 250'000));  // 25% fast
  EchoServer echo(w, server);
  auto& ch = echo.service->connect(client);
  std::vector<Outcome> out;
  w.set_start(client, [&](Proc p) -> Task<void> { co_await call_at(p, ch, 0_ms, 5, 500_ms, out); });
  w.run();
  CHECK(out == std::vector<Outcome>{{CallStatus::TimedOut, 0, 400'000'000}});
}

TEST_CASE_METHOD(EchoPair, "a reset fails pending calls with ConnectionLost and loses what is in flight", "[network]") {
  std::vector<Outcome> out;
  w.set_start(client, [&](Proc p) -> Task<void> {
    p.spawn(call_at(p, ch, 0_ms, 1, 1_s, out));
    p.spawn(call_at(p, ch, 1_ms, 2, 1_s, out));
    p.spawn(call_at(p, ch, 20_ms, 3, 1_s, out));  // after the reset: a fresh session
    co_return;
  });
  w.schedule(at(5_ms), &reset_event, nullptr, client, server);
  w.run();
  CHECK(out == std::vector<Outcome>{{CallStatus::ConnectionLost, 0, 5'000'000},
                                    {CallStatus::ConnectionLost, 0, 5'000'000},
                                    {CallStatus::Ok, 3, 40'000'000}});
  CHECK(echo.executed == std::vector<int64_t>{3});
  CHECK(echo.log == std::vector<std::string>{"close 1", "req 3"});  // the server sees session 1 end at the reset
  auto drops = events_of(w, TraceKind::MessageDropped);
  REQUIRE(drops.size() == 2);
  for (const auto& d : drops) {
    CHECK(d.drop_reason() == DropReason::ConnectionReset);
    CHECK(d.node == server);
  }
  CHECK(drops[0].at == at(10_ms));
  CHECK(drops[1].at == at(11_ms));
  CHECK(count_of(w, TraceKind::Reset) == 1);
  CHECK(count_of(w, TraceKind::ConnectionLost) == 2);
}

TEST_CASE_METHOD(EchoPair, "calls to a crashed server give ConnectionLost", "[network]") {
  std::vector<Outcome> out;
  w.set_start(client, [&](Proc p) -> Task<void> {
    p.spawn(call_at(p, ch, 0_ms, 1, 1_s, out));   // pending when the server crashes at 5ms
    p.spawn(call_at(p, ch, 20_ms, 2, 1_s, out));  // refused: fails after one trip
    p.spawn(call_at(p, ch, 60_ms, 3, 1_s, out));  // after the restart: served
    co_return;
  });
  w.schedule(at(5_ms), &crash_event, nullptr, server);
  w.schedule(
      at(50_ms), [](World& world, const Event& e) { world.restart(static_cast<NodeId>(e.id)); }, nullptr, server);
  w.run();
  CHECK(out == std::vector<Outcome>{{CallStatus::ConnectionLost, 0, 5'000'000},
                                    {CallStatus::ConnectionLost, 0, 30'000'000},
                                    {CallStatus::Ok, 3, 80'000'000}});
  CHECK(echo.executed == std::vector<int64_t>{3});
  auto drops = events_of(w, TraceKind::MessageDropped);
  REQUIRE(drops.size() == 1);  // request 1 reached the crashed server at 10ms
  CHECK(drops[0].at == at(10_ms));
  CHECK(drops[0].drop_reason() == DropReason::ReceiverCrashed);
}

TEST_CASE("the server learns of a crashed client's close after its in-flight requests", "[network]") {
  World w(1);
  NodeId server = w.add_node("server"), client = w.add_node("client"), other = w.add_node("other");
  w.network().set_default_latency(LatencyDist{1_ms, 30_ms});  // jitter far larger than the gaps
  EchoServer echo(w, server);
  auto& ch = echo.service->connect(client);
  auto& ch_other = echo.service->connect(other);
  std::vector<Outcome> out, out_other;
  w.set_start(client, [&](Proc p) -> Task<void> {
    for (int i = 0; i < 5; ++i) p.spawn(call_at(p, ch, microseconds(100 * i), 1 + i, 1_s, out));
    co_return;
  });
  w.set_start(other, [&](Proc p) -> Task<void> { co_await call_at(p, ch_other, 0_ms, 100, 1_s, out_other); });
  w.schedule(at(500_us), &crash_event, nullptr, client);  // all five sent, none yet arrived (>= 1ms)
  w.run();
  CHECK(out.empty());
  REQUIRE(echo.log.size() == 7);
  std::vector<std::string> client_log;
  for (const auto& line : echo.log)
    if (line != "req 100") client_log.push_back(line);
  REQUIRE(client_log.size() == 6);
  CHECK(std::vector<std::string>(client_log.begin(), client_log.begin() + 5) ==
        std::vector<std::string>{"req 1", "req 2", "req 3", "req 4", "req 5"});
  CHECK(client_log[5].rfind("close ", 0) == 0);
  CHECK(count_of(w, TraceKind::ConnectionClosed) == 1);
  CHECK(count_of(w, TraceKind::MessageDropped) == 5);  // the five replies, to a crashed client
  CHECK(out_other.size() == 1);
}

TEST_CASE("per-link latency overrides the default, symmetrically", "[network]") {
  World w(1);
  NodeId a = w.add_node("a"), b = w.add_node("b"), c = w.add_node("c");
  w.network().set_default_latency(LatencyDist{3_ms});
  w.network().set_latency(c, a, LatencyDist{7_ms});
  CHECK(w.network().latency(a, b).base == 3_ms);
  CHECK(w.network().latency(a, c).base == 7_ms);
  CHECK(w.network().latency(c, a).base == 7_ms);
  w.add_node("d");  // growing the network keeps what was set
  CHECK(w.network().latency(a, c).base == 7_ms);
  CHECK(w.network().latency(b, c).base == 3_ms);
  w.cut(a, b);
  CHECK(w.network().is_cut(b, a));
  CHECK_FALSE(w.network().is_cut(a, c));
  uint64_t epoch = w.network().cut_epoch(a, b);
  CHECK_FALSE(w.network().passes(a, b, epoch));
  w.heal(b, a);
  CHECK(w.network().passes(a, b, epoch));
  CHECK_FALSE(w.network().passes(a, b, epoch - 1));  // sent before the cut: lost
}

TEST_CASE("a call's result says how much the link's delay spikes held its messages", "[network]") {
  // Every message spiked by exactly 20ms (a Pareto spike of scale 20ms capped at 20ms).
  World w(1);
  w.network().set_default_latency(LatencyDist{1_ms, {}, 1.0, 20_ms, 1.5, 20_ms});
  NodeId server = w.add_node("server"), client = w.add_node("client"), calm = w.add_node("calm");
  w.network().set_latency(server, calm, LatencyDist{1_ms});
  EchoServer echo(w, server);
  auto& ch = echo.service->connect(client);
  auto& quiet = echo.service->connect(calm);
  std::vector<std::pair<CallStatus, Duration>> spiked, calm_spiked;
  w.set_start(client, [&](Proc) -> Task<void> {
    auto answered = co_await ch.call(1, 1_s);  // request and reply: 40ms of spikes, back at 42ms
    spiked.emplace_back(answered.status, answered.spiked);
    auto late = co_await ch.call(2, 30_ms);  // gives up while the spiked reply is on its way
    spiked.emplace_back(late.status, late.spiked);
  });
  w.set_start(calm, [&](Proc) -> Task<void> {
    auto r = co_await quiet.call(3, 1_s);
    calm_spiked.emplace_back(r.status, r.spiked);
  });
  w.run();
  CHECK(spiked == std::vector<std::pair<CallStatus, Duration>>{{CallStatus::Ok, 40_ms}, {CallStatus::TimedOut, 40_ms}});
  CHECK(calm_spiked == std::vector<std::pair<CallStatus, Duration>>{{CallStatus::Ok, Duration{}}});
}
