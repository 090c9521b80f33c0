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
#include <algorithm>
#include <coroutine>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
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
  bool ok() const { return status == CallStatus::Ok; }
};

// The server's name for one connection (one incarnation of a channel).
using SessionId = uint64_t;

template <class Req, class Resp>
class Channel;

template <class Req, class Resp>
class Service {
 public:
  // Runs atomically when a request arrives; `local_now` is the server's clock.
  using Handler = std::function<Resp(SessionId, Req&, Instant local_now)>;

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
  void on_disconnect(std::function<void(SessionId)> f) { on_disconnect_ = std::move(f); }
  // Renders requests and replies into the trace (only when it records text).
  void describe(std::function<std::string(const Req&)> req, std::function<std::string(const Resp&)> resp) {
    describe_request_ = std::move(req);
    describe_response_ = std::move(resp);
  }

  World& world() const { return world_; }
  NodeId server() const { return server_; }

 private:
  friend class Channel<Req, Resp>;
  SessionId new_session() { return ++last_session_; }
  void disconnected(SessionId s) {
    if (on_disconnect_) on_disconnect_(s);
  }

  World& world_;
  NodeId server_;
  Handler handler_;
  std::function<void(SessionId)> on_disconnect_;
  std::function<std::string(const Req&)> describe_request_;
  std::function<std::string(const Resp&)> describe_response_;
  SessionId last_session_ = 0;
  std::vector<std::unique_ptr<Channel<Req, Resp>>> channels_;
};

template <class Req, class Resp>
class Channel final : public ConnectionEvents {
 public:
  struct Awaiter {
    Channel* channel;
    Req request;
    Duration timeout;
    CallResult<Resp> result{};
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) { channel->start(this, h); }
    CallResult<Resp> await_resume() { return std::move(result); }
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
  Awaiter call(Req request, Duration timeout) { return Awaiter{this, std::move(request), timeout}; }

  uint64_t id() const { return id_; }
  NodeId client_node() const override { return client_; }
  NodeId server_node() const override { return server_; }
  size_t in_flight() const { return to_server_.size() + to_client_.size(); }

  void on_client_crash() override {
    pending_.clear();  // the callers died with their node
    if (session_ != 0) {
      // The kernel closes the socket after the bytes already sent: the server
      // runs those first, then learns of the close.
      enqueue_to_server(
          ToServer{++next_call_, true, session_, epoch_, world_.network().cut_epoch(client_, server_), 0, Req{}});
      session_ = 0;
    }
  }

  void on_reset() override {
    ++epoch_;  // everything in flight, both ways, is lost
    if (session_ != 0) svc_.disconnected(session_);
    session_ = 0;
    for (const Pending& p : pending_) world_.schedule(world_.now(), &Channel::lost_event, this, p.call_id, 0, client_);
  }

 private:
  struct Pending {
    uint64_t call_id;
    FiberId fiber;
    Awaiter* awaiter;
    std::coroutine_handle<> handle;
  };
  struct ToServer {
    uint64_t call_id;
    bool close;  // the client's process is gone: end the session after what precedes
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
  };

  void start(Awaiter* aw, std::coroutine_handle<> h) {
    const uint64_t call_id = ++next_call_;
    const FiberId fiber = world_.current_fiber();
    pending_.push_back(Pending{call_id, fiber, aw, h});
    Trace& trace = world_.trace();
    trace.add(world_.now(), client_, TraceKind::CallSent, static_cast<int64_t>(id_), static_cast<int64_t>(call_id),
              trace.recording() && svc_.describe_request_ ? svc_.describe_request_(aw->request) : std::string());
    const Duration timeout = world_.node(client_).clock.true_span(aw->timeout);
    world_.schedule(world_.now() + timeout, &Channel::timeout_event, this, call_id, 0, client_);
    if (!world_.is_up(server_)) {
      // Connection refused: the failure comes back after one trip.
      world_.schedule(world_.now() + latency().draw(up_), &Channel::lost_event, this, call_id, 0, client_);
      return;
    }
    if (session_ == 0) session_ = svc_.new_session();
    enqueue_to_server(ToServer{call_id, false, session_, epoch_, world_.network().cut_epoch(client_, server_),
                               world_.node(client_).incarnation, std::move(aw->request)});
  }

  const LatencyDist& latency() const { return world_.network().latency(client_, server_); }

  // A link's delays are drawn from a stream named by its two ends, not by the
  // order channels were made in, so other clients do not shift them.
  uint64_t link_key(uint64_t ordinal, uint64_t direction) const {
    uint64_t k = world_.node(client_).stream_key * 0x9e3779b97f4a7c15ULL ^ world_.node(server_).stream_key;
    return k + ordinal * 2 + direction;
  }

