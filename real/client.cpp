#include "locksim/real/client.hpp"

#include <hiredis/adapters/libevent.h>
#include <hiredis/async.h>

#include <utility>

#include "locksim/real/run.hpp"
#include "locksim/real/sync_client.hpp"

namespace locksim::real {

using lock::CallFault;
using lock::RedisResult;
using lock::Step;
using sim::CallStatus;
using sim::TraceKind;

namespace {

// Suspends until the op completes; the loop resumes it (RealClient::complete).
// If the coroutine frame dies first (a crash), the op forgets the handle.
struct OpAwaiter {
  OpAwaiter(std::shared_ptr<RealClient::Op> o, std::function<void()> s) : op(std::move(o)), start(std::move(s)) {}
  OpAwaiter(const OpAwaiter&) = delete;
  OpAwaiter& operator=(const OpAwaiter&) = delete;
  std::shared_ptr<RealClient::Op> op;
  std::function<void()> start;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    op->handle = h;
    start();
  }
  RedisResult await_resume() { return std::exchange(op, nullptr)->result; }
  ~OpAwaiter() {
    if (op) op->handle = {};
  }
};

}  // namespace

// One command's reply on its way back (hiredis's private data for the callback).
struct RealClient::Reply {
  RealClient* client;
  std::shared_ptr<Op> op;
  uint32_t node;
  uint64_t serial, call;
  lock::Command command;
  lock::Purpose purpose;
  bool lose_reply = false;
};

RealClient::RealClient(RealRun& run, uint32_t index)
    : run_(run),
      index_(index),
      name_(lock::client_name(index)),
      schedule_(run.config().seed,
                index < run.config().workload.identities.size() ? run.config().workload.identities[index] : index,
                index, run.config().workload) {
  const lock::WorkloadParams& wl = run.config().workload;
  const sim::Duration offset = index < wl.clock_offsets.size() ? wl.clock_offsets[index] : sim::Duration{};
  const int64_t drift = index < wl.drifts_ppm.size() ? wl.drifts_ppm[index] : 0;
  clock_ = sim::LocalClock(offset, drift);
  const uint32_t identity = index < wl.identities.size() ? wl.identities[index] : index;
  // The simulator's stream for this client's node: the same tokens (timings come from schedule_).
  rng_ = sim::Rng(run.config().seed).stream(sim::stable_hash("node:" + lock::client_name(identity)));
  connections_.resize(run.deployment().nodes());
}

RealClient::~RealClient() {
  auto dying = std::move(tasks_);
  dying.clear();
  drop_connections();
}

uint32_t RealClient::redis_servers() const { return run_.config().masters; }

// The wall clock as the lock reads it (record's own reading is not the lock's).
sim::Instant RealClient::local_now(lock::ClockUse) const {
  wall_reads_.read(run_.loop().now());
  return clock_.local(run_.loop().now());
}
// The loop's steady_clock at this client's rate: its jumps (clock_'s) do not move it.
sim::Instant RealClient::monotonic_now(lock::ClockUse) const { return clock_.monotonic(run_.loop().now()); }

// By reference: the callers' locals outlive the await, and no temporary enters the co_await.
lock::Task<RedisResult> RealClient::await_op(const std::shared_ptr<Op>& op, const std::function<void()>& start) {
  OpAwaiter awaiter(op, start);  // a local: GCC 12 double-destroys braced temporaries here
  RedisResult r = co_await awaiter;
  co_return r;
}

