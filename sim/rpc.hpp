#pragma once
// Request/response over a simulated connection, as a client library over TCP
// sees it. A Service is hosted on a server node and handles each request
// atomically on arrival; a Channel is one client connection to it.
//
//   auto r = co_await channel.call(request, 500_ms);
//   r.status: Ok, TimedOut or ConnectionLost — after the last two the caller
//   cannot know whether the request ran, exactly as with a real client.
//
// Each direction of a channel is FIFO whatever latencies are drawn (TCP):
// a message never arrives before one sent earlier. A cut loses what is in
// flight and what is sent during it; a reset loses what is in flight and fails
// pending calls with ConnectionLost. Requests already sent by a client that
// then crashes still reach the server and run; the server learns of the close
// after them. A reply reaching a crashed (or newer) incarnation is dropped and
// recorded as such.
//
// Deferred replies: a handler may answer later (a blocked SELECT ... FOR
// UPDATE, a blocking pop). It calls `service.defer()` for a DeferredId and
// returns `Answer<Resp>::later()`; some later event calls `service.answer(id,
// reply)`, and the reply leaves then, on the same FIFO link. A connection
// serves one request at a time, as a server thread or Redis's blocked client
// does: requests of that session arriving meanwhile wait, in order, and run
// right after the answer. A deferred call whose connection is reset or whose
// server crashes is never answered (answer() returns false); its client
// times out or sees ConnectionLost, as for any call. A client that crashes
// while waiting gets nothing: its close reaches the service at once (the
// host decides when the session ends) and a later answer is dropped at the
// dead client.
#include <algorithm>
#include <coroutine>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "locksim/base/assert.hpp"
#include "locksim/sim/world.hpp"

namespace locksim::sim {

enum class CallStatus : uint8_t { Ok, TimedOut, ConnectionLost };
inline std::string_view to_string(CallStatus s) {
  switch (s) {
    case CallStatus::Ok: return "ok";
    case CallStatus::TimedOut: return "timed out";
    case CallStatus::ConnectionLost: return "connection lost";
  }
  return "?";
}

template <class Resp>
struct CallResult {
  CallStatus status = CallStatus::TimedOut;
  Resp value{};
  // How much of its messages' flight the link's delay spikes added (LatencyDist): its
  // request's, and its reply's if that came, or was still on its way when the caller
  // gave up. Not a fault aimed at the call (CallFate), the network's own tail.
  Duration spiked{};
  bool ok() const { return status == CallStatus::Ok; }
};

// A message of one call that the network loses (a fault aimed at that call): its
// request, so the server never runs it, or its reply, after the server ran it.
// Either way the caller hears nothing and times out; the connection goes on.
enum class Loss : uint8_t { None, Request, Reply };
// What a fault aimed at one call does to it in the network: lose a message, and/or hold
// its request in flight `delay` longer than the latency drawn for it. The drawn latency
// is still drawn (the link's stream stays as it was); the connection stays FIFO, so what
// the client sends later on it arrives after this request.
struct CallFate {
  Loss loss = Loss::None;
  Duration delay{};
};

// The server's name for one connection (one incarnation of a channel).
using SessionId = uint64_t;
// How the server learned a connection closed: the client's process died (its
// kernel closed the socket after what it had sent), or the connection was reset.
enum class CloseReason : uint8_t { ClientGone, Reset };
// A call whose handler chose to answer later (Service::defer).
using DeferredId = uint64_t;

// What a handler gives back: the reply now, or later() after Service::defer().
template <class Resp>
struct Answer {
  // NOLINTBEGIN: a plain reply is an answer now. Two overloads, not one by value: a
  // reply is moved once into the answer, not twice (replies are most of a call's moves).
  Answer(Resp&& reply) : now(std::move(reply)) {}
  Answer(const Resp& reply) : now(reply) {}
  // NOLINTEND
  static Answer later() {
    Answer a{Resp{}};
    a.deferred = true;
    return a;
  }
  // The reply `make()` returns, made in the answer itself (not made, then moved in):
  // a handler that looks at its reply before it answers keeps it here (one move less).
  template <class Make>
  static Answer made(Make&& make) {
    return Answer(Making{}, make);
  }
  // Turns an answer made now into a deferred one (its reply is dropped).
  void defer() {
    now = Resp{};
    deferred = true;
  }
  Resp now;                // the reply, unless deferred
  bool deferred = false;  // later(): the handler called Service::defer()

