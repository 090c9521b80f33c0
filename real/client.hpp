#pragma once
// One client process of a real run: the lock::Env the algorithms run on,
// over real connections (hiredis async on the event loop, through the link
// proxies) and real time (the loop's monotonic clock, seen through the
// client's own skewed, drifting, jumping LocalClock). Its coroutines resume
// only from the loop; while the client is paused every resumption waits for
// the pause to end; a crash destroys its tasks and drops its connections.
#include <coroutine>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "locksim/lock/env.hpp"
#include "locksim/lock/lock.hpp"
#include "locksim/lock/schedule.hpp"
#include "locksim/lock/sim_env.hpp"
#include "locksim/lock/wall_reads.hpp"
#include "locksim/sim/clock.hpp"

struct redisAsyncContext;

namespace locksim::real {

class RealRun;

class RealClient final : public lock::Env {
 public:
  RealClient(RealRun& run, uint32_t index);
  ~RealClient() override;
  RealClient(const RealClient&) = delete;
  RealClient& operator=(const RealClient&) = delete;

  // lock::Env
  lock::Task<lock::RedisResult> redis_on(uint32_t server, lock::Command command, lock::Purpose purpose) override;
  uint32_t redis_servers() const override;
  lock::Task<void> sleep(sim::Duration span) override;
  sim::Instant local_now(lock::ClockUse use) const override;
  sim::Instant monotonic_now(lock::ClockUse use) const override;
  sim::Rng& rng() override { return rng_; }
  lock::TaskId spawn(lock::Task<void> task) override;
  void cancel(lock::TaskId task) override;
  void record(lock::Step step, int64_t first = 0, int64_t second = 0) override;
  // A step of a command's own (a lost request or reply), with the command's purpose.
  void record(lock::Step step, int64_t first, int64_t second, lock::Purpose purpose);
  void hold_until(sim::Instant local_deadline) override;
  const lock::Ledger* ledger() const override;
  uint32_t client() const override { return index_; }
  std::string_view client_name() const override { return name_; }

  // Lifecycle and faults (called from the loop, never from inside a task).
  void start();
  void crash();
  void restart();
  void pause(sim::Duration span);
  void jump_clock(sim::Duration by);
  void drop_connections();
  bool finished() const { return finished_; }
  bool crashed() const { return crashed_; }

  // What a pending call or sleep waits on; resumed from the loop.
  struct Op {
    std::coroutine_handle<> handle;
    bool completed = false;
    lock::RedisResult result;
    uint64_t timer = 0;
  };

 private:
  struct Connection {
    RealClient* client = nullptr;
    uint32_t node = 0;
    redisAsyncContext* context = nullptr;
    uint64_t serial = 0;  // the trace's connection id
  };
  struct Reply;
  lock::Task<void> main_task();
  lock::Task<void> critical_section(lock::Lock& lock, uint32_t iteration);
  lock::Task<lock::RedisResult> await_op(const std::shared_ptr<Op>& op, const std::function<void()>& start);
  // `loss`: a fault aimed at this call loses its request (never sent) or its reply (the
  // command runs, its reply is dropped): either way the call times out.
  void send(uint32_t node, const lock::Command& command, lock::Purpose purpose, const std::shared_ptr<Op>& op,
            sim::Loss loss);
  Connection* connection(uint32_t node);
  void complete(const std::shared_ptr<Op>& op, lock::RedisResult result);
  void post(std::function<void()> fn);
  void drain();
  void reap();
  void end_pause();
  std::string describe(const lock::Command& command) const;
  static void on_reply(redisAsyncContext* context, void* reply, void* data);
  static void on_disconnect(const redisAsyncContext* context, int status);

  RealRun& run_;
  uint32_t index_;
  std::string name_;
  sim::LocalClock clock_;
  sim::Rng rng_;
  lock::ClientSchedule schedule_;  // the simulator's: the same start, work and think times
  lock::ClientLife life_;
  uint64_t incarnation_ = 0;
  bool paused_ = false, crashed_ = false, finished_ = false;
  // What is ready to run, tagged with the incarnation that queued it; what woke during a pause.
  std::vector<std::pair<uint64_t, std::function<void()>>> ready_;
  bool draining_scheduled_ = false;
  std::vector<std::function<void()>> deferred_;
  sim::Instant pause_end_;
  uint64_t pause_timer_ = 0;
  uint64_t calls_sent_ = 0, connections_made_ = 0;
  std::map<lock::TaskId, lock::Task<void>> tasks_;
  std::set<lock::TaskId> doomed_;
  lock::TaskId next_task_ = 1, main_ = 0;
  std::vector<std::unique_ptr<Connection>> connections_;  // per node
  mutable lock::NestedWaitWallReads wall_reads_;
};

}  // namespace locksim::real
