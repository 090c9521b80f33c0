#pragma once
// A Redis server as a node of the simulated world: the Redis model behind a
// sim::Service. Commands execute atomically on arrival, on the server's own
// local clock; a crash without persistence loses every key; each command's
// effects on keys go to the history, tagged with the client and purpose.
#include <functional>
#include <map>
#include <string>

#include "locksim/lock/history.hpp"
#include "locksim/lock/unix_time.hpp"
#include "locksim/sim/redis/server.hpp"
#include "locksim/sim/rpc.hpp"
#include "locksim/sim/world.hpp"

namespace locksim::lock {

struct RedisRequest {
  redis::Command command;
  uint32_t client = kNoClient;
  Purpose purpose = Purpose::Other;
};

class RedisNode final : public redis::Observer {
 public:
  using Channel = sim::Channel<RedisRequest, redis::Reply>;

  // persistent: whether a restart keeps the keys (RDB/AOF); off by default, as the posts assume.
  // index: which Redis node this is in the deployment (recorded with its effects).
  RedisNode(sim::World& world, std::string name, History* history, bool persistent = false, sim::LocalClock clock = {},
            uint32_t index = 0);
  RedisNode(const RedisNode&) = delete;
  RedisNode& operator=(const RedisNode&) = delete;

  sim::NodeId node() const { return node_; }
  Channel& connect(sim::NodeId client) { return service_.connect(client); }
  redis::Server& server() { return server_; }
  uint32_t index() const { return index_; }

  // Told of every effect a client's command has on a key (a replication stream).
  using WriteListener = std::function<void(const redis::KeyEffect&, uint32_t client, Purpose purpose)>;
  void on_write(WriteListener listener) { on_write_ = std::move(listener); }
  // Applies an effect that happened on another node (replication), on behalf
  // of the client whose command caused it there.
  void apply_replicated(const redis::KeyEffect& effect, uint32_t client, Purpose purpose);
  int64_t local_ms() const { return unix_ms(world_.local_now(node_)); }

 private:
  void on_effect(const redis::KeyEffect& effect) override;
  redis::Reply handle(sim::SessionId session, RedisRequest& request);

  sim::World& world_;
  sim::NodeId node_;
  redis::Server server_;
  sim::Service<RedisRequest, redis::Reply> service_;
  std::map<sim::SessionId, redis::ConnectionId> connections_;
  History* history_;
  bool persistent_;
  uint32_t index_;
  const RedisRequest* executing_ = nullptr;
  WriteListener on_write_;
  redis::ConnectionId replication_connection_ = 0;
};

}  // namespace locksim::lock
