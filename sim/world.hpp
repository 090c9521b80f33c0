#pragma once
// sim::World: virtual true time, one event queue, the nodes and their tasks,
// the network and the faults. One world runs on one thread; everything it
// does follows from its seed and what it was given, so the same seed gives a
// byte-identical trace.
#include <coroutine>
#include <deque>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/base/assert.hpp"
#include "locksim/sim/fault.hpp"
#include "locksim/sim/network.hpp"
#include "locksim/sim/node.hpp"
#include "locksim/sim/scheduler.hpp"
#include "locksim/sim/trace.hpp"

namespace locksim::sim {

// A connection's view of node faults; implemented by rpc.hpp's channels.
class ConnectionEvents {
 public:
  virtual ~ConnectionEvents() = default;
  virtual NodeId client_node() const = 0;
  virtual NodeId server_node() const = 0;
  virtual void on_client_crash() = 0;  // the client process is gone: close politely
  virtual void on_reset() = 0;         // connection reset (server crash, network reset)
};

// A run that would never end on its own: it made more events than its budget, or
// kept making events while virtual time stood still (a loop that neither waits nor
// sends). Thrown by run_until(); the message names the seed, the time and the node.
class RunawayRun : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bounds on one run's events (World::set_limits). The defaults sit far above what
// the scenarios props/limits.hpp accepts make with the built-in locks, and stop a
// runaway within a few seconds (one instant) to a few minutes (the total) of CPU.
struct RunLimits {
  uint64_t events = 500'000'000;
  uint64_t events_at_one_instant = 10'000'000;
};

class World {
 public:
  explicit World(uint64_t seed, Trace::Mode trace_mode = Trace::Mode::Record);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // --- nodes ---
  // `stream` names the node's random streams (default: its name).
  NodeId add_node(std::string name, LocalClock clock = {}, std::string_view stream = {});
  NodeId find_node(std::string_view name) const;  // kNoNode if there is none
  // The node's main routine: started now, and again at every restart.
  void set_start(NodeId id, std::function<Task<void>(class Proc)> start);
  // An id this world never gave out is an internal error (LOCKSIM_ASSERT).
  Node& node(NodeId id) { return *node_at_[checked(id)]; }
  const Node& node(NodeId id) const { return *node_at_[checked(id)]; }
  size_t node_count() const { return nodes_.size(); }
  bool is_up(NodeId id) const { return node(id).state != NodeState::Crashed; }

  // --- time and the loop ---
  Instant now() const { return now_; }
  Instant local_now(NodeId id) const { return node(id).clock.local(now_); }
  // The node's monotonic clock: its rate, none of its jumps (LocalClock::monotonic).
  Instant monotonic_now(NodeId id) const { return node(id).clock.monotonic(now_); }
  // Runs every event at or before limit; then, if anything is still pending, now = limit.
  void run_until(Instant limit);
  void run();  // until nothing is scheduled or stop() is called
  void stop() { stopped_ = true; }
  bool stopped() const { return stopped_; }
  uint64_t events_processed() const { return processed_; }
  void set_limits(RunLimits limits) { limits_ = limits; }
  size_t pending_events() const { return queue_.size(); }

  // Schedules fn at `at`, aimed at `node`'s current incarnation (kNoNode: at the world).
  // `at` is never in the past, and `node` is one of this world's (internal errors otherwise).
  // Inline: a run schedules a few events per call it simulates.
  EventTicket schedule(Instant at, EventFn fn, void* obj, uint64_t id = 0, uint64_t generation = 0,
                       NodeId node = kNoNode) {
    // Moving it to now would hide the bug that computed the time, and reorder the run.
    if (at < now_) [[unlikely]]
      scheduled_in_the_past(at);
    return queue_.push(at, fn, obj, id, generation, node, node == kNoNode ? 0 : this->node(node).incarnation);
  }
  // Drops a scheduled event that can no longer do anything when it comes (a call's
  // timeout once the call is over): it never runs, and the queue does not carry it.
  // Nothing else changes: the time a run ends at is still what it would have been
  // with the event run as a no-op. An event no longer queued is left alone.
  void cancel(EventTicket ticket);
  // Whether an event still reaches the incarnation it was meant for.
  bool live(const Event& e) const {
    return e.node == kNoNode || (node(e.node).incarnation == e.incarnation && node(e.node).state != NodeState::Crashed);
  }

  // --- tasks ---
  FiberId spawn(NodeId node, Task<void> task);
  void cancel(FiberId id);
  // False once it ended; an id never given out is an internal error. Inline: every
  // resumption and every reply asks it.
  bool alive(FiberId id) const {
    if (id == kNoFiber) return false;
    const uint32_t slot = static_cast<uint32_t>(id), generation = static_cast<uint32_t>(id >> 32);
    if (slot >= fibers_.size() || generation > fibers_[slot].generation) [[unlikely]]
      never_given(id);
    return fibers_[slot].live && fibers_[slot].generation == generation;
  }
  FiberId current_fiber() const { return current_fiber_; }
  NodeId fiber_node(FiberId id) const;
  // Resumes `h` (suspended inside fiber `id`) at `at`, unless the fiber dies first.
  void resume_at(Instant at, FiberId id, std::coroutine_handle<> h);
  // Resumes it now, from inside the current event (a reply handler, say).
  void resume_now(FiberId id, std::coroutine_handle<> h);