 private:
  struct Making {};
  template <class Make>
  Answer(Making, Make& make) : now(make()) {}
};

template <class Req, class Resp>
class Channel;

template <class Req, class Resp>
class Service {
 public:
  // Runs atomically when a request arrives; `local_now` is the server's clock.
  // It returns the reply, or Answer::later() after calling defer().
  using Handler = std::function<Answer<Resp>(SessionId, Req&, Instant local_now)>;

  Service(World& w, NodeId server, Handler handler) : world_(w), server_(server), handler_(std::move(handler)) {}
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  // A new connection from `client`; it lives as long as the service.
  Channel<Req, Resp>& connect(NodeId client) {
    uint64_t ordinal = 0;
    for (const auto& c : channels_) ordinal += c->client_node() == client ? 1 : 0;
    channels_.push_back(std::make_unique<Channel<Req, Resp>>(*this, client, ordinal));
    return *channels_.back();
  }
  // Called when the server learns a connection closed (client gone, or reset).
  void on_disconnect(std::function<void(SessionId)> f) {
    on_close_ = [f = std::move(f)](SessionId s, CloseReason) { f(s); };
  }
  // The same, with how it closed: a host that notices a dead client late
  // (a database's keepalive) tells the two apart.
  void on_close(std::function<void(SessionId, CloseReason)> f) { on_close_ = std::move(f); }
  // Renders requests and replies into the trace (only when it records text).
  void describe(std::function<std::string(const Req&)> req, std::function<std::string(const Resp&)> resp) {
    describe_request_ = std::move(req);
    describe_response_ = std::move(resp);
  }

  World& world() const { return world_; }
  NodeId server() const { return server_; }

  // Inside a handler only: the call being handled will be answered later by
  // answer(id, ...); the handler then returns Answer<Resp>::later().
  DeferredId defer() {
    LOCKSIM_ASSERT(handling_ != nullptr && !handling_->deferred, "defer() outside a handler, or twice for one call");
    handling_->deferred = ++last_deferred_;
    deferred_.emplace(handling_->deferred, *handling_);
    return handling_->deferred;
  }
  // Sends the deferred call's reply now. False if it can no longer be
  // answered: its connection was reset or the server crashed since.
  bool answer(DeferredId id, Resp reply) {
    auto it = deferred_.find(id);
    if (it == deferred_.end()) return false;
    const Handling h = it->second;
    deferred_.erase(it);
    return h.channel->answer_deferred(h, std::move(reply));
  }
  // The host will never answer it (its session ended); false if unknown.
  bool abandon(DeferredId id) { return deferred_.erase(id) > 0; }
  // How many calls wait for an answer (for tests and invariants).
  size_t deferred_count() const { return deferred_.size(); }

 private:
  friend class Channel<Req, Resp>;
  // The call a handler is running (or a deferred one): enough to answer it later.
  struct Handling {
    Channel<Req, Resp>* channel;
    uint64_t call_id;
    SessionId session;
    uint64_t epoch;
    uint32_t client_incarnation;
    DeferredId deferred = 0;
    bool lose_reply = false;  // Loss::Reply: the reply is dropped as it leaves
  };
  // Runs the handler on one request; its answer: the reply, or none if it was deferred.
  // The answer itself is returned (not its optional moved out): one move less per reply.
  Answer<Resp> handle(const Handling& call, Req& request, Instant local_now) {
    Handling h = call;
    handling_ = &h;
    Answer<Resp> answer = handler_(call.session, request, local_now);
    handling_ = nullptr;
    LOCKSIM_ASSERT((h.deferred != 0) == answer.deferred, "a handler deferred without later(), or the reverse");
    return answer;
  }
  // A reset connection's deferred calls are never answered.
  void forget_deferred(const Channel<Req, Resp>* channel) {
    std::erase_if(deferred_, [&](const auto& kv) { return kv.second.channel == channel; });
  }
  SessionId new_session() { return ++last_session_; }
  void disconnected(SessionId s, CloseReason why) {
    if (on_close_) on_close_(s, why);
  }

