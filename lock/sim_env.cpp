#include "locksim/lock/sim_env.hpp"

#include <fmt/format.h>

#include "locksim/base/assert.hpp"

namespace locksim::lock {

SimEnv::SimEnv(sim::Proc proc, RedisNode::Channel& redis, uint32_t client, ClientLife& life, History& history,
               Duration call_timeout, const std::vector<CallFault>& call_faults)
    : SimEnv(
          proc, [&redis](uint32_t) -> RedisNode::Channel& { return redis; }, 1, client, life, history, call_timeout,
          call_faults) {}

SimEnv::SimEnv(sim::Proc proc, Route route, uint32_t servers, uint32_t client, ClientLife& life, History& history,
               Duration call_timeout, const std::vector<CallFault>& call_faults)
    : proc_(proc),
      route_(std::move(route)),
      servers_(servers),
      client_(client),
      life_(life),
      history_(history),
      call_timeout_(call_timeout),
      call_faults_(call_faults) {}

// The faults aimed at this client's Nth command (Redis or database), just before it.
bool SimEnv::next_call_has_faults() {
  const uint32_t n = ++life_.calls;
  for (const CallFault& f : call_faults_)
    if (f.client == client_ && f.call == n && f.on == CallFault::On::Call) return true;
  return false;
}

Task<void> SimEnv::apply_call_faults() {
  const uint32_t n = life_.calls;
  for (const CallFault& f : call_faults_) {
    if (f.client != client_ || f.call != n || f.on != CallFault::On::Call) continue;
    if (f.loses_message() || f.kind == CallFault::Kind::Delay) continue;  // in the network, not the client
    // A crash destroys the node's other tasks at once — possibly the one that
    // owns this Env, if the renewal task is the one calling — and this task
    // when it next suspends. So after it, only locals are touched.
    const sim::Proc proc = proc_;
    if (f.kind == CallFault::Kind::Crash) {
      proc.world().crash(proc.id());
      co_await proc.sleep(Duration::zero());  // never resumes
    }
    proc.world().pause(proc.id(), f.pause);
    co_await proc.sleep(Duration::zero());  // resumes when the pause ends
  }
}

sim::Loss SimEnv::lost_message(uint32_t n, Purpose purpose) {
  for (const CallFault& f : call_faults_) {
    if (f.client != client_ || f.call != n || f.on != CallFault::On::Call || !f.loses_message()) continue;
    const bool reply = f.kind == CallFault::Kind::ReplyLost;
    record_event(Step::CallLost, n, reply ? 1 : 0, {}, purpose);
    return reply ? sim::Loss::Reply : sim::Loss::Request;
  }
  return sim::Loss::None;
}

Duration SimEnv::delayed_by(uint32_t n, CallFault::On on, Purpose purpose) {
  Duration held{};
  for (const CallFault& f : call_faults_)
    if (f.client == client_ && f.call == n && f.on == on && f.kind == CallFault::Kind::Delay) held += f.pause;
  if (held.ns > 0) record_event(Step::CallDelayed, n, held.ns, {}, purpose);
  return held;
}

sim::CallFate SimEnv::next_write_fate() {
  const uint32_t n = ++life_.writes;
  for (const CallFault& f : call_faults_)
    LOCKSIM_ASSERT(f.on == CallFault::On::Call || f.kind == CallFault::Kind::Delay,
                   "only a delay is aimed at a write to the resource");
  return sim::CallFate{sim::Loss::None, delayed_by(n, CallFault::On::Write, Purpose::Resource)};
}

// These four are plain functions handing over call()'s task: a coroutine of their
// own would cost every request one more frame.
Task<RedisResult> SimEnv::redis_on(uint32_t server, Command command, Purpose purpose) {
  LOCKSIM_ASSERT(server < servers_, fmt::format("Redis server {} of a deployment of {}", server, servers_));
  return call(route_, server, RedisRequest{std::move(command), client_, purpose}, call_timeout_);
}

Task<RedisResult> SimEnv::redis_blocking(uint32_t server, Command command, Purpose purpose, Duration block) {
  LOCKSIM_ASSERT(server < servers_, fmt::format("Redis server {} of a deployment of {}", server, servers_));
  return call(route_, server, RedisRequest{std::move(command), client_, purpose}, block + call_timeout_);
}

Task<RedisResult> SimEnv::subscriber(uint32_t server, Command command, Purpose purpose) {
  LOCKSIM_ASSERT(server < servers_ && subscriber_route_, fmt::format("no subscriber connection to server {}", server));
  return call(subscriber_route_, server, RedisRequest{std::move(command), client_, purpose}, call_timeout_);
}

// A read: the server answers it when a pushed reply is there, or with nil
// once `wait` has passed on its clock; the client gives up a call timeout later.
Task<RedisResult> SimEnv::next_pushed(uint32_t server, Duration wait) {
  LOCKSIM_ASSERT(server < servers_ && subscriber_route_, fmt::format("no subscriber connection to server {}", server));
  return call(subscriber_route_, server, RedisRequest{{}, client_, Purpose::Other, true, wait}, wait + call_timeout_);
}

// Every call to Redis: the faults aimed at it first, then the request.
// The route is asked after them: a replica may have been promoted during a pause.
Task<RedisResult> SimEnv::call(const Route& route, uint32_t server, RedisRequest request, Duration timeout) {
  // Checked before a coroutine is made for them: almost no call has a fault, and a
  // frame per call was 7 % of a lock simulation's work.
  sim::CallFate fate{};
  if (next_call_has_faults()) {
    const uint32_t n = life_.calls;
    co_await apply_call_faults();
    fate = sim::CallFate{lost_message(n, request.purpose), delayed_by(n, CallFault::On::Call, request.purpose)};
  }
  RedisNode::Channel& channel = route(server);
  Touches& touches = history_.touches();
  const size_t call = touches.call_sent(client_, channel.server_node(), proc_.world().now());
  // The result stays in the awaiter and is moved once, into this task's (a reply is
  // moved at every hop: Channel::InPlace).
  RedisNode::Channel::Awaiter exchange = channel.call(std::move(request), timeout, fate);
  const RedisNode::Channel::InPlace until_answered{exchange};
  co_await until_answered;
  touches.call_ended(call, proc_.world().now(), exchange.result.spiked.ns > 0);
  co_return std::move(exchange.result);
}

Task<DbResult> SimEnv::db(db::Statement statement, Purpose purpose) {
  sim::CallFate fate{};
  if (next_call_has_faults()) {
    const uint32_t n = life_.calls;
    co_await apply_call_faults();
    fate = sim::CallFate{lost_message(n, purpose), delayed_by(n, CallFault::On::Call, purpose)};
  }
  if (!db_) co_return DbResult{sim::CallStatus::ConnectionLost, {}};
  DbRequest request{std::move(statement), client_, purpose};
  Touches& touches = history_.touches();
  const size_t call = touches.call_sent(client_, db_->server_node(), proc_.world().now());
  DbResult result = co_await db_->call(std::move(request), db_timeout_, fate);
  touches.call_ended(call, proc_.world().now(), result.spiked.ns > 0);
  co_return result;
}

Task<void> SimEnv::sleep(Duration span) { co_await proc_.sleep(span); }

namespace {
// The tasks of one run_parallel still running, and the task waiting for them.
struct Join {
  size_t pending = 0;
  sim::FiberId waiter = 0;
  std::coroutine_handle<> resume;
};

Task<void> joined_branch(Task<void> body, std::shared_ptr<Join> join, sim::World* world) {
  co_await std::move(body);
  // The last one wakes the waiter (in an event of its own, at this instant).
  if (--join->pending == 0 && join->resume && world->alive(join->waiter))
    world->resume_at(world->now(), join->waiter, join->resume);
}
}  // namespace

Task<void> SimEnv::run_parallel(std::vector<Task<void>> tasks) {
  auto join = std::make_shared<Join>();
  join->pending = tasks.size();
  sim::World* world = &proc_.world();
  for (Task<void>& task : tasks) proc_.spawn(joined_branch(std::move(task), join, world));
  // Raw pointers, and a named awaiter: GCC 12 destroys a braced temporary inside
  // co_await twice (lock/lock.hpp), which a shared_ptr in it would not survive.
  struct Awaiter {
    Join* join;
    sim::World* world;
    bool await_ready() const noexcept { return join->pending == 0; }
    void await_suspend(std::coroutine_handle<> h) const {
      join->waiter = world->current_fiber();
      join->resume = h;
    }
    void await_resume() const noexcept {}
  };
  const Awaiter all_done{join.get(), world};
  co_await all_done;
}

// The wall clock as the lock reads it (record_event's own reading is not the lock's).
Instant SimEnv::local_now(ClockUse use) const {
  wall_reads_.read(proc_.world().now());
  history_.touches().clock_read(client_, ClockKind::Wall, use, proc_.world().now());
  return proc_.local_now();
}

Instant SimEnv::monotonic_now(ClockUse use) const {
  history_.touches().clock_read(client_, ClockKind::Monotonic, use, proc_.world().now());
  return proc_.monotonic_now();
}

void SimEnv::record(Step step, int64_t first, int64_t second) { record_event(step, first, second, {}); }

// The monotonic clock runs at the node's rate: the span since the send, in true time.
void SimEnv::record_renewal(Step step, int64_t status, Instant sent_monotonic) {
  const Duration since = proc_.monotonic_now() - sent_monotonic;  // bookkeeping: not the lock's reading
  const Instant sent = proc_.world().now() - proc_.world().node(proc_.id()).clock.true_span(since);
  record_event(step, status, 0, {}, Purpose::Other, sent);
}

void SimEnv::hold_until(Instant local_deadline) {
  sim::World& w = proc_.world();
  const Duration left = local_deadline - proc_.local_now();
  const Duration span = left.ns > 0 ? w.node(proc_.id()).clock.true_span(left) : left;
  history_.ledger().client_deadline(client_, w.now() + span);
}

void SimEnv::record_text(Step step, std::string_view text) { record_event(step, 0, 0, text); }

void SimEnv::record_event(Step step, int64_t first, int64_t second, std::string_view text, Purpose purpose,
                          Instant sent) {
  sim::World& w = proc_.world();
  // Copied first: `text` may view an event that emplace() moves. Most steps have none.
  std::string owned_text;
  if (!text.empty()) owned_text.assign(text);
  HistoryEvent& e = history_.emplace();
  if (!owned_text.empty()) e.text = std::move(owned_text);
  e.at = w.now();
  e.local = proc_.local_now();
  e.client = client_;
  e.step = step;
  e.purpose = purpose;
  e.sent = sent;
  set_step_details(e, first, second);
  wall_reads_.stepped(e);
  history_.client_stepped(e);
  // Steps go into the trace too, so that its hash covers what the clients did.
  if (w.trace().recording())
    w.trace().add(e.at, proc_.id(), sim::TraceKind::Note, static_cast<int64_t>(step), first,
                  History::describe(e, proc_.name()));
  else
    w.trace().add(e.at, proc_.id(), sim::TraceKind::Note, static_cast<int64_t>(step), first);
}

}  // namespace locksim::lock
