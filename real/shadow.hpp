#pragma once
// What the commands did to the keys of one real redis-server. Redis does not
// say (keyspace notifications carry no values, MONITOR no client), so every
// reply a client receives is replayed, in arrival order and at its arrival
// instant, on a Redis model beside it: the model's key effects (set, deleted,
// re-armed, expired; old and new values, deadlines) go to the history,
// tagged with the client and purpose, exactly as the simulator records them.
// Two clients' commands within a link's latency of each other may be
// replayed out of the server's order; the real replies are what the clients
// act on. A restart without persistence forgets the model's keys too.
#include <cstdint>
#include <map>

#include "locksim/lock/history.hpp"
#include "locksim/sim/redis/server.hpp"

namespace locksim::real {

class Shadow final : public redis::Observer {
 public:
  Shadow(lock::History& history, uint32_t server);
  Shadow(const Shadow&) = delete;
  Shadow& operator=(const Shadow&) = delete;

  // A command the real server ran for `client`, replayed at true instant `at`.
  void replay(const redis::Command& command, uint32_t client, lock::Purpose purpose, sim::Instant at);
  void disconnect(uint32_t client);  // the client's connection is gone (its WATCHes and MULTI too)
  void forget(sim::Instant at);      // a crash without persistence, at true instant `at`

 private:
  void on_effect(const redis::KeyEffect& effect) override;

  lock::History& history_;
  uint32_t server_;
  redis::Server model_;
  std::map<uint32_t, redis::ConnectionId> connections_;
  uint32_t client_ = lock::kNoClient;
  lock::Purpose purpose_ = lock::Purpose::Other;
  sim::Instant at_;
  bool forgetting_ = false;  // a crash's flush: the ledger hears of the loss once
};

}  // namespace locksim::real
