// The Redis model alone: no simulator, no rapidcheck, no CLI11.
#include <locksim/sim/redis/server.hpp>

#include <cstdio>

int main() {
  locksim::redis::Server server;
  auto conn = server.connect();
  int64_t now_ms = 1'000;
  auto set = server.execute(conn, {"SET", "lock", "me", "NX", "PX", "100"}, now_ms);
  auto early = server.execute(conn, {"GET", "lock"}, now_ms + 100);  // Redis expires after, not at, the deadline
  auto late = server.execute(conn, {"GET", "lock"}, now_ms + 101);
  const bool ok = set.str == "OK" && early.str == "me" && late.is_nil();
  std::printf("%s\n", ok ? "ok: the key expired after its 100 ms lease" : "FAILED");
  return ok ? 0 : 1;
}