  void enqueue_to_server(ToServer m) {
    if (world_.network().is_cut(client_, server_)) {
      world_.trace().add(world_.now(), client_, TraceKind::MessageDropped, static_cast<int64_t>(DropReason::Cut),
                         static_cast<int64_t>(m.call_id));
      return;
    }
    Instant arrival = std::max(world_.now() + latency().draw(up_), last_up_);
    last_up_ = arrival;
    const uint64_t call_id = m.call_id;
    to_server_.push_back(std::move(m));
    world_.schedule(arrival, &Channel::request_event, this, call_id, 0, server_);
  }

  // The message an arrival event stands for: it is in flight until it arrives, exactly once.
  template <class Queue>
  static auto take(Queue& q, uint64_t call_id) {
    auto it = std::find_if(q.begin(), q.end(), [&](const auto& m) { return m.call_id == call_id; });
    LOCKSIM_ASSERT(it != q.end(), fmt::format("a message arrives for call #{}, which has none in flight", call_id));
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
      return self->svc_.disconnected(m.session);
    }
    if (m.epoch != self->epoch_) return self->dropped(self->server_, DropReason::ConnectionReset, m.call_id);
    Resp reply = self->svc_.handler_(m.session, m.request, w.local_now(self->server_));
    Trace& trace = w.trace();
    trace.add(w.now(), self->server_, TraceKind::CallExecuted, static_cast<int64_t>(self->id_),
              static_cast<int64_t>(m.call_id),
              trace.recording() && self->svc_.describe_response_ ? "-> " + self->svc_.describe_response_(reply)
                                                                 : std::string());
    if (w.network().is_cut(self->client_, self->server_))
      return self->dropped(self->server_, DropReason::Cut, m.call_id);
    Instant arrival = std::max(w.now() + self->latency().draw(self->down_), self->last_down_);
    self->last_down_ = arrival;
    self->to_client_.push_back(ToClient{m.call_id, m.epoch, w.network().cut_epoch(self->client_, self->server_),
                                        m.client_incarnation, std::move(reply)});
    w.schedule(arrival, &Channel::reply_event, self, m.call_id, m.client_incarnation, self->client_);
  }

  static void reply_event(World& w, const Event& e) {
    auto* self = static_cast<Channel*>(e.obj);
    ToClient m = take(self->to_client_, e.id);
    const Node& client = w.node(self->client_);
    if (client.state == NodeState::Crashed || client.incarnation != m.client_incarnation)
      return self->dropped(self->client_, DropReason::ReceiverCrashed, m.call_id);
    if (!w.network().passes(self->client_, self->server_, m.cut_epoch))
      return self->dropped(self->client_, DropReason::Cut, m.call_id);
    if (m.epoch != self->epoch_) return self->dropped(self->client_, DropReason::ConnectionReset, m.call_id);
    auto p = self->find_pending(m.call_id);
    if (!p) return self->dropped(self->client_, DropReason::CallerGone, m.call_id);
    w.trace().add(w.now(), self->client_, TraceKind::ReplyReceived, static_cast<int64_t>(self->id_),
                  static_cast<int64_t>(m.call_id));
    p->awaiter->result = CallResult<Resp>{CallStatus::Ok, std::move(m.reply)};
    self->complete(*p);
  }

  static void timeout_event(World& w, const Event& e) {
    auto* self = static_cast<Channel*>(e.obj);
    if (!w.live(e)) return;
    auto p = self->find_pending(e.id);
    if (!p) return;  // answered in time
    w.trace().add(w.now(), self->client_, TraceKind::CallTimedOut, static_cast<int64_t>(self->id_),
                  static_cast<int64_t>(e.id));
    p->awaiter->result = CallResult<Resp>{CallStatus::TimedOut, Resp{}};
    self->complete(*p);
  }

  static void lost_event(World& w, const Event& e) {
    auto* self = static_cast<Channel*>(e.obj);
    if (!w.live(e)) return;
    auto p = self->find_pending(e.id);
    if (!p) return;
    w.trace().add(w.now(), self->client_, TraceKind::ConnectionLost, static_cast<int64_t>(self->id_),
                  static_cast<int64_t>(e.id));
    p->awaiter->result = CallResult<Resp>{CallStatus::ConnectionLost, Resp{}};
    self->complete(*p);
  }

  // The pending call, removed from the list; empty if it is gone or its task died.
  std::optional<Pending> find_pending(uint64_t call_id) {
    LOCKSIM_ASSERT(call_id != 0 && call_id <= next_call_, fmt::format("call #{} was never made", call_id));
    auto it = std::find_if(pending_.begin(), pending_.end(), [&](const Pending& p) { return p.call_id == call_id; });
    if (it == pending_.end()) return std::nullopt;
    Pending p = *it;
    pending_.erase(it);
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
  std::deque<ToServer> to_server_;
  std::deque<ToClient> to_client_;
  std::vector<Pending> pending_;
};

}  // namespace locksim::sim