lock::Task<RedisResult> RealClient::redis_on(uint32_t server, lock::Command command, lock::Purpose purpose) {
  const uint32_t n = ++life_.calls;
  sim::Loss loss = sim::Loss::None;
  for (const CallFault& f : run_.config().workload.call_faults) {
    if (f.client != index_ || f.call != n || f.on != CallFault::On::Call) continue;
    if (f.kind == CallFault::Kind::Delay) continue;  // refused before the run (not_reproducible)
    if (f.loses_message()) {
      const bool reply = f.kind == CallFault::Kind::ReplyLost;
      if (loss == sim::Loss::None) record(lock::Step::CallLost, n, reply ? 1 : 0, purpose);
      loss = reply ? sim::Loss::Reply : sim::Loss::Request;
      continue;
    }
    if (f.kind == CallFault::Kind::Crash) {
      run_.loop().after(sim::Duration{}, [this] { crash(); });
      auto forever = std::make_shared<Op>();
      std::function<void()> nothing = [] {};
      RedisResult never = co_await await_op(forever, nothing);  // the crash destroys this frame
      co_return never;
    }
    pause(f.pause);
    co_await sleep(sim::Duration{});  // resumes when the pause ends
  }
  const uint32_t node = run_.deployment().serving(server < redis_servers() ? server : 0);
  auto op = std::make_shared<Op>();
  // Locals, not temporaries, in a co_await: GCC 12 destroys such temporaries twice.
  std::function<void()> start = [this, node, &command, purpose, op, loss] { send(node, command, purpose, op, loss); };
  RedisResult r = co_await await_op(op, start);
  co_return r;
}

lock::Task<void> RealClient::sleep(sim::Duration span) {
  auto op = std::make_shared<Op>();
  const sim::Duration real_span = clock_.true_span(span);
  std::function<void()> start = [this, op, real_span] {
    op->timer = run_.loop().after(real_span, [this, op] { complete(op, RedisResult{CallStatus::Ok, {}}); });
  };
  RedisResult r = co_await await_op(op, start);
  (void)r;
}

std::string RealClient::describe(const lock::Command& command) const {
  std::string s;
  for (const auto& arg : command) {
    if (!s.empty()) s += ' ';
    s += arg.size() > 40 ? arg.substr(0, 37) + "..." : arg;  // Lua bodies are long
  }
  return s;
}

void RealClient::send(uint32_t node, const lock::Command& command, lock::Purpose purpose,
                      const std::shared_ptr<Op>& op, sim::Loss loss) {
  Connection* conn = connection(node);
  const uint64_t call = ++calls_sent_;
  const uint64_t serial = conn ? conn->serial : 0;
  sim::Trace& trace = run_.trace();
  const sim::NodeId me = run_.client_node(index_);
  trace.add(run_.loop().now(), me, TraceKind::CallSent, static_cast<int64_t>(serial), static_cast<int64_t>(call),
            describe(command));
  op->timer = run_.loop().after(clock_.true_span(run_.config().lock.call_timeout), [this, op, serial, call, me] {
    run_.trace().add(run_.loop().now(), me, TraceKind::CallTimedOut, static_cast<int64_t>(serial),
                     static_cast<int64_t>(call));
    complete(op, RedisResult{CallStatus::TimedOut, {}});
  });
  if (loss == sim::Loss::Request) {  // never sent: the timer above answers it
    trace.add(run_.loop().now(), me, TraceKind::MessageDropped, static_cast<int64_t>(sim::DropReason::RequestLost),
              static_cast<int64_t>(call));
    return;
  }
  std::vector<const char*> argv;
  std::vector<size_t> lengths;
  for (const auto& arg : command) {
    argv.push_back(arg.data());
    lengths.push_back(arg.size());
  }
  auto* reply = new Reply{this, op, node, serial, call, command, purpose, loss == sim::Loss::Reply};
  if (!conn || redisAsyncCommandArgv(conn->context, &RealClient::on_reply, reply, static_cast<int>(argv.size()),
                                     argv.data(), lengths.data()) != REDIS_OK) {
    delete reply;
    trace.add(run_.loop().now(), me, TraceKind::ConnectionLost, static_cast<int64_t>(serial),
              static_cast<int64_t>(call));
    complete(op, RedisResult{CallStatus::ConnectionLost, {}});
  }
}

