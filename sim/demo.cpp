// A small world that shows the simulator at work: an echo server, three
// clients calling it in a loop, and a crash, a pause and a cut on the way.
#include <fmt/format.h>

#include <cstdlib>
#include <string>

#include "sim/rpc.hpp"
#include "sim/world.hpp"

using namespace locksim::sim;
using namespace locksim::sim::literals;

namespace {

Task<void> client_loop(Proc self, Channel<std::string, std::string>& server) {
  for (int i = 0;; ++i) {
    auto r = co_await server.call(fmt::format("{}:{}", self.name(), i), 300_ms);
    if (r.ok()) self.note("got " + r.value);
    else self.note(fmt::format("call {} failed: {}", i, to_string(r.status)));
    co_await self.sleep(self.rng().uniform(100_ms, 400_ms));
  }
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t seed = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1;
  World world(seed);
  world.network().set_default_latency(LatencyDist{1_ms, 4_ms, 0.05, 20_ms, 1.5, 250_ms});

  NodeId server = world.add_node("echo");
  auto& echo = world.make<Service<std::string, std::string>>(
      world, server, [](SessionId, std::string& req, Instant) { return "echo " + req; });
  echo.describe([](const std::string& s) { return s; }, [](const std::string& s) { return s; });

  for (const char* name : {"A", "B", "C"}) {
    NodeId id = world.add_node(name, LocalClock(milliseconds(name[0] - 'A'), 0));
    auto& channel = echo.connect(id);
    world.set_start(id, [&channel](Proc p) { return client_loop(p, channel); });
  }

  std::string error;
  auto plan = parse_fault_plan("crash B @1s; restart B @2s; pause C @1.2s for 700ms; cut A echo @2.5s for 600ms", &error);
  if (!plan || !world.apply(*plan, &error)) {
    fmt::print(stderr, "demo: {}\n", error);
    return 2;
  }
  world.run_until(Instant{} + 4_s);

  fmt::print("locksim simulator demo (seed {}): echo server, clients A B C\n", seed);
  fmt::print("faults: {}\n\n", to_string(*plan));
  fmt::print("{}", world.trace().render());
  fmt::print("\n{} events, trace hash {:016x}\n", world.trace().size(), world.trace().hash());
  return 0;
}
