#pragma once
// The Redis deployment of a scenario as real processes: one redis-server,
// N independent masters (Redlock), or a master and a replica (replicating
// through a proxy that adds the scenario's lag, promoted by REPLICAOF NO ONE).
// Every client reaches every server through a proxy of its own, so that
// network faults and latency strike one link at a time.
#include <memory>
#include <string>
#include <vector>

#include "locksim/lock/simulation.hpp"
#include "locksim/real/event_loop.hpp"
#include "locksim/real/process.hpp"
#include "locksim/real/proxy.hpp"
#include "locksim/sim/random.hpp"

namespace locksim::real {

class Deployment {
 public:
  // Starts the servers (waits until they answer and the replica is in sync).
  // Throws NoRedisServer if they cannot be started.
  Deployment(EventLoop& loop, const lock::SimulationConfig& config, const std::string& binary, const std::string& dir);
  ~Deployment();

  uint32_t nodes() const { return static_cast<uint32_t>(processes_.size()); }
  const std::string& name(uint32_t node) const { return names_[node]; }
  RedisProcess& process(uint32_t node) { return *processes_[node]; }
  LinkProxy& link(uint32_t node, uint32_t client) { return *links_[node][client]; }
  LinkProxy* replication() { return replication_.get(); }
  bool durable() const { return config_.persistent_redis; }

  // Server `server` (0-based, as the algorithms number them) is served by this node.
  uint32_t serving(uint32_t server) const { return serving_[server < serving_.size() ? server : 0]; }
  // REPLICAOF NO ONE on the replica; from now on it serves server 0.
  void promote_replica();

 private:
  const lock::SimulationConfig& config_;
  std::vector<std::string> names_;
  std::vector<std::unique_ptr<RedisProcess>> processes_;
  std::unique_ptr<LinkProxy> replication_;
  std::vector<std::vector<std::unique_ptr<LinkProxy>>> links_;  // [node][client]
  std::vector<uint32_t> serving_;
  bool in_sync_ = false;  // the replica has finished its first sync
  std::vector<sim::Rng> link_rngs_;
};

}  // namespace locksim::real
