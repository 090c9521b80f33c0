#include "locksim/lock/simulation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "locksim/base/assert.hpp"

namespace locksim::lock {

namespace {

void validate(const SimulationConfig& config) {
  if (config.workload.clients == 0) throw std::invalid_argument("a run needs at least one client");
  const sim::Duration ms1{1'000'000};
  if (config.lock.retry < ms1 || config.lock.call_timeout < ms1 || config.lock.lease < ms1)
    throw std::invalid_argument("retry, call-timeout and lease must be at least 1ms");
  if (config.lock.renew_interval.ns != 0 && config.lock.renew_interval < ms1)
    throw std::invalid_argument("renew-interval must be 0 (lease/3) or at least 1ms");
  if (config.masters == 0 || config.masters > 9) throw std::invalid_argument("masters must be 1 to 9");
  if (config.replica && config.masters != 1) throw std::invalid_argument("a replica goes with a single master");
  if (config.redis_drifts_ppm.size() > config.masters + (config.replica ? 1u : 0u))
    throw std::invalid_argument("a Redis clock drift names a node the deployment does not have");
}

}  // namespace

Simulation::Simulation(const SimulationConfig& config) : config_(config), algorithm_(find_algorithm(config.algorithm)) {
  if (!algorithm_) throw std::invalid_argument(fmt::format("unknown algorithm '{}'", config.algorithm));
  validate(config_);
  reserve_history();
  world_ = std::make_unique<sim::World>(config_.seed,
                                        config_.record_trace ? sim::Trace::Mode::Record : sim::Trace::Mode::HashOnly);
  world_->network().set_default_latency(config_.latency);
  add_redis_deployment();
  add_resource();
  history_.ledger().track(config_.lock.key);
  if (algorithm_->uses_database) {
    DbNodeOptions options = config_.database;
    options.lock_wait_timeout = config_.lock.wait_limit;
    db_ = &world_->make<DbNode>(*world_, "db", &history_, options);
  }
  add_clients();
  std::vector<std::string> node_names;
  for (sim::NodeId id = 0; id < world_->node_count(); ++id) node_names.push_back(world_->node(id).name);
  history_.touches().set_node_names(std::move(node_names));
  // Faults that strike a node go into the history, so timelines and checkers see them.
  world_->on_node_fault([this](sim::NodeId node, sim::TraceKind kind) { record_node_fault(node, kind); });
  std::string error;
  if (!world_->apply(config_.faults, &error)) throw std::invalid_argument(error);
  for (uint32_t c = 0; c < config_.workload.clients; ++c)
    world_->set_start(clients_[c], [this, c](sim::Proc p) { return client_main(p, c); });
}

// An iteration records nine events when nothing goes wrong (acquire start, acquired,
// enter, the write, leave, release start, released, the key set and deleted), and in
// the ledger one instance with two facts (granted, ended): room for them up front
// spares the vectors their copies as they double, and the peak of holding both copies
// at once. Capped: a huge workload grows as it goes.
void Simulation::reserve_history() {
  constexpr size_t kEventsPerIteration = 9, kFactsPerIteration = 2, kSlack = 16, kMost = 8192;
  const size_t holds = size_t{config_.workload.clients} * config_.workload.iterations * (config_.workload.nested + 1);
  history_.reserve(std::min(holds * kEventsPerIteration + kSlack, kMost));
  history_.ledger().reserve(std::min(holds, kMost), std::min(holds * kFactsPerIteration + kSlack, kMost));
  // Calls (an acquire's tries, the release, the write) and clock readings: about five and four a hold.
  constexpr size_t kCallsPerIteration = 5, kReadsPerIteration = 4;
  history_.touches().reserve(std::min(holds * kCallsPerIteration + kSlack, kMost),
                             std::min(holds * kReadsPerIteration + kSlack, kMost));
}

void Simulation::add_redis_deployment() {
  sim::World& w = *world_;
  const std::vector<std::string> node_names = redis_node_names(config_);
  for (uint32_t i = 0; i < node_names.size(); ++i) {
    const int64_t drift = i < config_.redis_drifts_ppm.size() ? config_.redis_drifts_ppm[i] : 0;
    redis_nodes_.push_back(&w.make<RedisNode>(w, node_names[i], &history_, config_.persistent_redis,
                                              sim::LocalClock{sim::Duration{}, drift}, i));
  }
  for (uint32_t i = 0; i < node_names.size(); ++i) history_.ledger().name_node(i, node_names[i]);
  for (uint32_t server = 0; server < config_.masters; ++server) serving_.push_back(server);
  if (!config_.replica) return;
  history_.ledger().set_replica(0, 1);
  // The master's writes travel to the replica after the replication lag.
  redis_nodes_[0]->on_propagate([this](std::vector<redis::Propagated> batch, uint32_t client, Purpose purpose) {
    replication_.push_back(Replicated{std::move(batch), client, purpose, replication_epoch_});
    world_->schedule(world_->now() + config_.replication_lag, &Simulation::replicate_event, this);
  });
}

void Simulation::add_resource() {
  sim::World& w = *world_;
  store_ = w.add_node("store");
  resource_ =
      &w.make<sim::Service<ResourceWrite, bool>>(w, store_, [this](sim::SessionId, ResourceWrite& write, sim::Instant) {
        sim::World& world = *world_;
        HistoryEvent e;
        e.at = world.now();
        e.local = world.local_now(store_);
        e.client = write.client;
        e.purpose = Purpose::Resource;
        e.token = write.token;
        e.highest_seen = highest_token_;
        bool accepted = write.token < 0 || write.token >= highest_token_;
        e.step = accepted ? Step::WriteAccepted : Step::WriteRejected;
        if (accepted && write.token > highest_token_) highest_token_ = write.token;
        history_.add(std::move(e));
        return accepted;
      });
}

void Simulation::add_clients() {
  sim::World& w = *world_;
  const WorkloadParams& wl = config_.workload;
  std::vector<std::string> names;
  lives_.resize(wl.clients);
  channels_.resize(redis_nodes_.size());
  for (uint32_t c = 0; c < wl.clients; ++c) {
    sim::Duration offset = c < wl.clock_offsets.size() ? wl.clock_offsets[c] : sim::Duration{};
    int64_t drift = c < wl.drifts_ppm.size() ? wl.drifts_ppm[c] : 0;
    names.push_back(client_name(c));
    const uint32_t identity = c < wl.identities.size() ? wl.identities[c] : c;
    schedules_.emplace_back(config_.seed, identity, c, config_.workload);
    sim::NodeId id = w.add_node(names.back(), sim::LocalClock(offset, drift), client_name(identity));
    clients_.push_back(id);
    for (size_t n = 0; n < redis_nodes_.size(); ++n) channels_[n].push_back(&redis_nodes_[n]->connect(id));
    store_channels_.push_back(&resource_->connect(id));
    if (db_) db_channels_.push_back(&db_->connect(id));
  }
  // Each client's subscriber connections (pub/sub), made last: the connections
  // above keep their ids, so runs that never subscribe trace as before.
  subscriber_channels_.resize(redis_nodes_.size());
  for (size_t n = 0; n < redis_nodes_.size(); ++n)
    for (sim::NodeId id : clients_) subscriber_channels_[n].push_back(&redis_nodes_[n]->connect(id));
  history_.set_clients(names);
}

void Simulation::record_node_fault(sim::NodeId node, sim::TraceKind kind) {
  for (RedisNode* r : redis_nodes_) {
    if (r->node() != node) continue;
    if (kind != sim::TraceKind::Crash && kind != sim::TraceKind::Restart) return;
    HistoryEvent e;
    e.at = world_->now();
    e.local = world_->local_now(node);
    e.step = kind == sim::TraceKind::Crash ? Step::ServerCrashed : Step::ServerRestarted;
    e.keys_survive = config_.persistent_redis;
    e.server = r->index();
    history_.add(std::move(e));
    if (kind == sim::TraceKind::Restart) history_.ledger().server_restarted(r->index(), world_->now());
    if (config_.replica && r->index() == 0 && kind == sim::TraceKind::Crash) {
      ++replication_epoch_;  // what had not left the master is lost with it
      if (!promoted_) world_->schedule(world_->now() + config_.failover_after, &Simulation::promote_event, this);
    }
    return;
  }
  for (uint32_t c = 0; c < clients_.size(); ++c) {
    if (clients_[c] != node) continue;
    HistoryEvent e;
    e.at = world_->now();
    e.local = world_->local_now(node);
    e.client = c;
    switch (kind) {
      case sim::TraceKind::Crash: e.step = Step::Crashed; break;
      case sim::TraceKind::Restart: e.step = Step::Restarted; break;
      case sim::TraceKind::Pause: e.step = Step::Paused; break;
      default: e.step = Step::Resumed; break;
    }
    history_.add(std::move(e));
    history_.client_stepped(history_.events().back());
  }
}

Simulation::~Simulation() = default;

std::string redis_node_name(const SimulationConfig& config, uint32_t index) {
  if (config.replica && index == 1) return "replica";
  return config.masters == 1 ? std::string("redis") : fmt::format("redis{}", index + 1);
}

std::vector<std::string> redis_node_names(const SimulationConfig& config) {
  std::vector<std::string> names;
  const uint32_t count = config.masters + (config.replica ? 1 : 0);
  for (uint32_t i = 0; i < count; ++i) names.push_back(redis_node_name(config, i));
  return names;
}

void Simulation::replicate_event(sim::World& w, const sim::Event& e) {
  auto* self = static_cast<Simulation*>(e.obj);
  (void)w;
  LOCKSIM_ASSERT(!self->replication_.empty(), "a replication event with no write in flight");
  Replicated r = std::move(self->replication_.front());
  self->replication_.pop_front();
  if (r.epoch != self->replication_epoch_ || !self->world_->is_up(self->redis_nodes_[1]->node())) return;
  self->redis_nodes_[1]->apply_replicated(r.batch, r.client, r.purpose);
}

void Simulation::promote_event(sim::World& w, const sim::Event& e) {
  auto* self = static_cast<Simulation*>(e.obj);
  if (self->promoted_ || w.is_up(self->redis_nodes_[0]->node())) return;  // the master came back first
  self->promoted_ = true;
  self->serving_[0] = 1;  // clients now reach the replica when they ask for server 0
  HistoryEvent h;
  h.at = w.now();
  h.local = w.local_now(self->redis_nodes_[1]->node());
  h.step = Step::ReplicaPromoted;
  h.server = 1;
  self->history_.add(std::move(h));
  self->history_.ledger().promoted(1, w.now());
  w.note(self->redis_nodes_[1]->node(), "replica promoted to master");
}

void Simulation::run() {
  world_->run_until(sim::Instant{} + config_.horizon);
  history_.ledger().settle();
}

sim::Task<void> Simulation::client_main(sim::Proc proc, uint32_t client) {
  const WorkloadParams& wl = config_.workload;
  ClientLife& life = lives_[client];
  SimEnv::Route route = [this, client](uint32_t server) -> RedisNode::Channel& {
    return *channels_[serving_[server]][client];
  };
  SimEnv env(proc, route, config_.masters, client, life, history_, config_.lock.call_timeout, wl.call_faults);
  env.set_subscriber_route([this, client](uint32_t server) -> RedisNode::Channel& {
    return *subscriber_channels_[serving_[server]][client];
  });
  env.count_lua_instructions_in(&lua_instructions_);
  // A statement may wait for a row lock up to the lock-wait timeout: the client's read timeout covers it.
  if (db_) env.set_database(db_channels_[client], config_.lock.wait_limit + config_.lock.call_timeout);
  std::unique_ptr<Lock> lock = algorithm_->make(config_.lock);
  const ClientSchedule& schedule = schedules_[client];
  if (life.iteration == 0 && life.calls == 0 && wl.start_spread.ns > 0) co_await proc.sleep(schedule.start());

  while (life.iteration < wl.iterations) {
    const uint32_t iteration = life.iteration;
    env.record(Step::AcquireStart, 0);
    const bool held = co_await lock->acquire(env);
    if (held) {
      env.record(Step::Acquired, lock->fence());
      co_await critical_section(env, *lock, client, iteration);
      env.record(Step::ReleaseStart, 0);
      bool released = co_await lock->release(env);
      env.record(Step::Released, released ? 1 : 0, 0);
    } else {
      env.record(Step::AcquireFailed, 0);
    }
    ++life.iteration;
    co_await proc.sleep(schedule.think(iteration));
  }
}

sim::Task<void> Simulation::critical_section(SimEnv& env, Lock& lock, uint32_t client, uint32_t iteration) {
  const WorkloadParams& wl = config_.workload;
  env.record(Step::Enter);
  // Reentrancy: take the lock again from nested code, then give those holds back.
  uint32_t nested_held = 0;
  for (uint32_t depth = 1; depth <= wl.nested; ++depth) {
    env.record(Step::AcquireStart, depth);
    const bool held = co_await lock.acquire(env);
    if (!held) {
      env.record(Step::AcquireFailed, depth);
      break;
    }
    env.record(Step::Acquired, lock.fence(), depth);
    ++nested_held;
  }

  sim::Duration work = schedules_[client].work(iteration);
  // The section is timed on the client's clock: a drift of its rate moves when the hold ends.
  if (work.ns > 0) history_.touches().clock_read(client, ClockKind::Monotonic, ClockUse::Work, world_->now());
  if (wl.stop_when_lost) {
    // Work in slices, stopping as soon as the lock says its lease may be gone.
    const sim::Duration slice = 10_ms;
    while (work.ns > 0 && lock.still_held()) {
      sim::Duration step = work < slice ? work : slice;
      co_await env.sleep(step);
      work -= step;
    }
  } else {
    co_await env.sleep(work);
  }

  if (wl.write_resource && (!wl.stop_when_lost || lock.still_held())) {
    ResourceWrite write{client, lock.fence()};
    const sim::CallFate fate = env.next_write_fate();
    Touches& touches = history_.touches();
    const size_t call = touches.call_sent(client, store_, world_->now());
    auto r = co_await store_channels_[client]->call(write, config_.lock.call_timeout, fate);
    touches.call_ended(call, world_->now(), r.spiked.ns > 0);  // the resource records the outcome
  }
  for (uint32_t depth = nested_held; depth >= 1; --depth) {
    env.record(Step::ReleaseStart, depth);
    bool released = co_await lock.release(env);
    env.record(Step::Released, released ? 1 : 0, depth);
  }
  env.record(Step::Leave);
}

}  // namespace locksim::lock
