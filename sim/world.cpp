#include "locksim/sim/world.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace locksim::sim {

namespace {
uint32_t slot_of(FiberId id) { return static_cast<uint32_t>(id); }
uint32_t generation_of(FiberId id) { return static_cast<uint32_t>(id >> 32); }
FiberId make_fiber_id(uint32_t slot, uint32_t gen) { return (FiberId{gen} << 32) | slot; }
}  // namespace

World::World(uint64_t seed, Trace::Mode trace_mode)
    : seed_(seed), rng_(Rng(seed).stream("world")), trace_(trace_mode) {}

World::~World() {
  // Task frames may hold references to services the world owns: destroy them first.
  for (auto& slot : fibers_) slot.root.reset();
}

NodeId World::add_node(std::string name, LocalClock clock, std::string_view stream) {
  NodeId id = static_cast<NodeId>(nodes_.size());
  Node n;
  n.id = id;
  n.stream_key = stable_hash("node:" + std::string(stream.empty() ? std::string_view(name) : stream));
  n.rng = Rng(seed_).stream(n.stream_key);
  n.name = std::move(name);
  n.clock = clock;
  trace_.set_node_name(id, n.name);
  nodes_.push_back(std::move(n));
  node_at_.push_back(&nodes_.back());
  network_.resize(nodes_.size());
  return id;
}

NodeId World::find_node(std::string_view name) const {
  for (const auto& n : nodes_)
    if (n.name == name) return n.id;
  return kNoNode;
}

void World::set_start(NodeId id, std::function<Task<void>(Proc)> start) {
  node(id).start = std::move(start);
  schedule(now_, &World::start_event, nullptr, 0, 0, id);
}

void World::start_event(World& w, const Event& e) {
  if (!w.live(e)) return;
  Node& n = *w.node_at_[e.node];
  if (n.start) w.spawn(n.id, n.start(Proc(w, n.id)));
}

void World::scheduled_in_the_past(Instant at) const {
  LOCKSIM_ASSERT(at >= now_, fmt::format("an event scheduled in the past: at {}, now {}", format_instant(at),
                                         format_instant(now_)));
  std::abort();  // unreachable: the assertion above fails
}

void World::cancel(EventTicket ticket) {
  if (const std::optional<Instant> at = queue_.cancel(ticket)) latest_cancelled_ = std::max(latest_cancelled_, *at);
}

void World::run_until(Instant limit) {
  const base::ScopedAssertNote note("simulation seed", seed_);
  while (!stopped_ && !queue_.empty() && queue_.top().at <= limit) {
    Event e = queue_.pop();
    at_this_instant_ = e.at == now_ ? at_this_instant_ + 1 : 1;
    now_ = e.at;
    if (++processed_ > limits_.events) runaway(e, fmt::format("made more than {} events", limits_.events));
    if (at_this_instant_ > limits_.events_at_one_instant)
      runaway(e, fmt::format("made {} events without virtual time passing (a loop that neither waits nor sends)",
                             limits_.events_at_one_instant));
    dispatch(e);
  }
  if (stopped_) return;
  // Cancelled events count as if they had run as no-ops: those up to the limit move
  // time to theirs, and one past it is still something to happen.
  const bool cancelled_after = latest_cancelled_ > limit;
  if (!cancelled_after && latest_cancelled_ > now_) now_ = latest_cancelled_;
  // Time moves on to the limit only while something is still to happen.
  if (now_ < limit && limit != Instant::never() && (!queue_.empty() || cancelled_after)) now_ = limit;
}

void World::run() { run_until(Instant::never()); }

void World::runaway(const Event& e, std::string_view what) const {
  const std::string where = e.node == kNoNode ? std::string("the world") : nodes_[e.node].name;
  throw RunawayRun(
      fmt::format("the simulated run {}: stopped at {} in {} (seed {})", what, format_instant(now_), where, seed_));
}

void World::dispatch(const Event& e) {
  if (e.node != kNoNode) {
    Node& n = *node_at_[e.node];
    if (n.state == NodeState::Paused && n.incarnation == e.incarnation) {
      n.deferred.push_back(e);
      return;
    }
  }
  e.fn(*this, e);
}

// --- tasks ---

FiberId World::spawn(NodeId node, Task<void> task) {
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(fibers_.size());
    fibers_.emplace_back();
  }
  FiberSlot& f = fibers_[slot];
  f.live = true;
  f.cancel_requested = false;
  f.node = node;
  f.root = std::move(task);
  FiberId id = make_fiber_id(slot, f.generation);
  node_at_[node]->fibers.push_back(id);
  trace_.add(now_, node, TraceKind::FiberStart, static_cast<int64_t>(slot));
  resume_at(now_, id, f.root.handle());
  return id;
}

