#pragma once
// One simulated run of a lock algorithm: a Redis node, a fenced resource node,
// N client nodes running the workload, the network, the faults. Everything it
// does follows from its config; the same config gives the same history and
// the same trace hash.
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "locksim/lock/db_node.hpp"
#include "locksim/lock/history.hpp"
#include "locksim/lock/params.hpp"
#include "locksim/lock/redis_node.hpp"
#include "locksim/lock/registry.hpp"
#include "locksim/lock/schedule.hpp"
#include "locksim/lock/sim_env.hpp"
#include "locksim/lock/workload.hpp"
#include "locksim/sim/fault.hpp"
#include "locksim/sim/random.hpp"
#include "locksim/sim/world.hpp"

namespace locksim::lock {

struct SimulationConfig {
  std::string algorithm = "token-lua";
  LockParams lock;
  WorkloadParams workload;
  sim::LatencyDist latency{.base = 500'000_ns,  // one way
                           .jitter = 1_ms,
                           .spike_probability = 0.0,
                           .spike_scale = 20_ms,
                           .spike_alpha = 1.5,
                           .spike_cap = 200_ms};
  sim::FaultPlan faults;  // node names: clients "A", "B", ...; "redis"; "store"
  uint64_t seed = 1;
  sim::Duration horizon = 120_s;  // stop here even if clients are still busy
  bool persistent_redis = false;
  // The Redis deployment: `masters` independent masters (Redlock), or one
  // master with an asynchronous replica that is promoted `failover_after` the
  // master dies (Sentinel); writes reach the replica `replication_lag` later.
  uint32_t masters = 1;
  bool replica = false;
  sim::Duration replication_lag = 20_ms;
  sim::Duration failover_after = 1_s;
  // Per Redis node (by index, as redis_node_names lists them; missing: 0), how
  // fast its clock runs wrong, in ppm: a fast one expires keys early.
  std::vector<int64_t> redis_drifts_ppm;
  bool record_trace = true;
  // The database node "db", present when the algorithm uses one (Algorithm::uses_database).
  // Its lock-wait timeout is the lock's wait limit (SET SESSION innodb_lock_wait_timeout).
  DbNodeOptions database;
  bool operator==(const SimulationConfig&) const = default;
};

// A write to the protected resource, which keeps the highest fencing token
// seen and rejects a lower one (tokens of -1: no fencing, always accepted).
struct ResourceWrite {
  uint32_t client = kNoClient;
  int64_t token = -1;
};

// The node names of a deployment: "redis" alone, "redis1".."redisN" for
// several masters, and "replica".
std::string redis_node_name(const SimulationConfig& config, uint32_t index);
std::vector<std::string> redis_node_names(const SimulationConfig& config);

class Simulation {
 public:
  // Throws std::invalid_argument, naming the problem, for an unknown algorithm
  // or a fault plan that names a node the run does not have.
  explicit Simulation(const SimulationConfig& config);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Runs until every client has finished its iterations (or is dead) or the horizon.
  void run();
  sim::World& world() { return *world_; }
  const History& history() const { return history_; }
  const SimulationConfig& config() const { return config_; }
  // The node that serves Redis server 0 now (the replica once promoted).
  RedisNode& redis() { return *redis_nodes_[serving_[0]]; }
  RedisNode& redis_node(uint32_t index) { return *redis_nodes_[index]; }
  size_t redis_node_count() const { return redis_nodes_.size(); }
  DbNode* database() { return db_; }  // null when the algorithm uses no database
  sim::NodeId client_node(uint32_t client) const { return clients_[client]; }
  uint64_t trace_hash() const { return world_->trace().hash(); }

 private:
  void add_redis_deployment();  // the masters (and the replica), and the replication stream
  void add_resource();          // the fenced store and its service
  void reserve_history();       // room for the events a run without faults records
  void add_clients();           // the client nodes and their connections
  void record_node_fault(sim::NodeId node, sim::TraceKind kind);
  sim::Task<void> client_main(sim::Proc proc, uint32_t client);
  sim::Task<void> critical_section(SimEnv& env, Lock& lock, uint32_t client, uint32_t iteration);

  SimulationConfig config_;
  const Algorithm* algorithm_;
  History history_;
  uint64_t lua_instructions_ = 0;  // by every Lua-variant client of the run (its budget: lua_variant.hpp)
  std::unique_ptr<sim::World> world_;
  std::vector<RedisNode*> redis_nodes_;
  std::vector<uint32_t> serving_;                                      // server -> index of the node that serves it
  std::vector<std::vector<RedisNode::Channel*>> channels_;             // [node][client]
  std::vector<std::vector<RedisNode::Channel*>> subscriber_channels_;  // [node][client]: pub/sub
  struct Replicated {
    std::vector<redis::Propagated> batch;  // one command's writes, applied at once
    uint32_t client;
    Purpose purpose;
    uint64_t epoch;
  };
  std::deque<Replicated> replication_;  // the stream in flight, oldest first
  uint64_t replication_epoch_ = 0;      // a master crash loses what has not left it
  bool promoted_ = false;
  static void replicate_event(sim::World& w, const sim::Event& e);
  static void promote_event(sim::World& w, const sim::Event& e);
  sim::NodeId store_ = sim::kNoNode;
  sim::Service<ResourceWrite, bool>* resource_ = nullptr;
  int64_t highest_token_ = -1;
  std::vector<sim::NodeId> clients_;
  std::vector<sim::Channel<ResourceWrite, bool>*> store_channels_;
  std::vector<ClientLife> lives_;
  std::vector<ClientSchedule> schedules_;  // per client: its start, work and think, the same under every lock
  DbNode* db_ = nullptr;
  std::vector<DbNode::Channel*> db_channels_;
};

}  // namespace locksim::lock
