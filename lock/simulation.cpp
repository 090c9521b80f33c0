#include "lock/simulation.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace locksim::lock {

Simulation::Simulation(const SimulationConfig& config)
    : config_(config), algorithm_(find_algorithm(config.algorithm)) {
  if (!algorithm_) throw std::invalid_argument(fmt::format("unknown algorithm '{}'", config.algorithm));
  const WorkloadParams& wl = config_.workload;
  if (wl.clients == 0) throw std::invalid_argument("a run needs at least one client");

  world_ = std::make_unique<sim::World>(config_.seed, config_.record_trace ? sim::Trace::Mode::Record
                                                                            : sim::Trace::Mode::HashOnly);
  sim::World& w = *world_;
  w.network().set_default_latency(config_.latency);

  redis_ = &w.make<RedisNode>(w, "redis", &history_, config_.persistent_redis);
  store_ = w.add_node("store");
  resource_ = &w.make<sim::Service<ResourceWrite, bool>>(w, store_, [this](sim::SessionId, ResourceWrite& write, sim::Instant) {
    sim::World& world = *world_;
    HistoryEvent e;
    e.at = world.now();
    e.local = world.local_now(store_);
    e.client = write.client;
    e.purpose = Purpose::Resource;
    e.a = write.token;
    e.b = highest_token_;
    bool accepted = write.token < 0 || write.token >= highest_token_;
    e.step = accepted ? Step::WriteAccepted : Step::WriteRejected;
    if (accepted && write.token > highest_token_) highest_token_ = write.token;
    history_.add(std::move(e));
    return accepted;
  });

  std::vector<std::string> names;
  lives_.resize(wl.clients);
  for (uint32_t c = 0; c < wl.clients; ++c) {
    sim::Duration offset = c < wl.clock_offsets.size() ? wl.clock_offsets[c] : sim::Duration{};
    int64_t drift = c < wl.drifts_ppm.size() ? wl.drifts_ppm[c] : 0;
    names.push_back(client_name(c));
    const uint32_t identity = c < wl.identities.size() ? wl.identities[c] : c;
    sim::NodeId id = w.add_node(names.back(), sim::LocalClock(offset, drift), client_name(identity));
    clients_.push_back(id);
    redis_channels_.push_back(&redis_->connect(id));
    store_channels_.push_back(&resource_->connect(id));
  }
  history_.set_clients(names);

  // Faults that strike a client go into its history, so timelines and checkers see them.
  w.on_node_fault([this](sim::NodeId node, sim::TraceKind kind) {
    if (node == redis_->node() && (kind == sim::TraceKind::Crash || kind == sim::TraceKind::Restart)) {
      HistoryEvent e;
      e.at = world_->now();
      e.local = world_->local_now(node);
      e.step = kind == sim::TraceKind::Crash ? Step::ServerCrashed : Step::ServerRestarted;
      e.a = config_.persistent_redis ? 1 : 0;
      history_.add(std::move(e));
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
    }
  });

  std::string error;
  if (!w.apply(config_.faults, &error)) throw std::invalid_argument(error);
  for (uint32_t c = 0; c < wl.clients; ++c)
    w.set_start(clients_[c], [this, c](sim::Proc p) { return client_main(p, c); });
}

Simulation::~Simulation() = default;

void Simulation::run() { world_->run_until(sim::Instant{} + config_.horizon); }

sim::Task<void> Simulation::client_main(sim::Proc proc, uint32_t client) {
  const WorkloadParams& wl = config_.workload;
  ClientLife& life = lives_[client];
  SimEnv env(proc, *redis_channels_[client], client, life, history_, config_.lock.call_timeout, wl.call_faults);
  std::unique_ptr<Lock> lock = algorithm_->make(config_.lock);
  if (life.iteration == 0 && life.calls == 0 && wl.start_spread.ns > 0)
    co_await proc.sleep(proc.rng().uniform(sim::Duration{}, wl.start_spread));

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
    co_await proc.sleep(proc.rng().uniform(wl.think_min, wl.think_max));
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

  sim::Duration work = env.rng().uniform(wl.work_min, wl.work_max);
  for (const SlowWork& s : wl.slow_work)
    if (s.client == client && s.iteration == iteration) work = s.work;
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
    auto r = co_await store_channels_[client]->call(ResourceWrite{client, lock.fence()}, config_.lock.call_timeout);
    (void)r;  // the resource records the outcome
  }
  for (uint32_t depth = nested_held; depth >= 1; --depth) {
    env.record(Step::ReleaseStart, depth);
    bool released = co_await lock.release(env);
    env.record(Step::Released, released ? 1 : 0, depth);
  }
  env.record(Step::Leave);
}

}  // namespace locksim::lock