void RealClient::on_reply(redisAsyncContext*, void* raw, void* data) {
  std::unique_ptr<Reply> r(static_cast<Reply*>(data));
  RealClient& self = *r->client;
  sim::Trace& trace = self.run_.trace();
  const sim::Instant now = self.run_.loop().now();
  if (!raw) {
    if (r->op->completed) return;
    trace.add(now, self.run_.client_node(self.index_), TraceKind::ConnectionLost, static_cast<int64_t>(r->serial),
              static_cast<int64_t>(r->call));
    self.complete(r->op, RedisResult{CallStatus::ConnectionLost, {}});
    return;
  }
  redis::Reply value = from_hiredis(static_cast<redisReply*>(raw));
  // Its effects on the keys go to the history before the client sees the reply (see shadow.hpp).
  self.run_.shadow(r->node).replay(r->command, self.index_, r->purpose, now);
  // The command ran (even if its caller stopped waiting): the server's side of the trace.
  trace.add(now, self.run_.server_node(r->node), TraceKind::CallExecuted, static_cast<int64_t>(r->serial),
            static_cast<int64_t>(r->call), "-> " + redis::to_string(value));
  if (r->lose_reply) {  // it ran; its caller never hears so and times out
    trace.add(now, self.run_.client_node(self.index_), TraceKind::MessageDropped,
              static_cast<int64_t>(sim::DropReason::ReplyLost), static_cast<int64_t>(r->call));
    return;
  }
  self.complete(r->op, RedisResult{CallStatus::Ok, std::move(value)});
}

RealClient::Connection* RealClient::connection(uint32_t node) {
  std::unique_ptr<Connection>& slot = connections_[node];
  if (slot && slot->context) return slot.get();
  if (!slot) slot = std::make_unique<Connection>();
  slot->client = this;
  slot->node = node;
  slot->serial = (static_cast<uint64_t>(index_ + 1) << 32) | ++connections_made_;
  const std::string& path = run_.deployment().link(node, index_).address().unix_path;
  redisAsyncContext* ac = redisAsyncConnectUnix(path.c_str());
  if (!ac) return nullptr;
  if (ac->err) {
    redisAsyncFree(ac);
    return nullptr;
  }
  ac->data = slot.get();
  redisLibeventAttach(ac, run_.loop().base());
  redisAsyncSetDisconnectCallback(ac, &RealClient::on_disconnect);
  slot->context = ac;
  return slot.get();
}

void RealClient::on_disconnect(const redisAsyncContext* ac, int) {
  auto* slot = static_cast<Connection*>(ac->data);
  if (!slot) return;
  slot->context = nullptr;  // hiredis frees the context
  slot->client->run_.shadow(slot->node).disconnect(slot->client->index_);
}

void RealClient::drop_connections() {
  for (auto& slot : connections_) {
    if (!slot || !slot->context) continue;
    redisAsyncContext* ac = std::exchange(slot->context, nullptr);
    ac->data = nullptr;
    redisAsyncFree(ac);  // pending callbacks get no reply: their ops report a lost connection
    run_.shadow(slot->node).disconnect(index_);
  }
}

void RealClient::complete(const std::shared_ptr<Op>& op, RedisResult result) {
  if (op->completed) return;
  op->completed = true;
  op->result = std::move(result);
  if (op->timer) run_.loop().cancel(op->timer);
  post([op] {
    if (auto h = std::exchange(op->handle, {})) h.resume();
  });
}

void RealClient::post(std::function<void()> fn) {
  ready_.emplace_back(incarnation_, std::move(fn));
  if (draining_scheduled_) return;
  draining_scheduled_ = true;
  run_.loop().after(sim::Duration{}, [this] { drain(); });
}

// Runs what is ready, in order, outside any task; a pause holds it back, a crash forgets it.
void RealClient::drain() {
  draining_scheduled_ = false;
  auto batch = std::move(ready_);
  ready_.clear();
  for (auto& [incarnation, fn] : batch) {
    if (incarnation != incarnation_) continue;
    if (paused_) {
      deferred_.push_back(std::move(fn));
      continue;
    }
    fn();
    reap();
  }
}

