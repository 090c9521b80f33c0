// Deferred replies: a service answers a call later (a lock wait, a blocking
// pop). The answer leaves when given, on the same FIFO link; later requests of
// the session wait behind it; a reset, a server crash, a cut, a timeout or a
// dead client each lose it as they lose an ordinary reply.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "helpers.hpp"

using namespace simtest;

namespace {

// Defers every negative request; answer_all() answers them with -x, in the order deferred.
struct HoldingServer {
  Echo* service = nullptr;
  std::map<DeferredId, int64_t> waiting;
  std::vector<std::string> log;

  HoldingServer(World& w, NodeId server) {
    service = &w.make<Echo>(w, server, [this, &w](SessionId, int64_t& req, Instant) -> Answer<int64_t> {
      log.push_back(fmt::format("{}ms req {}", w.now().ms(), req));
      if (req >= 0) return req;
      waiting.emplace(service->defer(), req);
      return Answer<int64_t>::later();
    });
    service->on_close([this](SessionId s, CloseReason why) {
      log.push_back(fmt::format("close {} {}", s, why == CloseReason::ClientGone ? "client-gone" : "reset"));
    });
  }
  std::vector<bool> answer_all() {
    std::vector<bool> delivered;
    std::map<DeferredId, int64_t> now;
    now.swap(waiting);  // an answer may run a held request that defers anew: that one waits for the next round
    for (auto& [id, req] : now) delivered.push_back(service->answer(id, -req));
    return delivered;
  }
};

struct DeferredPair {
  World w{1};
  NodeId server = (w.network().set_default_latency(LatencyDist{10_ms}), w.add_node("server"));
  NodeId client = w.add_node("client");
  HoldingServer holder{w, server};
  EchoChannel& ch = holder.service->connect(client);
  std::vector<bool> delivered;

  // Answers everything deferred by then, at `when` (an event on the server).
  void answer_at(Duration when) {
    w.schedule(
        at(when),
        [](World& world, const Event& e) {
          if (!world.live(e)) return;  // the server crashed since
          auto* self = static_cast<DeferredPair*>(e.obj);
          for (bool d : self->holder.answer_all()) self->delivered.push_back(d);
        },
        this, 0, 0, server);
  }
};

Task<void> call_and_log(EchoChannel& ch, World& w, int64_t req, Duration timeout, std::vector<std::string>& out) {
  CallResult<int64_t> r = co_await ch.call(req, timeout);
  out.push_back(fmt::format("{}ms {} {}", w.now().ms(), to_string(r.status), r.value));
}

}  // namespace

TEST_CASE_METHOD(DeferredPair, "a deferred call is answered when the service answers it, one trip later",
                 "[deferred]") {
  std::vector<std::string> got;
  w.set_start(client, [&](Proc) -> Task<void> { co_await call_and_log(ch, w, -7, 1_s, got); });
  answer_at(50_ms);
  w.run();
  CHECK(got == std::vector<std::string>{"60ms ok 7"});
  CHECK(delivered == std::vector<bool>{true});
  CHECK(holder.service->deferred_count() == 0);
  auto deferred = events_of(w, TraceKind::CallDeferred);
  REQUIRE(deferred.size() == 1);
  CHECK(deferred[0].at == at(10_ms));
  auto executed = events_of(w, TraceKind::CallExecuted);
  REQUIRE(executed.size() == 1);
  CHECK(executed[0].at == at(50_ms));  // the timeline shows it run when it is answered
}

TEST_CASE_METHOD(DeferredPair, "requests behind a deferred call wait for it and then run in order", "[deferred]") {
  std::vector<std::string> got;
  // Three calls pipelined on one connection by three tasks of the client.
  w.set_start(client, [&](Proc p) -> Task<void> {
    p.spawn(call_and_log(ch, w, -1, 1_s, got));
    p.spawn(call_and_log(ch, w, 2, 1_s, got));
    p.spawn(call_and_log(ch, w, -3, 1_s, got));
    co_return;
  });
  answer_at(40_ms);
  answer_at(70_ms);
  w.run();
  CHECK(holder.log == std::vector<std::string>{"10ms req -1", "40ms req 2", "40ms req -3"});
  CHECK(got == std::vector<std::string>{"50ms ok 1", "50ms ok 2", "80ms ok 3"});
}

TEST_CASE_METHOD(DeferredPair, "other connections are not held up by a deferred call", "[deferred]") {
  NodeId other = w.add_node("other");
  EchoChannel& ch2 = holder.service->connect(other);
  std::vector<std::string> got, got2;
  w.set_start(client, [&](Proc) -> Task<void> { co_await call_and_log(ch, w, -1, 1_s, got); });
  w.set_start(other, [&](Proc p) -> Task<void> {
    co_await p.sleep(5_ms);
    co_await call_and_log(ch2, w, 4, 1_s, got2);
  });
  answer_at(100_ms);
  w.run();
  CHECK(got2 == std::vector<std::string>{"25ms ok 4"});
  CHECK(got == std::vector<std::string>{"110ms ok 1"});
}

