#pragma once
// The small environment every lock algorithm is written against: call Redis,
// sleep, read the wall and monotonic clocks, draw a random number, spawn a task, record a
// step. The simulator provides one (SimEnv); an environment over a real
// redis-server and real time can run the very same algorithm code.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "locksim/lock/command_pool.hpp"
#include "locksim/lock/history.hpp"
#include "locksim/lock/scripts.hpp"
#include "locksim/sim/db/statement.hpp"
#include "locksim/sim/random.hpp"
#include "locksim/sim/redis/reply.hpp"
#include "locksim/sim/redis/resp.hpp"
#include "locksim/sim/rpc.hpp"
#include "locksim/sim/task.hpp"

namespace locksim::lock {

using redis::Command;
using redis::Reply;
using sim::Task;
// Ok with the server's reply, or TimedOut / ConnectionLost: then nobody knows
// whether the command ran.
using RedisResult = sim::CallResult<Reply>;
// Ok with the database's outcome (done, or failed with its error), or TimedOut / ConnectionLost.
using DbResult = sim::CallResult<db::Outcome>;
using TaskId = uint64_t;

class Env {
 public:
  virtual ~Env() = default;
  // A command to "the" Redis (server 0).
  Task<RedisResult> redis(Command command, Purpose purpose) { return redis_on(0, std::move(command), purpose); }
  // A command to one of several independent Redis masters (Redlock).
  virtual Task<RedisResult> redis_on(uint32_t server, Command command, Purpose purpose) = 0;
  virtual uint32_t redis_servers() const { return 1; }
  // Waiting on Redis. Environments that cannot wait (real runs, so far) throw
  // WaitUnsupported from these, which fails the run with its message.
  //
  // A blocking command (BLPOP key 2, BLMOVE ...) on this client's connection:
  // answered when it is served or its own timeout passes, so the client waits
  // up to `block` (that timeout) on top of the call timeout.
  virtual Task<RedisResult> redis_blocking(uint32_t server, Command command, Purpose purpose, Duration block);
  // A command on this client's subscriber connection to `server` (a second
  // connection, as Redisson keeps one for pub/sub): SUBSCRIBE, UNSUBSCRIBE, ...
  virtual Task<RedisResult> subscriber(uint32_t server, Command command, Purpose purpose);
  // The next pushed reply on that connection, waiting up to `wait`: Ok with it
  // (["message", channel, payload], or a later subscription confirmation); Ok
  // with nil when none came in time; Ok with an error when the connection has
  // no subscription (a reset replaced it: subscribe again); TimedOut or
  // ConnectionLost when the link failed (a message in flight is lost).
  virtual Task<RedisResult> next_pushed(uint32_t server, Duration wait);
  // A statement to the database on this client's own connection (the
  // database locks). A statement that waits for a row lock returns when it
  // gets it, or with the lock-wait timeout or deadlock error — or TimedOut
  // if the client gives up first. Environments without a database answer
  // ConnectionLost.
  virtual Task<DbResult> db(db::Statement statement, Purpose purpose);
  // Sleeps as measured by this client's clock rate (its monotonic clock: no jump moves it).
  virtual Task<void> sleep(Duration span) = 0;
  // This client's wall clock (skewed, drifting, jumping as its node's does). A lock
  // reads it where times are compared across processes (a timestamp in the value).
  // `use`: what the reading is for (touches.hpp); the simulator records it.
  virtual Instant local_now(ClockUse use) const = 0;
  // This client's monotonic clock: it runs at the node's (drifting) rate and no jump
  // moves it; its origin means nothing. A careful lock times its own waits, wait
  // limits and lease schedule on it, as Redlock's spec asks (CLOCK_MONOTONIC,
  // std::chrono::steady_clock); one that reads the wall clock for them (node-redlock's
  // Date.now(), Redisson's currentTimeMillis) has every wait stretched by a jump back.
  virtual Instant monotonic_now(ClockUse use) const = 0;
  virtual sim::Rng& rng() = 0;
  // A second task in the same process (the watchdog's renewal); it dies with the process.
  virtual TaskId spawn(Task<void> task) = 0;
  virtual void cancel(TaskId task) = 0;
  // Runs the tasks concurrently, as tasks of this process, and returns when all
  // have ended. By default one after another (an environment without concurrency).
  virtual Task<void> run_parallel(std::vector<Task<void>> tasks);
  // A client step with its details, in this order (set_step_details names them): AcquireStart,
  // AcquireFailed, ReleaseStart (depth); Acquired (fence token or -1, depth); Released (1 if
  // its own lock, depth); RenewFailed (status).
  virtual void record(Step step, int64_t first = 0, int64_t second = 0) = 0;
  // A renewal's outcome (Renewed, or RenewFailed with its status) and when its request was
  // sent, by this client's monotonic clock; by default the step alone.
  virtual void record_renewal(Step step, int64_t status, Instant sent_monotonic) {
    (void)sent_monotonic;
    record(step, status);
  }
  // A step with text (a variant's log line, its error); by default the step alone.
  virtual void record_text(Step step, std::string_view text) {
    (void)text;
    record(step);
  }
  // The lock's own rule for when this client's hold lapses, for a lock whose
  // deadline lives in its value (a timestamp lock): when this client's clock
  // reads `local_deadline`. Told to the ledger with the grant it goes with.
  virtual void hold_until(Instant local_deadline) { (void)local_deadline; }
  // What the store has reported of lock instances so far (nullptr: nothing is
  // followed). A variant's renewal is a command that re-armed its own instance there.
  virtual const Ledger* ledger() const { return nullptr; }
  virtual uint32_t client() const = 0;
  virtual std::string_view client_name() const = 0;
  // The Lua instructions every Lua-variant client of this run has spent
  // together, for the per-run budget (nullptr: no run to count for).
  virtual uint64_t* run_lua_instructions() { return nullptr; }
};

struct WaitUnsupported : std::runtime_error {
  WaitUnsupported()
      : std::runtime_error(
            "this environment cannot wait on Redis (blocking commands, pub/sub): only the simulator can so far") {}
};

// Not coroutines: the caller's co_await throws at once.
inline Task<RedisResult> Env::redis_blocking(uint32_t, Command, Purpose, Duration) { throw WaitUnsupported(); }
inline Task<RedisResult> Env::subscriber(uint32_t, Command, Purpose) { throw WaitUnsupported(); }
inline Task<RedisResult> Env::next_pushed(uint32_t, Duration) { throw WaitUnsupported(); }

inline Task<void> Env::run_parallel(std::vector<Task<void>> tasks) {
  for (Task<void>& task : tasks) co_await std::move(task);
}

inline Task<DbResult> Env::db(db::Statement statement, Purpose purpose) {
  (void)statement;
  (void)purpose;
  co_return DbResult{sim::CallStatus::ConnectionLost, {}};
}

// cmd("SET", key, token, "NX"): a command from its words, built in a spent command's
// strings (command_pool.hpp). (Also sidesteps a GCC 12 bug with braced initializer
// lists inside co_await expressions.)
template <class... Words>
Command cmd(Words&&... words) {
  Command c = pooled_command(sizeof...(words));
  [[maybe_unused]] size_t i = 0;
  (detail::put_word(c[i++], std::forward<Words>(words)), ...);
  return c;
}

// The compare-and-delete release (scripts.hpp): DEL `key` only if it still holds `token`.
inline Command compare_and_delete(const std::string& key, const std::string& token) {
  return cmd("EVAL", scripts::kCompareAndDelete, "1", key, token);
}

// Reply helpers: the algorithms read like their pseudocode.
inline bool replied_ok(const RedisResult& r) {
  return r.ok() && r.value.type == Reply::Type::Status && r.value.str == "OK";
}
inline bool replied_int(const RedisResult& r, int64_t v) {
  return r.ok() && r.value.type == Reply::Type::Integer && r.value.integer == v;
}
inline bool replied_nil(const RedisResult& r) { return r.ok() && r.value.is_nil(); }
// A GET of a timestamp lock (del-setnx, getset): the holder's expiry, as Unix ms, has passed by now_unix_ms.
inline bool replied_timestamp_passed(const RedisResult& r, int64_t now_unix_ms) {
  if (!r.ok() || r.value.type != Reply::Type::Bulk) return false;
  int64_t held_until = 0;
  try {
    held_until = std::stoll(r.value.str);
  } catch (...) {
    return false;
  }
  return held_until < now_unix_ms;
}

}  // namespace locksim::lock