void RealClient::reap() {
  for (lock::TaskId id : doomed_) tasks_.erase(id);
  doomed_.clear();
  bool main_done = false;
  for (auto it = tasks_.begin(); it != tasks_.end();) {
    if (!it->second.done()) {
      ++it;
      continue;
    }
    try {
      it->second.result();
    } catch (const std::exception& e) {
      run_.fail(name_ + ": " + e.what());
    }
    main_done = main_done || it->first == main_;
    it = tasks_.erase(it);
  }
  if (main_done) {
    finished_ = true;
    run_.client_settled();
  }
}

lock::TaskId RealClient::spawn(lock::Task<void> task) {
  const lock::TaskId id = next_task_++;
  tasks_.emplace(id, std::move(task));
  post([this, id] {
    auto it = tasks_.find(id);
    if (it != tasks_.end() && !doomed_.count(id)) it->second.handle().resume();
  });
  return id;
}

void RealClient::cancel(lock::TaskId task) { doomed_.insert(task); }

// Real clients' clocks are the loop's (faults skew them by an offset): the span left is true time.
void RealClient::hold_until(sim::Instant local_deadline) {
  const sim::Instant now = run_.loop().now();
  run_.history().ledger().client_deadline(index_, now + (local_deadline - clock_.local(now)));
}

const lock::Ledger* RealClient::ledger() const { return &run_.history().ledger(); }

void RealClient::record(Step step, int64_t first, int64_t second) { record(step, first, second, lock::Purpose::Other); }

void RealClient::record(Step step, int64_t first, int64_t second, lock::Purpose purpose) {
  lock::HistoryEvent e;
  e.at = run_.loop().now();
  e.local = clock_.local(e.at);
  e.client = index_;
  e.step = step;
  e.purpose = purpose;
  lock::set_step_details(e, first, second);
  wall_reads_.stepped(e);
  run_.trace().add(e.at, run_.client_node(index_), TraceKind::Note, static_cast<int64_t>(step), first,
                   lock::History::describe(e, name_));
  run_.history().add(std::move(e));
  run_.history().client_stepped(run_.history().events().back());
}

void RealClient::start() { main_ = spawn(main_task()); }

void RealClient::crash() {
  if (crashed_) return;
  crashed_ = true;
  ++incarnation_;
  paused_ = false;
  deferred_.clear();
  if (pause_timer_) run_.loop().cancel(std::exchange(pause_timer_, 0));
  auto dying = std::move(tasks_);
  tasks_.clear();
  dying.clear();  // destroys every frame: their pending ops forget them
  doomed_.clear();
  drop_connections();
  record(Step::Crashed);
  run_.trace().add(run_.loop().now(), run_.client_node(index_), TraceKind::Crash);
  run_.client_settled();
}

void RealClient::restart() {
  crash();  // a restart of a running client crashes it first, as in the simulator
  crashed_ = false;
  finished_ = false;
  run_.trace().add(run_.loop().now(), run_.client_node(index_), TraceKind::Restart, static_cast<int64_t>(incarnation_));
  record(Step::Restarted);
  start();
}

void RealClient::pause(sim::Duration span) {
  if (crashed_) return;
  const sim::Instant end = run_.loop().now() + span;
  run_.trace().add(run_.loop().now(), run_.client_node(index_), TraceKind::Pause, span.ns);
  if (!paused_) record(Step::Paused);
  if (paused_ && end <= pause_end_) return;
  paused_ = true;
  pause_end_ = end;
  if (pause_timer_) run_.loop().cancel(pause_timer_);
  pause_timer_ = run_.loop().at(end, [this] {
    pause_timer_ = 0;
    end_pause();
  });
}

void RealClient::end_pause() {
  paused_ = false;
  run_.trace().add(run_.loop().now(), run_.client_node(index_), TraceKind::Resume);
  record(Step::Resumed);
  for (auto& fn : std::exchange(deferred_, {})) post(std::move(fn));
}

void RealClient::jump_clock(sim::Duration by) {
  clock_.add_jump(run_.loop().now(), by);
  run_.trace().add(run_.loop().now(), run_.client_node(index_), TraceKind::ClockJump, by.ns);
}

}  // namespace locksim::real