TEST_CASE_METHOD(DeferredPair, "a caller that timed out drops the late answer", "[deferred]") {
  std::vector<std::string> got;
  w.set_start(client, [&](Proc) -> Task<void> { co_await call_and_log(ch, w, -1, 30_ms, got); });
  answer_at(50_ms);
  w.run();
  CHECK(got == std::vector<std::string>{"30ms timed out 0"});
  CHECK(delivered == std::vector<bool>{true});  // it left the server; the client no longer waits
  auto drops = events_of(w, TraceKind::MessageDropped);
  REQUIRE(drops.size() == 1);
  CHECK(drops[0].drop_reason() == DropReason::CallerGone);
  CHECK(drops[0].at == at(60_ms));
}

TEST_CASE_METHOD(DeferredPair, "a server crash forgets deferred calls: never answered, the caller loses the connection",
                 "[deferred]") {
  std::vector<std::string> got;
  w.set_start(client, [&](Proc) -> Task<void> { co_await call_and_log(ch, w, -1, 1_s, got); });
  w.schedule(
      at(20_ms), [](World& world, const Event& e) { world.crash(static_cast<NodeId>(e.id)); }, nullptr, server);
  answer_at(50_ms);  // aimed at the dead incarnation: it never runs
  w.run();
  CHECK(got == std::vector<std::string>{"20ms connection lost 0"});
  CHECK(holder.service->deferred_count() == 0);
  CHECK(delivered.empty());
}

TEST_CASE_METHOD(DeferredPair, "a reset forgets deferred calls and what waited behind them", "[deferred]") {
  std::vector<std::string> got;
  w.set_start(client, [&](Proc p) -> Task<void> {
    p.spawn(call_and_log(ch, w, -1, 1_s, got));
    p.spawn(call_and_log(ch, w, 2, 1_s, got));
    co_return;
  });
  w.schedule(
      at(30_ms),
      [](World& world, const Event& e) {
        auto* self = static_cast<DeferredPair*>(e.obj);
        world.reset(self->client, self->server);
      },
      this);
  answer_at(50_ms);
  w.run();
  CHECK(got == std::vector<std::string>{"30ms connection lost 0", "30ms connection lost 0"});
  CHECK(holder.log == std::vector<std::string>{"10ms req -1", "close 1 reset"});
  CHECK(delivered == std::vector<bool>{false});  // nothing was left to answer
  CHECK(holder.service->deferred_count() == 0);
}

TEST_CASE_METHOD(DeferredPair, "a client that dies while waiting: its close arrives at once, the answer is dropped",
                 "[deferred]") {
  std::vector<std::string> got;
  w.set_start(client, [&](Proc p) -> Task<void> {
    p.spawn(call_and_log(ch, w, -1, 1_s, got));
    p.spawn(call_and_log(ch, w, 2, 1_s, got));
    co_return;
  });
  w.schedule(
      at(30_ms), [](World& world, const Event& e) { world.crash(static_cast<NodeId>(e.id)); }, nullptr, client);
  answer_at(50_ms);
  w.run();
  CHECK(got.empty());
  // The request queued behind the wait never runs; the host learns of the close at 40 ms.
  CHECK(holder.log == std::vector<std::string>{"10ms req -1", "close 1 client-gone"});
  CHECK(delivered == std::vector<bool>{true});
  std::vector<int64_t> reasons;
  for (const auto& e : events_of(w, TraceKind::MessageDropped)) reasons.push_back(e.first);
  CHECK(reasons == std::vector<int64_t>{static_cast<int64_t>(DropReason::CallerGone),
                                        static_cast<int64_t>(DropReason::ReceiverCrashed)});
}

TEST_CASE_METHOD(DeferredPair, "an answer given while the link is cut is lost", "[deferred]") {
  std::vector<std::string> got;
  w.set_start(client, [&](Proc) -> Task<void> { co_await call_and_log(ch, w, -1, 200_ms, got); });
  w.schedule(
      at(40_ms),
      [](World& world, const Event& e) {
        auto* self = static_cast<DeferredPair*>(e.obj);
        world.cut(self->client, self->server, 20_ms);
      },
      this);
  answer_at(50_ms);
  w.run();
  CHECK(got == std::vector<std::string>{"200ms timed out 0"});
  auto drops = events_of(w, TraceKind::MessageDropped);
  REQUIRE(drops.size() == 1);
  CHECK(drops[0].drop_reason() == DropReason::Cut);
}

TEST_CASE("answers given at one instant leave in the order given, and the run repeats exactly", "[deferred]") {
  auto run = [](uint64_t seed) {
    World w(seed);
    w.network().set_default_latency(LatencyDist{.base = 5_ms, .jitter = 3_ms});
    NodeId server = w.add_node("server");
    HoldingServer holder(w, server);
    std::vector<std::string> got;
    std::vector<NodeId> clients;
    for (int i = 0; i < 4; ++i) clients.push_back(w.add_node(fmt::format("c{}", i)));
    std::vector<EchoChannel*> chans;
    for (NodeId c : clients) chans.push_back(&holder.service->connect(c));
    for (size_t i = 0; i < clients.size(); ++i)
      w.set_start(clients[i], [&, i](Proc) -> Task<void> {
        co_await call_and_log(*chans[i], w, -static_cast<int64_t>(i + 1), 1_s, got);
      });
    w.schedule(
        at(50_ms), [](World&, const Event& e) { static_cast<HoldingServer*>(e.obj)->answer_all(); }, &holder, 0, 0,
        server);
    w.run();
    return std::pair{got, w.trace().hash()};
  };
  auto [first, hash] = run(7);
  CHECK(first.size() == 4);
  CHECK(run(7) == std::pair{first, hash});
}