  World& world_;
  NodeId server_;
  Handler handler_;
  std::function<void(SessionId, CloseReason)> on_close_;
  std::function<std::string(const Req&)> describe_request_;
  std::function<std::string(const Resp&)> describe_response_;
  SessionId last_session_ = 0;
  std::vector<std::unique_ptr<Channel<Req, Resp>>> channels_;
  Handling* handling_ = nullptr;
  DeferredId last_deferred_ = 0;
  std::map<DeferredId, Handling> deferred_;  // by id: the order they were deferred in
};

template <class Req, class Resp>
class Channel final : public ConnectionEvents {
 public:
  struct Awaiter {
    Channel* channel;
    Req request;
    Duration timeout;
    CallFate fate{};
    CallResult<Resp> result{};
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) { channel->start(this, h); }
    CallResult<Resp> await_resume() { return std::move(result); }
  };
  // Awaits a call whose awaiter the caller keeps (a named local): the result stays in
  // `call.result`, not moved out, for a caller that passes it on (one move of the reply less).
  struct InPlace {
    Awaiter& call;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) const { call.channel->start(&call, h); }
    void await_resume() const noexcept {}
  };

  // `ordinal`: how many channels this client already has to this service.
  Channel(Service<Req, Resp>& svc, NodeId client, uint64_t ordinal)
      : svc_(svc),
        world_(svc.world()),
        client_(client),
        server_(svc.server()),
        id_(svc.world().register_connection(this)),
        up_(Rng(world_.seed()).stream(link_key(ordinal, 0))),
        down_(Rng(world_.seed()).stream(link_key(ordinal, 1))) {}

  // Timeout is measured by the client's clock rate.
  // `loss`: lose this call's request or reply (a fault aimed at it).
  Awaiter call(Req request, Duration timeout, Loss loss = Loss::None) {
    return Awaiter{this, std::move(request), timeout, CallFate{loss, {}}};
  }
  // `fate`: what a fault aimed at this call does to it in the network (lose, delay).
  Awaiter call(Req request, Duration timeout, CallFate fate) {
    return Awaiter{this, std::move(request), timeout, fate};
  }

  uint64_t id() const { return id_; }
  NodeId client_node() const override { return client_; }
  NodeId server_node() const override { return server_; }
  size_t in_flight() const { return to_server_.size() + to_client_.size(); }

  void on_client_crash() override {
    // The callers died with their node: their timeouts would find nothing.
    for (const Pending& p : pending_) world_.cancel(p.timeout);
    pending_.clear();
    if (session_ != 0) {
      // The kernel closes the socket after the bytes already sent: the server
      // runs those first, then learns of the close.
      enqueue_to_server(
          ToServer{++next_call_, true, false, session_, epoch_, world_.network().cut_epoch(client_, server_), 0, Req{}});
      session_ = 0;
    }
  }

  void on_reset() override {
    ++epoch_;  // everything in flight, both ways, is lost
    svc_.forget_deferred(this);
    for (const ToServer& m : held_) dropped(server_, DropReason::ConnectionReset, m.call_id);
    held_.clear();
    busy_.clear();
    if (session_ != 0) svc_.disconnected(session_, CloseReason::Reset);
    session_ = 0;
    for (const Pending& p : pending_) world_.schedule(world_.now(), &Channel::lost_event, this, p.call_id, 0, client_);
  }

 private:
  friend class Service<Req, Resp>;
  struct Pending {
    uint64_t call_id;
    FiberId fiber;
    Awaiter* awaiter;
    std::coroutine_handle<> handle;
    EventTicket timeout{};  // cancelled once the call is over: most calls are answered in time
  };
  struct ToServer {
    uint64_t call_id;
    bool close;       // the client's process is gone: end the session after what precedes
    bool lose_reply;  // Loss::Reply: the server runs it, its reply never arrives
    SessionId session;
    uint64_t epoch, cut_epoch;
    uint32_t client_incarnation;
    Req request;
  };
  struct ToClient {
    uint64_t call_id;
    uint64_t epoch, cut_epoch;
    uint32_t client_incarnation;
    Resp reply;
    Duration spiked{};  // the spike drawn for its flight
  };

  void start(Awaiter* aw, std::coroutine_handle<> h) {
    const uint64_t call_id = ++next_call_;
    const FiberId fiber = world_.current_fiber();
    pending_.push_back(Pending{call_id, fiber, aw, h});
    Trace& trace = world_.trace();
    if (trace.recording() && svc_.describe_request_)
      trace.add(world_.now(), client_, TraceKind::CallSent, static_cast<int64_t>(id_), static_cast<int64_t>(call_id),
                svc_.describe_request_(aw->request));
    else
      trace.add(world_.now(), client_, TraceKind::CallSent, static_cast<int64_t>(id_), static_cast<int64_t>(call_id));
    const Duration timeout = world_.node(client_).clock.true_span(aw->timeout);
    pending_.back().timeout =
        world_.schedule(world_.now() + timeout, &Channel::timeout_event, this, call_id, 0, client_);
    if (!world_.is_up(server_)) {
      // Connection refused: the failure comes back after one trip.
      world_.schedule(world_.now() + latency().draw(up_, &aw->result.spiked), &Channel::lost_event, this, call_id, 0,
                      client_);
      return;
    }
    if (session_ == 0) session_ = svc_.new_session();
    if (aw->fate.loss == Loss::Request) return dropped(client_, DropReason::RequestLost, call_id);
    aw->result.spiked = enqueue_to_server(ToServer{call_id, false, aw->fate.loss == Loss::Reply, session_, epoch_,
                                                   world_.network().cut_epoch(client_, server_),
                                                   world_.node(client_).incarnation, std::move(aw->request)},
                                          aw->fate.delay);
  }

  const LatencyDist& latency() const { return world_.network().latency(client_, server_); }

  // A link's delays are drawn from a stream named by its two ends, not by the
  // order channels were made in, so other clients do not shift them.
  uint64_t link_key(uint64_t ordinal, uint64_t direction) const {
    uint64_t k = world_.node(client_).stream_key * 0x9e3779b97f4a7c15ULL ^ world_.node(server_).stream_key;
    return k + ordinal * 2 + direction;
  }

  // `held`: how much longer than its drawn latency the request stays in flight (a fault).
  // Returns the delay spike drawn for it (0: none, or it never left).
  Duration enqueue_to_server(ToServer m, Duration held = {}) {
    if (world_.network().is_cut(client_, server_)) {
      world_.trace().add(world_.now(), client_, TraceKind::MessageDropped, static_cast<int64_t>(DropReason::Cut),
                         static_cast<int64_t>(m.call_id));
      return {};
    }
    Duration spiked{};
    Instant arrival = std::max(world_.now() + latency().draw(up_, &spiked) + held, last_up_);
    last_up_ = arrival;
    const uint64_t call_id = m.call_id;
    to_server_.push_back(std::move(m));
    world_.schedule(arrival, &Channel::request_event, this, call_id, 0, server_);
    return spiked;
  }

  // The message an arrival event stands for: it is in flight until it arrives, exactly once.
  template <class Queue>
  static auto find_in_flight(Queue& q, uint64_t call_id) {
    auto it = std::find_if(q.begin(), q.end(), [&](const auto& m) { return m.call_id == call_id; });
    LOCKSIM_ASSERT(it != q.end(), fmt::format("a message arrives for call #{}, which has none in flight", call_id));
    return it;
  }
  template <class Queue>
  static auto take(Queue& q, uint64_t call_id) {
    auto it = find_in_flight(q, call_id);
    auto m = std::move(*it);
    q.erase(it);
    return m;
  }

  void dropped(NodeId at, DropReason why, uint64_t call_id) {
    world_.trace().add(world_.now(), at, TraceKind::MessageDropped, static_cast<int64_t>(why),
                       static_cast<int64_t>(call_id));
  }

  static void request_event(World& w, const Event& e) {
    auto* self = static_cast<Channel*>(e.obj);
    ToServer m = take(self->to_server_, e.id);
    if (!w.live(e)) return self->dropped(self->server_, DropReason::ReceiverCrashed, m.call_id);
    if (!w.network().passes(self->client_, self->server_, m.cut_epoch))
      return self->dropped(self->server_, DropReason::Cut, m.call_id);
    if (m.close) {
      w.trace().add(w.now(), self->server_, TraceKind::ConnectionClosed, static_cast<int64_t>(self->id_));
      self->drop_held(m.session);
      return self->svc_.disconnected(m.session, CloseReason::ClientGone);
    }
    if (m.epoch != self->epoch_) return self->dropped(self->server_, DropReason::ConnectionReset, m.call_id);
    // One request at a time per connection: behind a deferred call, it waits.
    if (self->busy_.count(m.session)) return self->held_.push_back(std::move(m));
    self->serve(m);
  }

  // Runs the request now; replies, or leaves the session busy until answered.
  void serve(ToServer& m) {
    typename Service<Req, Resp>::Handling h{this, m.call_id, m.session, m.epoch, m.client_incarnation};
    h.lose_reply = m.lose_reply;
    Answer<Resp> answer = svc_.handle(h, m.request, world_.local_now(server_));
    if (!answer.deferred) return send_reply(h, std::move(answer.now));
    busy_.insert(m.session);
    world_.trace().add(world_.now(), server_, TraceKind::CallDeferred, static_cast<int64_t>(id_),
                       static_cast<int64_t>(m.call_id));
  }

  void send_reply(const typename Service<Req, Resp>::Handling& h, Resp&& reply) {
    Trace& trace = world_.trace();
    if (trace.recording() && svc_.describe_response_)
      trace.add(world_.now(), server_, TraceKind::CallExecuted, static_cast<int64_t>(id_),
                static_cast<int64_t>(h.call_id), "-> " + svc_.describe_response_(reply));
    else
      trace.add(world_.now(), server_, TraceKind::CallExecuted, static_cast<int64_t>(id_),
                static_cast<int64_t>(h.call_id));
    if (world_.network().is_cut(client_, server_)) return dropped(server_, DropReason::Cut, h.call_id);
    if (h.lose_reply) return dropped(client_, DropReason::ReplyLost, h.call_id);
    Duration spiked{};
    Instant arrival = std::max(world_.now() + latency().draw(down_, &spiked), last_down_);
    last_down_ = arrival;
    // Filled in place: a braced temporary pushed would move the reply twice. (And no
    // emplace_back(a, b, ...): clang, the fuzz build, has no parenthesised aggregate init.)
    ToClient& m = to_client_.emplace_back();
    m.call_id = h.call_id;
    m.epoch = h.epoch;
    m.cut_epoch = world_.network().cut_epoch(client_, server_);
    m.client_incarnation = h.client_incarnation;
    m.reply = std::move(reply);
    m.spiked = spiked;
    world_.schedule(arrival, &Channel::reply_event, this, h.call_id, h.client_incarnation, client_);
  }

  bool answer_deferred(const typename Service<Req, Resp>::Handling& h, Resp reply) {
    busy_.erase(h.session);
    LOCKSIM_ASSERT(h.epoch == epoch_ && world_.is_up(server_), "a deferred call outlived its connection");
    send_reply(h, std::move(reply));
    // The requests that queued behind it run now, in order, until one defers again.
    while (!busy_.count(h.session)) {
      auto it = std::find_if(held_.begin(), held_.end(), [&](const ToServer& m) { return m.session == h.session; });
      if (it == held_.end()) break;
      ToServer m = std::move(*it);
      held_.erase(it);
      serve(m);
    }
    return true;
  }

  // The session ended: what waited behind its deferred call never runs.
  void drop_held(SessionId session) {
    busy_.erase(session);
    for (auto it = held_.begin(); it != held_.end();) {
      if (it->session != session) {
        ++it;
        continue;
      }
      dropped(server_, DropReason::CallerGone, it->call_id);
      it = held_.erase(it);
    }
  }

  // The reply goes from the queue straight into its caller's awaiter: a reply is
  // moved once here, not out to a local first (replies are most of a call's moves).
  static void reply_event(World& w, const Event& e) {
    auto* self = static_cast<Channel*>(e.obj);
    auto in_flight = self->find_in_flight(self->to_client_, e.id);
    const ToClient& m = *in_flight;
    const uint64_t call_id = m.call_id;
    std::optional<DropReason> drop;
    const Node& client = w.node(self->client_);
    if (client.state == NodeState::Crashed || client.incarnation != m.client_incarnation)
      drop = DropReason::ReceiverCrashed;
    else if (!w.network().passes(self->client_, self->server_, m.cut_epoch))
      drop = DropReason::Cut;
    else if (m.epoch != self->epoch_)
      drop = DropReason::ConnectionReset;
    std::optional<Pending> p;
    if (!drop) {
      p = self->find_pending(call_id);
      if (!p) drop = DropReason::CallerGone;
    }
    if (drop) {
      self->to_client_.erase(in_flight);
      return self->dropped(self->client_, *drop, call_id);
    }
    w.trace().add(w.now(), self->client_, TraceKind::ReplyReceived, static_cast<int64_t>(self->id_),
                  static_cast<int64_t>(call_id));
    p->awaiter->result.status = CallStatus::Ok;
    p->awaiter->result.value = std::move(in_flight->reply);
    p->awaiter->result.spiked += in_flight->spiked;
    self->to_client_.erase(in_flight);  // before the caller runs: it may send (and queue) more
    self->complete(*p);
  }

  static void timeout_event(World& w, const Event& e) {
    auto* self = static_cast<Channel*>(e.obj);
    if (!w.live(e)) return;
    auto p = self->find_pending(e.id);
    if (!p) return;  // answered in time
    w.trace().add(w.now(), self->client_, TraceKind::CallTimedOut, static_cast<int64_t>(self->id_),
                  static_cast<int64_t>(e.id));
    // What the request's flight was spiked by stays; a reply still on its way, spiked, is late by it.
    CallResult<Resp>& result = p->awaiter->result;
    result.status = CallStatus::TimedOut;
    result.value = Resp{};
    for (const ToClient& m : self->to_client_)
      if (m.call_id == e.id) result.spiked += m.spiked;
    self->complete(*p);
  }

  static void lost_event(World& w, const Event& e) {
    auto* self = static_cast<Channel*>(e.obj);
    if (!w.live(e)) return;
    auto p = self->find_pending(e.id);
    if (!p) return;
    w.trace().add(w.now(), self->client_, TraceKind::ConnectionLost, static_cast<int64_t>(self->id_),
                  static_cast<int64_t>(e.id));
    p->awaiter->result.status = CallStatus::ConnectionLost;
    p->awaiter->result.value = Resp{};
    self->complete(*p);
  }

  // The pending call, removed from the list (its timeout cancelled: the call is over
  // either way); empty if it is gone or its task died.
  std::optional<Pending> find_pending(uint64_t call_id) {
    LOCKSIM_ASSERT(call_id != 0 && call_id <= next_call_, fmt::format("call #{} was never made", call_id));
    auto it = std::find_if(pending_.begin(), pending_.end(), [&](const Pending& p) { return p.call_id == call_id; });
    if (it == pending_.end()) return std::nullopt;
    Pending p = *it;
    pending_.erase(it);
    world_.cancel(p.timeout);
    if (!world_.alive(p.fiber)) return std::nullopt;
    return p;
  }

  void complete(const Pending& p) { world_.resume_now(p.fiber, p.handle); }

  Service<Req, Resp>& svc_;
  World& world_;
  NodeId client_, server_;
  uint64_t id_;
  Rng up_, down_;
  uint64_t epoch_ = 0;
  SessionId session_ = 0;
  uint64_t next_call_ = 0;
  Instant last_up_{}, last_down_{};
  // In flight, in sending order: a few at most, so vectors (nothing allocated until
  // the first message; a deque takes 576 bytes as it is made, per queue per channel).
  std::vector<ToServer> to_server_;
  std::vector<ToClient> to_client_;
  std::vector<Pending> pending_;
  std::set<SessionId> busy_;   // sessions with a deferred call unanswered
  std::vector<ToServer> held_;  // their later requests, in arrival order
};

}  // namespace locksim::sim
