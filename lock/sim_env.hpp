#pragma once
// The simulator's Env: Redis over a simulated connection, the node's clock and
// generator, tasks on the node. It also carries the faults aimed at the
// client's own commands (crash or pause just before its Nth command, or the
// loss of its request or reply).
#include <functional>
#include <string>
#include <vector>

#include "locksim/lock/db_node.hpp"
#include "locksim/lock/env.hpp"
#include "locksim/lock/history.hpp"
#include "locksim/lock/redis_node.hpp"
#include "locksim/lock/wall_reads.hpp"
#include "locksim/lock/workload.hpp"
#include "locksim/sim/world.hpp"

namespace locksim::lock {

// What outlives one incarnation of a client: its count of commands sent and
// its progress through the workload.
struct ClientLife {
  uint32_t calls = 0;
  uint32_t writes = 0;  // writes to the fenced resource (numbered apart from commands)
  uint32_t iteration = 0;
};

class SimEnv final : public Env {
 public:
  // Which channel reaches server i now (it changes when a replica is promoted).
  using Route = std::function<RedisNode::Channel&(uint32_t server)>;

  SimEnv(sim::Proc proc, RedisNode::Channel& redis, uint32_t client, ClientLife& life, History& history,
         Duration call_timeout, const std::vector<CallFault>& call_faults);
  SimEnv(sim::Proc proc, Route route, uint32_t servers, uint32_t client, ClientLife& life, History& history,
         Duration call_timeout, const std::vector<CallFault>& call_faults);

  Task<RedisResult> redis_on(uint32_t server, Command command, Purpose purpose) override;
  uint32_t redis_servers() const override { return servers_; }
  Task<RedisResult> redis_blocking(uint32_t server, Command command, Purpose purpose, Duration block) override;
  Task<RedisResult> subscriber(uint32_t server, Command command, Purpose purpose) override;
  Task<RedisResult> next_pushed(uint32_t server, Duration wait) override;
  // Which channel is the client's subscriber connection to server i (unset: none, calls are lost).
  void set_subscriber_route(Route route) { subscriber_route_ = std::move(route); }
  Task<DbResult> db(db::Statement statement, Purpose purpose) override;
  // The client's connection to the database, where the run has one.
  // `timeout`: how long the client waits for a statement (a lock wait included).
  void set_database(DbNode::Channel* channel, Duration timeout) {
    db_ = channel;
    db_timeout_ = timeout;
  }
  Task<void> sleep(Duration span) override;
  Instant local_now(ClockUse use) const override;
  Instant monotonic_now(ClockUse use) const override;
  sim::Rng& rng() override { return proc_.rng(); }
  TaskId spawn(Task<void> task) override { return proc_.spawn(std::move(task)); }
  void cancel(TaskId task) override { proc_.cancel(task); }
  Task<void> run_parallel(std::vector<Task<void>> tasks) override;
  void record(Step step, int64_t first = 0, int64_t second = 0) override;
  void record_renewal(Step step, int64_t status, Instant sent_monotonic) override;
  void record_text(Step step, std::string_view text) override;
  void hold_until(Instant local_deadline) override;
  const Ledger* ledger() const override { return &history_.ledger(); }
  uint32_t client() const override { return client_; }
  std::string_view client_name() const override { return proc_.name(); }
  uint64_t* run_lua_instructions() override { return run_lua_instructions_; }
  // Counts the client's next write to the resource: what a fault aimed at it does in the
  // network (recorded as a CallDelayed step when it delays it).
  sim::CallFate next_write_fate();
  void count_lua_instructions_in(uint64_t* run_counter) { run_lua_instructions_ = run_counter; }

 private:
  bool next_call_has_faults();  // counts the call; true if a fault is aimed at it
  Task<void> apply_call_faults();  // the faults aimed at the call just counted
  // Which message of call `n` a fault loses (recorded as a CallLost step), if any.
  sim::Loss lost_message(uint32_t n, Purpose purpose);
  // How much longer a fault holds the request of call (or write) `n` in flight (recorded
  // as a CallDelayed step), if it does.
  Duration delayed_by(uint32_t n, CallFault::On on, Purpose purpose);
  Task<RedisResult> call(const Route& route, uint32_t server, RedisRequest request, Duration timeout);
  void record_event(Step step, int64_t first, int64_t second, std::string_view text,
                    Purpose purpose = Purpose::Other, Instant sent = Instant::never());

  sim::Proc proc_;
  Route route_;
  Route subscriber_route_;
  uint32_t servers_;
  uint32_t client_;
  ClientLife& life_;
  History& history_;
  Duration call_timeout_;
  const std::vector<CallFault>& call_faults_;
  uint64_t* run_lua_instructions_ = nullptr;
  DbNode::Channel* db_ = nullptr;
  Duration db_timeout_{};
  mutable NestedWaitWallReads wall_reads_;
};

}  // namespace locksim::lock
