#pragma once
// A Redis server as a node of the simulated world: the Redis model behind a
// sim::Service. Commands execute atomically on arrival, on the server's own
// local clock; a crash without persistence loses every key; each command's
// effects on keys go to the history, tagged with the client and purpose.
//
// Waiting. A blocking command with nothing to serve (BLPOP ...) is a deferred
// call, answered when the model pushes its late reply: another client's
// command served it, or its timeout passed (a timer at the model's next
// deadline, on this node's clock, calls advance). Pub/sub messages reach a
// subscribed client through reads: a request with `read_push` set is a
// socket read on that connection, answered with the oldest pushed reply not
// yet read, at once or when one arrives, or with nil when its wait passes on
// the server's clock. Both travel back over the link, so a cut or reset
// loses them, and a reset or crash ends the connection's blocks and
// subscriptions in the model.
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

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
  // Not a command: read the next pushed reply (a pub/sub message), waiting up to
  // read_wait on the server's clock; nil if none came, an error if the
  // connection has no subscription and nothing left to read.
  bool read_push = false;
  Duration read_wait{};
};

// A model's effect on a key as the ledger's change (ledger.hpp), at true time
// `at`, on a store whose clock is `clock`. A deadline goes in true time as it
// would come had the clock kept pace; an expiry is dated when the clock
// passed the deadline of the instance live there (a lazy expiry is seen late).
KeyChange key_change(const redis::KeyEffect& effect, Instant at, uint32_t node, uint32_t client, Purpose purpose,
                     const Ledger& ledger, const sim::LocalClock& clock);

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

  // Told of each batch of writes this server propagates to its replicas (the
  // replication stream: redis::Propagated), with the client whose command made them
  // (kNoClient for the server's own expiry cycle).
  using PropagationListener =
      std::function<void(std::vector<redis::Propagated> batch, uint32_t client, Purpose purpose)>;
  void on_propagate(PropagationListener listener);
  // Applies a batch another node propagated (replication), at once, on behalf of the
  // client whose command caused it there.
  void apply_replicated(const std::vector<redis::Propagated>& batch, uint32_t client, Purpose purpose);
  int64_t local_ms() const { return unix_ms(world_.local_now(node_)); }
  // Calls waiting for an answer: blocked commands and reads (for tests and invariants).
  size_t waiting_calls() const { return service_.deferred_count(); }

 private:
  // One client connection: its model connection and what it waits for.
  struct Session {
    redis::ConnectionId conn = 0;
    sim::DeferredId waiting = 0;  // a blocked command's or a read's call, if any
    bool waiting_read = false;    // which of the two
    int64_t read_deadline_ms = 0;
    int64_t subscriptions = 0;        // as the model's confirmations last said
    // Pushed replies no read has taken yet, oldest first: a few at most, so a vector
    // (a deque allocates twice as it is made, for every session, most of which never read).
    std::vector<redis::Reply> unread;
  };
  void on_effect(const redis::KeyEffect& effect) override;
  void take_effect(redis::KeyEffect&& effect) override;
  void record_own_lock_refused(uint32_t client, const std::string& key);
  sim::Answer<redis::Reply> handle(sim::SessionId session, RedisRequest& request);
  sim::Answer<redis::Reply> execute(Session& s, RedisRequest& request);  // a command (not a read)
  sim::Answer<redis::Reply> read(Session& s, const RedisRequest& request);
  void deliver_pushed();
  void answer_waiting(Session& s, redis::Reply reply);
  void closed(sim::SessionId session);
  void arm_timer();
  static void timer_event(sim::World& w, const sim::Event& e);

  sim::World& world_;
  sim::NodeId node_;
  redis::Server server_;
  sim::Service<RedisRequest, redis::Reply> service_;
  std::map<sim::SessionId, Session> sessions_;
  std::map<redis::ConnectionId, sim::SessionId> by_conn_;
  std::set<redis::ConnectionId> pushed_;  // outboxes the model filled, not yet delivered
  std::optional<Instant> timer_at_;       // the earliest timer event scheduled
  History* history_;
  bool persistent_;
  uint32_t index_;
  const RedisRequest* executing_ = nullptr;
  // While an acquire runs over its client's own live instance: that key, and whether the command changed it.
  const std::string* own_key_ = nullptr;
  bool own_key_changed_ = false;
  bool crashing_ = false;  // the crash's flush: the ledger hears of the loss once, not key by key
  redis::ConnectionId replication_connection_ = 0;
};

}  // namespace locksim::lock
