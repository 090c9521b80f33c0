#pragma once
// One real run of a scenario: the scenario's deployment as redis-server
// processes, its clients as tasks on a real-time event loop running the very
// same lock code, its faults injected for real at their instants, and the
// record of it all in the simulator's own History and Trace types, so that
// the same property checkers and renderers read it.
//
// The config is taken as is: stretch it first (scale.hpp) if the machine is loaded.
#include <memory>
#include <string>
#include <vector>

#include "locksim/lock/history.hpp"
#include "locksim/lock/registry.hpp"
#include "locksim/lock/simulation.hpp"
#include "locksim/real/client.hpp"
#include "locksim/real/deployment.hpp"
#include "locksim/real/event_loop.hpp"
#include "locksim/real/process.hpp"
#include "locksim/real/shadow.hpp"
#include "locksim/sim/trace.hpp"

namespace locksim::real {

// What of a scenario cannot be run for real (its faults, an algorithm that
// waits on Redis), each with why; empty when the whole scenario can run.
std::vector<std::string> not_reproducible(const lock::SimulationConfig& config);

struct RealSetup {
  std::string redis_server;                          // the binary (see redis_server_binary)
  sim::Duration work_slice = sim::milliseconds(10);  // stop-when-lost checks the lock this often (scale it too)
};

class RealRun {
 public:
  // Starts the servers. Throws NoRedisServer (no binary, or it would not
  // start) and std::invalid_argument (unknown algorithm, unreproducible fault).
  RealRun(const lock::SimulationConfig& config, const RealSetup& setup);
  ~RealRun();
  RealRun(const RealRun&) = delete;
  RealRun& operator=(const RealRun&) = delete;

  // Runs until every client has finished (or is dead for good) or the horizon.
  void run();

  const lock::SimulationConfig& config() const { return config_; }
  const lock::History& history() const { return history_; }
  const sim::Trace& trace() const { return trace_; }
  sim::Instant ended_at() const { return ended_at_; }
  // The lock key on the server that serves server 0, at the end: -2 absent, -1 no TTL.
  int64_t key_pttl_ms() const { return key_pttl_ms_; }

  // For the clients.
  EventLoop& loop() { return loop_; }
  Deployment& deployment() { return *deployment_; }
  Shadow& shadow(uint32_t node) { return *shadows_[node]; }
  const lock::Algorithm& algorithm() const { return *algorithm_; }
  lock::History& history() { return history_; }
  sim::Trace& trace() { return trace_; }
  sim::NodeId client_node(uint32_t client) const { return client; }
  sim::NodeId server_node(uint32_t node) const { return config_.workload.clients + node; }
  void resource_write(uint32_t client, int64_t token);
  void client_settled();       // a client finished or crashed: the run may be over
  void fail(std::string why);  // an algorithm threw: the run stops and run() throws
  sim::Duration work_slice() const { return setup_.work_slice; }

 private:
  void schedule_faults();
  void apply(const sim::Fault& fault);
  void apply_to_server(const sim::Fault& fault, uint32_t node);
  void apply_to_links(const sim::Fault& fault);
  void crash_server(uint32_t node);
  void restart_server(uint32_t node);
  void server_event(lock::Step step, uint32_t node);
  bool over() const;
  void read_end();

  lock::SimulationConfig config_;
  RealSetup setup_;
  const lock::Algorithm* algorithm_;
  std::string failure_;
  TempDir dir_;
  EventLoop loop_;
  lock::History history_;
  sim::Trace trace_;
  std::unique_ptr<Deployment> deployment_;
  std::vector<std::unique_ptr<Shadow>> shadows_;  // per node
  std::vector<std::unique_ptr<RealClient>> clients_;
  int64_t highest_token_ = -1;
  size_t faults_left_ = 0;
  bool promoted_ = false;
  sim::Instant ended_at_;
  int64_t key_pttl_ms_ = -2;
};

}  // namespace locksim::real