void World::never_given(FiberId id) const {
  const uint32_t slot = slot_of(id);
  LOCKSIM_ASSERT(slot < fibers_.size() && generation_of(id) <= fibers_[slot].generation,
                 fmt::format("no task was ever given the id {:#x}", id));
  std::abort();  // unreachable: the assertion above fails
}

NodeId World::fiber_node(FiberId id) const { return alive(id) ? fibers_[slot_of(id)].node : kNoNode; }

void World::resume_at(Instant at, FiberId id, std::coroutine_handle<> h) {
  NodeId node = fiber_node(id);
  if (node == kNoNode) throw std::logic_error("resume_at: no live task (was a sim awaitable used outside a task?)");
  schedule(at, &World::resume_event, h.address(), id, 0, node);
}

void World::resume_event(World& w, const Event& e) {
  if (!w.live(e)) return;  // its node crashed
  w.resume_now(e.id, std::coroutine_handle<>::from_address(e.obj));
}

void World::resume_now(FiberId id, std::coroutine_handle<> h) {
  if (!alive(id)) return;  // cancelled meanwhile
  FiberId outer = current_fiber_;
  current_fiber_ = id;
  h.resume();
  current_fiber_ = outer;
  FiberSlot& f = fibers_[slot_of(id)];
  if (f.cancel_requested) {
    finish_fiber(id, TraceKind::FiberCancelled);
  } else if (f.root.done()) {
    Task<void> root = std::move(f.root);
    finish_fiber(id, TraceKind::FiberEnd);
    root.result();  // a task that threw is a bug in the code under test: surface it
  }
}

void World::cancel(FiberId id) {
  if (!alive(id)) return;
  if (id == current_fiber_) {
    fibers_[slot_of(id)].cancel_requested = true;  // destroyed once it suspends
    return;
  }
  finish_fiber(id, TraceKind::FiberCancelled);
}

void World::finish_fiber(FiberId id, TraceKind how) {
  uint32_t slot = slot_of(id);
  FiberSlot& f = fibers_[slot];
  NodeId node = f.node;
  f.live = false;
  ++f.generation;
  auto& list = node_at_[node]->fibers;
  std::erase(list, id);
  trace_.add(now_, node, how, static_cast<int64_t>(slot));
  Task<void> root = std::move(f.root);  // destroyed here: runs the frames' destructors
  root.reset();
  free_slots_.push_back(slot);
}

void World::kill_fibers(Node& n) {
  // Copy: finishing a fiber edits the list.
  std::vector<FiberId> doomed = n.fibers;
  for (FiberId id : doomed) cancel(id);
}

// --- faults ---

void World::crash(NodeId id) {
  Node& n = node(id);
  if (n.state == NodeState::Crashed) return;
  n.state = NodeState::Crashed;
  ++n.incarnation;  // everything aimed at the old incarnation is now stale
  trace_.add(now_, id, TraceKind::Crash);
  kill_fibers(n);
  for (auto& hook : n.crash_hooks) hook();
  tell(id, TraceKind::Crash);
  for (ConnectionEvents* c : connections_) {
    if (c->client_node() == id)
      c->on_client_crash();
    else if (c->server_node() == id)
      c->on_reset();
  }
  // What was deferred by a pause is delivered as stale: each handler drops it its own way.
  std::vector<Event> deferred = std::move(n.deferred);
  n.deferred.clear();
  for (const Event& e : deferred) e.fn(*this, e);
}

void World::restart(NodeId id) {
  Node& n = node(id);
  if (n.state != NodeState::Crashed) crash(id);
  n.state = NodeState::Up;
  trace_.add(now_, id, TraceKind::Restart, n.incarnation);
  tell(id, TraceKind::Restart);
  if (n.start) spawn(id, n.start(Proc(*this, id)));
}

void World::pause(NodeId id, Duration how_long) {
  LOCKSIM_ASSERT(how_long >= Duration::zero(), "a pause of negative length");
  Node& n = node(id);
  if (n.state == NodeState::Crashed) return;
  const Instant end = now_ + how_long;
  trace_.add(now_, id, TraceKind::Pause, how_long.ns);
  // Frozen already: the node stays frozen to the later of the two ends (a pause
  // within a pause cannot shorten it), and it was never running in between.
  if (n.state == NodeState::Paused && end <= n.pause_end) return;
  const bool was_paused = n.state == NodeState::Paused;
  n.state = NodeState::Paused;
  n.pause_end = end;
  ++n.pause_generation;
  if (!was_paused) tell(id, TraceKind::Pause);
  // Aimed at the world, not the node, so that the pause cannot defer its own end.
  schedule(end, &World::pause_end_event, nullptr, (uint64_t{n.incarnation} << 32) | id, n.pause_generation,
           kNoNode);
}

