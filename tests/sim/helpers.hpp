#pragma once
// Small helpers shared by the simulator tests.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "locksim/sim/rpc.hpp"
#include "locksim/sim/world.hpp"

namespace simtest {

using namespace locksim::sim;
using namespace locksim::sim::literals;

using Echo = Service<int64_t, int64_t>;
using EchoChannel = Channel<int64_t, int64_t>;

inline Instant at(Duration d) { return Instant{} + d; }

// Counts its own destructions: put one in a coroutine frame to see it die.
struct Probe {
  int* destroyed;
  explicit Probe(int* d) : destroyed(d) {}
  Probe(const Probe&) = delete;
  Probe& operator=(const Probe&) = delete;
  ~Probe() { ++*destroyed; }
};

// Trace events of one kind, in order.
inline std::vector<TraceEvent> events_of(const World& w, TraceKind kind) {
  std::vector<TraceEvent> out;
  for (const auto& e : w.trace().events())
    if (e.kind == kind) out.push_back(e);
  return out;
}

inline size_t count_of(const World& w, TraceKind kind) { return events_of(w, kind).size(); }

// An echo service on `server` that answers request x with x, logging what it ran.
struct EchoServer {
  Echo* service = nullptr;
  std::vector<int64_t> executed;     // requests, in execution order
  std::vector<Instant> executed_at;  // true time of each execution
  std::vector<std::string> log;      // "req 3", "close 1"

  EchoServer(World& w, NodeId server) {
    service = &w.make<Echo>(w, server, [this, &w](SessionId, int64_t& req, Instant) {
      executed.push_back(req);
      executed_at.push_back(w.now());
      log.push_back("req " + std::to_string(req));
      return req;
    });
    service->on_disconnect([this](SessionId s) { log.push_back("close " + std::to_string(s)); });
  }
};

// A server echoing requests and one client connected to it, 10 ms apart each
// way: the world most network and crash tests start from (TEST_CASE_METHOD).
struct EchoPair {
  World w{1};
  NodeId server = (w.network().set_default_latency(LatencyDist{10_ms}), w.add_node("server"));
  NodeId client = w.add_node("client");
  EchoServer echo{w, server};
  Channel<int64_t, int64_t>& ch = echo.service->connect(client);
};

}  // namespace simtest
