#include "locksim/real/deployment.hpp"

#include <fmt/format.h>

#include <event2/event.h>

#include <chrono>
#include <thread>

#include "locksim/real/scale.hpp"
#include "locksim/real/sync_client.hpp"

namespace locksim::real {

Deployment::Deployment(EventLoop& loop, const lock::SimulationConfig& config, const std::string& binary,
                       const std::string& dir)
    : config_(config), names_(lock::redis_node_names(config)) {
  const uint32_t clients = config.workload.clients;
  int master_port = 0;
  for (uint32_t i = 0; i < names_.size(); ++i) {
    RedisOptions o;
    o.binary = binary;
    o.dir = dir;
    o.name = names_[i];
    o.durable = config.persistent_redis;
    if (config.replica && i == 0) o.port = master_port = free_loopback_port();
    processes_.push_back(std::make_unique<RedisProcess>(o));
  }
  for (uint32_t i = 0; i < config.masters; ++i) serving_.push_back(i);
  const sim::Rng root(config.seed);
  link_rngs_.reserve(names_.size() * clients);  // the proxies keep pointers into it
  for (uint32_t i = 0; i < names_.size(); ++i) {
    links_.emplace_back();
    for (uint32_t c = 0; c < clients; ++c) {
      link_rngs_.push_back(root.stream(fmt::format("link {} {}", i, c)));
      sim::Rng* rng = &link_rngs_.back();
      const sim::LatencyDist latency = config.latency;
      Address listen{fmt::format("{}/link-{}-{}.sock", dir, names_[i], lock::client_name(c)), 0};
      links_[i].push_back(std::make_unique<LinkProxy>(loop, listen, Address{processes_[i]->socket_path(), 0},
                                                      [rng, latency] { return latency.draw(*rng); }));
    }
  }
  processes_[0]->start();
  for (uint32_t i = 1; i < config.masters; ++i) processes_[i]->start();
  if (config.replica) {
    const int proxy_port = free_loopback_port();
    const sim::Duration lag = config.replication_lag;
    // The lag applies once the replica is in sync: its handshake would take many lags.
    replication_ = std::make_unique<LinkProxy>(loop, Address{"", proxy_port}, Address{"", master_port},
                                               [this, lag] { return in_sync_ ? lag : sim::Duration{}; });
    processes_[1]->mutable_options().replica_of = fmt::format("127.0.0.1 {}", proxy_port);
    processes_[1]->start();
    // The proxy lives on this loop: turn it until the replica is in sync.
    for (int turn = 0; turn < 500; ++turn) {
      event_base_loop(loop.base(), EVLOOP_NONBLOCK);
      try {
        SyncClient c = SyncClient::unix_socket(processes_[1]->socket_path());
        if (c.execute({"INFO", "replication"}).str.find("master_link_status:up") != std::string::npos) {
          in_sync_ = true;
          return;
        }
      } catch (const std::runtime_error&) {}
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    throw NoRedisServer("the replica did not reach its master within 5 s");
  }
}

Deployment::~Deployment() = default;

void Deployment::promote_replica() {
  SyncClient::unix_socket(processes_[1]->socket_path()).execute({"REPLICAOF", "NO", "ONE"});
  serving_[0] = 1;
}

}  // namespace locksim::real