void World::pause_end_event(World& w, const Event& e) {
  NodeId id = static_cast<NodeId>(e.id & 0xffffffffu);
  uint32_t incarnation = static_cast<uint32_t>(e.id >> 32);
  Node& n = w.node(id);
  // A crash, or a longer pause begun meanwhile, supersedes this end.
  if (n.state != NodeState::Paused || n.incarnation != incarnation || n.pause_generation != e.generation) return;
  n.state = NodeState::Up;
  w.trace_.add(w.now_, id, TraceKind::Resume);
  w.tell(id, TraceKind::Resume);
  // Deliver, in arrival order, what the pause held back. Delivered inline, not
  // re-queued, so nothing already queued for this instant can overtake it.
  std::vector<Event> deferred = std::move(n.deferred);
  n.deferred.clear();
  for (const Event& d : deferred) {
    if (n.state == NodeState::Paused) {
      n.deferred.push_back(d);
      continue;
    }
    w.dispatch(d);
  }
}

void World::jump_clock(NodeId id, Duration by) {
  node(id).clock.add_jump(now_, by);
  trace_.add(now_, id, TraceKind::ClockJump, by.ns);
}

void World::cut(NodeId a, NodeId b, Duration how_long) {
  LOCKSIM_ASSERT(how_long >= Duration::zero(), "a cut of negative length");
  network_.cut(a, b);
  trace_.add(now_, a, TraceKind::Cut, b, how_long.ns, fmt::format("{} <-/-> {}", node(a).name, node(b).name));
  if (how_long.ns > 0) {
    uint64_t epoch = network_.cut_epoch(a, b);
    schedule(now_ + how_long, &World::heal_event, nullptr, (uint64_t{a} << 32) | b, epoch, kNoNode);
  }
}

void World::heal_event(World& w, const Event& e) {
  NodeId a = static_cast<NodeId>(e.id >> 32), b = static_cast<NodeId>(e.id & 0xffffffffu);
  // Heal only the cut this event belongs to, not a later one.
  if (w.network_.is_cut(a, b) && w.network_.cut_epoch(a, b) == e.generation) w.heal(a, b);
}

void World::heal(NodeId a, NodeId b) {
  if (!network_.is_cut(a, b)) return;
  network_.heal(a, b);
  trace_.add(now_, a, TraceKind::Heal, b, 0, fmt::format("{} <---> {}", node(a).name, node(b).name));
}

void World::reset(NodeId a, NodeId b) {
  trace_.add(now_, a, TraceKind::Reset, b, 0, fmt::format("{} x {}", node(a).name, node(b).name));
  for (ConnectionEvents* c : connections_) {
    bool between = (c->client_node() == a && c->server_node() == b) || (c->client_node() == b && c->server_node() == a);
    if (between) c->on_reset();
  }
}

std::vector<NodeId> World::peers(NodeId node, const std::string& peer) const {
  std::vector<NodeId> out;
  if (peer == "*") {
    for (const auto& n : nodes_)
      if (n.id != node) out.push_back(n.id);
  } else {
    out.push_back(find_node(peer));
  }
  return out;
}

bool World::apply(const FaultPlan& plan, std::string* error) {
  for (const Fault& f : plan.faults) {
    bool ok = find_node(f.node) != kNoNode;
    if (ok && (f.kind == FaultKind::Cut || f.kind == FaultKind::Heal || f.kind == FaultKind::Reset))
      ok = f.peer == "*" || find_node(f.peer) != kNoNode;
    if (!ok) {
      if (error) *error = fmt::format("fault '{}' names a node this world does not have", to_string(f));
      return false;
    }
  }
  for (const Fault& f : plan.faults) {
    planned_.push_back(f);
    schedule(f.at, &World::fault_event, nullptr, planned_.size() - 1, 0, kNoNode);
  }
  return true;
}

void World::fault_event(World& w, const Event& e) {
  const Fault f = w.planned_[e.id];
  NodeId id = w.find_node(f.node);
  switch (f.kind) {
    case FaultKind::Crash: w.crash(id); break;
    case FaultKind::Restart: w.restart(id); break;
    case FaultKind::Pause: w.pause(id, f.amount); break;
    case FaultKind::ClockJump: w.jump_clock(id, f.amount); break;
    case FaultKind::Cut:
      for (NodeId p : w.peers(id, f.peer)) w.cut(id, p, f.amount);
      break;
    case FaultKind::Heal:
      for (NodeId p : w.peers(id, f.peer)) w.heal(id, p);
      break;
    case FaultKind::Reset:
      for (NodeId p : w.peers(id, f.peer)) w.reset(id, p);
      break;
  }
}

}  // namespace locksim::sim
