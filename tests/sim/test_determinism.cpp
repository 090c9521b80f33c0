// Determinism: a busy random world (clients, servers, calls with random
// timeouts, sleeps, spawned tasks, and a random fault plan) gives the same
// trace hash every time it runs with the same seed.
#include <catch2/catch.hpp>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "helpers.hpp"

using namespace simtest;

namespace {

using Channels = std::vector<EchoChannel*>;

Task<int64_t> one_call(Proc p, const Channels& chans) {
  EchoChannel& ch = *chans[p.rng().below(chans.size())];
  const int64_t x = static_cast<int64_t>(p.rng().below(1000));
  auto r = co_await ch.call(x, milliseconds(p.rng().uniform(1, 200)));
  if (r.ok())
    p.note("got " + std::to_string(r.value));
  else
    p.note(std::string(to_string(r.status)));
  co_return r.ok() ? r.value : -1;
}

Task<void> side_task(Proc p, const Channels& chans) {
  const int n = static_cast<int>(p.rng().uniform(1, 3));
  for (int i = 0; i < n; ++i) {
    (void)co_await one_call(p, chans);
    co_await p.sleep(microseconds(p.rng().uniform(0, 30'000)));
  }
}

Task<void> client_main(Proc p, const Channels& chans) {
  p.note("start at local " + format_instant(p.local_now()));
  for (;;) {
    if (p.rng().bernoulli(0.1)) p.spawn(side_task(p, chans));
    if (p.rng().bernoulli(0.1)) {
      co_await side_task(p, chans);  // nested awaited task
    } else {
      (void)co_await one_call(p, chans);
    }
    co_await p.sleep(microseconds(p.rng().uniform(0, 40'000)));
  }
}

struct BusyWorld {
  World world;
  std::vector<std::unique_ptr<EchoServer>> servers;
  std::vector<Channels> channels;  // per client: one channel to each server
  FaultPlan plan;

  BusyWorld(uint64_t seed, Trace::Mode mode) : world(seed, mode) {
    Rng cfg = Rng(seed).stream("test-config");
    const int n_servers = static_cast<int>(cfg.uniform(1, 3));
    const int n_clients = static_cast<int>(cfg.uniform(2, 5));
    // Braced initialisers run in order: base is drawn before jitter.
    world.network().set_default_latency(LatencyDist{.base = microseconds(cfg.uniform(100, 2000)),
                                                    .jitter = microseconds(cfg.uniform(0, 5000)),
                                                    .spike_probability = 0.02,
                                                    .spike_scale = milliseconds(10),
                                                    .spike_alpha = 1.5,
                                                    .spike_cap = milliseconds(300)});
    std::vector<NodeId> server_ids, client_ids;
    std::vector<std::string> names;
    auto clock = [&] {
      LocalClock c(microseconds(cfg.uniform(-50'000, 50'000)), cfg.uniform(-200, 200));
      return c;
    };
    for (int s = 0; s < n_servers; ++s) {
      server_ids.push_back(world.add_node("s" + std::to_string(s), clock()));
      names.push_back("s" + std::to_string(s));
    }
    for (int c = 0; c < n_clients; ++c) {
      client_ids.push_back(world.add_node("c" + std::to_string(c), clock()));
      names.push_back("c" + std::to_string(c));
    }
    // One link with its own (spikier) latency.
    const LatencyDist spiky{.base = 1_ms,
                            .jitter = 2_ms,
                            .spike_probability = 0.2,
                            .spike_scale = 5_ms,
                            .spike_alpha = 1.2,
                            .spike_cap = 500_ms};
    world.network().set_latency(client_ids[0], server_ids[0], spiky);
    for (NodeId s : server_ids) servers.push_back(std::make_unique<EchoServer>(world, s));
    channels.resize(n_clients);
    for (int c = 0; c < n_clients; ++c)
      for (auto& s : servers) channels[c].push_back(&s->service->connect(client_ids[c]));
    for (int c = 0; c < n_clients; ++c) {
      const Channels* chans = &channels[c];
      world.set_start(client_ids[c], [chans](Proc p) { return client_main(p, *chans); });
    }
    // A random fault plan, drawn from the seed.
    const int n_faults = static_cast<int>(cfg.uniform(0, 10));
    for (int i = 0; i < n_faults; ++i) {
      Fault f;
      f.kind = static_cast<FaultKind>(cfg.below(7));
      f.node = names[cfg.below(names.size())];
      f.at = Instant{milliseconds(cfg.uniform(0, 2900)).ns};
      switch (f.kind) {
        case FaultKind::Pause: f.amount = milliseconds(cfg.uniform(1, 500)); break;
        case FaultKind::ClockJump: f.amount = milliseconds(cfg.uniform(-2000, 2000)); break;
        case FaultKind::Cut: f.amount = milliseconds(cfg.uniform(0, 800)); [[fallthrough]];
        case FaultKind::Heal:
        case FaultKind::Reset: {
          f.peer = cfg.bernoulli(0.2) ? "*" : names[cfg.below(names.size())];
          if (f.peer == f.node) f.peer = "*";
          break;
        }
        default: break;
      }
      plan.faults.push_back(f);
    }
    // Crashed nodes come back, mostly.
    for (const Fault& f : std::vector<Fault>(plan.faults))
      if (f.kind == FaultKind::Crash && cfg.bernoulli(0.8))
        plan.faults.push_back(Fault{FaultKind::Restart, f.node, "", f.at + milliseconds(cfg.uniform(1, 400)), {}});
    std::string why;
    if (!world.apply(plan, &why)) FAIL(why);
  }

  uint64_t run() {
    world.run_until(at(3_s));
    return world.trace().hash();
  }
};

uint64_t hash_of(uint64_t seed, Trace::Mode mode = Trace::Mode::HashOnly) {
  BusyWorld w(seed, mode);
  return w.run();
}

}  // namespace

TEST_CASE("a busy random world is busy and exercises every fault", "[determinism]") {
  std::set<TraceKind> kinds;
  size_t smallest = SIZE_MAX;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    BusyWorld w(seed, Trace::Mode::Record);
    w.run();
    smallest = std::min(smallest, w.world.trace().size());
    for (const auto& e : w.world.trace().events()) kinds.insert(e.kind);
  }
  CHECK(smallest >= 200);
  for (TraceKind k :
       {TraceKind::FiberStart, TraceKind::FiberEnd, TraceKind::FiberCancelled, TraceKind::CallSent,
        TraceKind::CallExecuted, TraceKind::ReplyReceived, TraceKind::MessageDropped, TraceKind::CallTimedOut,
        TraceKind::ConnectionLost, TraceKind::ConnectionClosed, TraceKind::Crash, TraceKind::Restart, TraceKind::Pause,
        TraceKind::Resume, TraceKind::ClockJump, TraceKind::Cut, TraceKind::Heal, TraceKind::Reset, TraceKind::Note}) {
    INFO(to_string(k));
    CHECK(kinds.count(k) == 1);
  }
}

TEST_CASE("300 seeds of a busy random world run twice give identical trace hashes", "[determinism]") {
  std::set<uint64_t> distinct;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    INFO("seed " << seed);
    const uint64_t first = hash_of(seed), second = hash_of(seed);
    REQUIRE(first == second);
    distinct.insert(first);
  }
  // Different seeds give different runs (all of them, in practice; "most" is the promise).
  CHECK(distinct.size() >= 295);
}

TEST_CASE("a pinned seed gives a pinned hash", "[determinism]") {
  // Computed once from this test's world and pasted here. If it changes, the
  // simulator's behaviour changed (event order, a draw, a trace detail): review
  // that diff deliberately, then update the literal.
  // Seed 29 draws a plan with a pause, clock jumps both ways, a cut, a heal, and
  // crashes and restarts of a server and a client.
  BusyWorld w(29, Trace::Mode::Record);
  CHECK(to_string(w.plan) ==
        "pause c1 @627ms for 57ms; jump s2 @389ms by +1.719s; heal c1 c0 @1.411s; cut s1 c0 @1.723s for 67ms; "
        "crash s1 @1.511s; restart s2 @84ms; jump c0 @280ms by +1.686s; crash c1 @1.964s; pause c0 @1.021s for 243ms; "
        "restart c1 @2.03s");
  CHECK(w.run() == 0x974560b29e205d2dULL);
  CHECK(w.world.trace().size() == 2171);
  CHECK(hash_of(29) == 0x974560b29e205d2dULL);
}

TEST_CASE("recording the trace and only hashing it give the same hash", "[determinism]") {
  for (uint64_t seed : {0, 1, 2, 3, 4}) {
    INFO("seed " << seed);
    BusyWorld recorded(seed, Trace::Mode::Record);
    const uint64_t h = recorded.run();
    CHECK(h == hash_of(seed, Trace::Mode::HashOnly));
    CHECK(recorded.world.trace().events().size() == recorded.world.trace().size());
  }
}