  // --- faults ---
  void crash(NodeId id);
  void restart(NodeId id);
  void pause(NodeId id, Duration how_long);
  void jump_clock(NodeId id, Duration by);
  void cut(NodeId a, NodeId b, Duration how_long = {});  // 0: until heal
  void heal(NodeId a, NodeId b);
  void reset(NodeId a, NodeId b);
  // Schedules every fault of the plan; false (with the reason) if it names an unknown node.
  bool apply(const FaultPlan& plan, std::string* error = nullptr);

  // --- the rest ---
  Rng& rng() { return rng_; }
  uint64_t seed() const { return seed_; }
  Network& network() { return network_; }
  Trace& trace() { return trace_; }
  const Trace& trace() const { return trace_; }
  void note(NodeId node, std::string text) { trace_.add(now_, node, TraceKind::Note, 0, 0, std::move(text)); }

  // Told of every crash, restart, pause and resume (kind), after it took effect.
  void on_node_fault(std::function<void(NodeId, TraceKind)> listener) {
    fault_listeners_.push_back(std::move(listener));
  }

  // Returns the connection's number: connections are numbered in creation order.
  uint64_t register_connection(ConnectionEvents* c) {
    connections_.push_back(c);
    return connections_.size() - 1;
  }
  // Keeps an object (a service, a model) alive exactly as long as the world.
  template <class T, class... Args>
  T& make(Args&&... args) {
    auto owned = std::make_unique<Holder<T>>(std::forward<Args>(args)...);
    T& ref = owned->value;
    owned_.push_back(std::move(owned));
    return ref;
  }

 private:
  struct HolderBase {
    virtual ~HolderBase() = default;
  };
  template <class T>
  struct Holder : HolderBase {
    template <class... Args>
    explicit Holder(Args&&... args) : value(std::forward<Args>(args)...) {}
    T value;
  };
  struct FiberSlot {
    uint32_t generation = 0;
    bool live = false;
    bool cancel_requested = false;
    NodeId node = kNoNode;
    Task<void> root;
  };

  NodeId checked(NodeId id) const {
    LOCKSIM_ASSERT(id < node_at_.size(), "no node has this id in this world");
    return id;
  }
  void dispatch(const Event& e);
  void tell(NodeId id, TraceKind kind) {
    for (auto& l : fault_listeners_) l(id, kind);
  }
  void finish_fiber(FiberId id, TraceKind how);
  void kill_fibers(Node& n);
  static void resume_event(World& w, const Event& e);
  static void pause_end_event(World& w, const Event& e);
  static void fault_event(World& w, const Event& e);
  static void heal_event(World& w, const Event& e);
  static void start_event(World& w, const Event& e);
  std::vector<NodeId> peers(NodeId node, const std::string& peer) const;

  uint64_t seed_;
  Rng rng_;
  Instant now_{};
  bool stopped_ = false;
  uint64_t processed_ = 0;
  uint64_t at_this_instant_ = 0;  // events in a row at now_
  // The latest time of a cancelled event: a run that would have ended on such a
  // no-op ends at that time still (run_until).
  Instant latest_cancelled_{};
  RunLimits limits_;
  [[noreturn]] void runaway(const Event& e, std::string_view what) const;
  [[noreturn]] void scheduled_in_the_past(Instant at) const;
  [[noreturn]] void never_given(FiberId id) const;
  EventQueue queue_;
  std::deque<Node> nodes_;  // a deque: a node (and its start routine) never moves once added
  // Each node's address, by id: every event looks its node up, and indexing a deque
  // costs a division and two loads more than a vector.
  std::vector<Node*> node_at_;
  std::vector<FiberSlot> fibers_;
  std::vector<uint32_t> free_slots_;
  FiberId current_fiber_ = kNoFiber;
  Network network_;
  Trace trace_;
  std::vector<ConnectionEvents*> connections_;
  std::vector<std::function<void(NodeId, TraceKind)>> fault_listeners_;
  std::vector<Fault> planned_;  // faults scheduled by apply(), by index
  std::vector<std::unique_ptr<HolderBase>> owned_;
};

// What a task sees of its node: the handle algorithms are written against.
class Proc {
 public:
  Proc(World& w, NodeId id) : w_(&w), id_(id) {}
  World& world() const { return *w_; }
  NodeId id() const { return id_; }
  const std::string& name() const { return w_->node(id_).name; }
  Instant local_now() const { return w_->local_now(id_); }
  Instant monotonic_now() const { return w_->monotonic_now(id_); }
  Rng& rng() const { return w_->node(id_).rng; }
  FiberId spawn(Task<void> t) const { return w_->spawn(id_, std::move(t)); }
  void cancel(FiberId f) const { w_->cancel(f); }
  void note(std::string text) const { w_->note(id_, std::move(text)); }

  // Sleeps `span` as measured by this node's clock rate (monotonic: jumps do not shorten it).
  auto sleep(Duration span) const {
    struct Awaiter {
      World* w;
      Instant wake;
      bool await_ready() const noexcept { return false; }
      void await_suspend(std::coroutine_handle<> h) const { w->resume_at(wake, w->current_fiber(), h); }
      void await_resume() const noexcept {}
    };
    Duration true_span = w_->node(id_).clock.true_span(span < Duration::zero() ? Duration::zero() : span);
    return Awaiter{w_, w_->now() + true_span};
  }

 private:
  World* w_;
  NodeId id_;
};

}  // namespace locksim::sim
