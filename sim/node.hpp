#pragma once
// A node: a client process or a server. It has its own local clock, its own
// random stream, and runs tasks (fibers). Crash destroys every task of the
// current incarnation; restart begins a new incarnation with the start
// routine; pause freezes the node and defers everything aimed at it.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "locksim/sim/clock.hpp"
#include "locksim/sim/random.hpp"
#include "locksim/sim/scheduler.hpp"
#include "locksim/sim/task.hpp"

namespace locksim::sim {

class Proc;
using FiberId = uint64_t;  // slot index in the low 32 bits, slot generation in the high 32
inline constexpr FiberId kNoFiber = ~uint64_t{0};

enum class NodeState : uint8_t { Up, Paused, Crashed };

struct Node {
  NodeId id = kNoNode;
  std::string name;
  LocalClock clock;
  Rng rng;
  // Names this node's random streams. Stable across scenarios that differ in
  // other nodes (a client keeps its draws when another client is removed).
  uint64_t stream_key = 0;
  NodeState state = NodeState::Up;
  uint32_t incarnation = 0;
  uint64_t pause_generation = 0;                   // a pause that ends later supersedes an earlier pause's end
  Instant pause_end{};                             // while Paused: when it resumes
  std::vector<FiberId> fibers;                     // live tasks of this incarnation, in spawn order
  std::vector<Event> deferred;                     // what arrived while paused, in arrival order
  std::function<Task<void>(Proc)> start;           // run at start and at each restart
  std::vector<std::function<void()>> crash_hooks;  // e.g. a server drops its volatile state
};

}  // namespace locksim::sim
