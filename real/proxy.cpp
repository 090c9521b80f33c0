#include "locksim/real/proxy.hpp"

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <netinet/in.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <stdexcept>

namespace locksim::real {

namespace {

struct SockAddr {
  sockaddr_storage storage{};
  socklen_t length = 0;
  sockaddr* get() { return reinterpret_cast<sockaddr*>(&storage); }
};

SockAddr to_sockaddr(const Address& a) {
  SockAddr s;
  if (!a.unix_path.empty()) {
    auto* un = reinterpret_cast<sockaddr_un*>(&s.storage);
    un->sun_family = AF_UNIX;
    if (a.unix_path.size() >= sizeof un->sun_path) throw std::runtime_error("socket path too long: " + a.unix_path);
    std::memcpy(un->sun_path, a.unix_path.c_str(), a.unix_path.size() + 1);
    s.length = sizeof(sockaddr_un);
  } else {
    auto* in = reinterpret_cast<sockaddr_in*>(&s.storage);
    in->sin_family = AF_INET;
    in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    in->sin_port = htons(static_cast<uint16_t>(a.port));
    s.length = sizeof(sockaddr_in);
  }
  return s;
}

}  // namespace

std::string Address::describe() const { return unix_path.empty() ? "127.0.0.1:" + std::to_string(port) : unix_path; }

// One direction of a connection: bytes read from `from`, waiting to be written to `to`.
struct LinkProxy::Side {
  explicit Side(Pipe* owner) : pipe(owner) {}
  Pipe* pipe;
  bufferevent* from = nullptr;
  bufferevent* to = nullptr;
  struct Chunk {
    Instant due;
    std::string bytes;
  };
  std::deque<Chunk> queue;
  EventLoop::TimerId timer = 0;
};

struct LinkProxy::Pipe {
  LinkProxy* proxy;
  Side down{this}, up{this};  // down: client -> server; up: server -> client
  bufferevent* client = nullptr;
  bufferevent* server = nullptr;
  bool closed = false;
};

LinkProxy::LinkProxy(EventLoop& loop, Address listen, Address upstream, Delay delay)
    : loop_(loop), listen_(std::move(listen)), upstream_(std::move(upstream)), delay_(std::move(delay)) {
  if (!listen_.unix_path.empty()) ::unlink(listen_.unix_path.c_str());
  SockAddr addr = to_sockaddr(listen_);
  listener_ =
      evconnlistener_new_bind(loop_.base(), &LinkProxy::on_accept, this, LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE, -1,
                              addr.get(), static_cast<int>(addr.length));
  if (!listener_) throw std::runtime_error("proxy: cannot listen on " + listen_.describe());
}

LinkProxy::~LinkProxy() {
  for (auto& p : pipes_) close(p.get());
  evconnlistener_free(listener_);
}

void LinkProxy::on_accept(evconnlistener*, int fd, sockaddr*, int, void* arg) {
  static_cast<LinkProxy*>(arg)->accept(fd);
}

void LinkProxy::accept(int fd) {
  auto pipe = std::make_unique<Pipe>();
  Pipe* p = pipe.get();
  p->proxy = this;
  p->client = bufferevent_socket_new(loop_.base(), fd, BEV_OPT_CLOSE_ON_FREE);
  p->server = bufferevent_socket_new(loop_.base(), -1, BEV_OPT_CLOSE_ON_FREE);
  p->down.from = p->client;
  p->down.to = p->server;
  p->up.from = p->server;
  p->up.to = p->client;
  auto read_cb = [](bufferevent* bev, void* arg) {
    auto* pp = static_cast<Pipe*>(arg);
    Side& side = bev == pp->client ? pp->down : pp->up;
    evbuffer* in = bufferevent_get_input(bev);
    std::string bytes(evbuffer_get_length(in), '\0');
    evbuffer_remove(in, bytes.data(), bytes.size());
    LinkProxy& self = *pp->proxy;
    Instant due = self.loop_.now() + self.delay_();
    if (!side.queue.empty()) due = std::max(due, side.queue.back().due);  // bytes keep their order
    side.queue.push_back({due, std::move(bytes)});
    self.flush(side);
  };
  auto event_cb = [](bufferevent*, short what, void* arg) {
    auto* pp = static_cast<Pipe*>(arg);
    if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) pp->proxy->close(pp);
  };
  for (bufferevent* bev : {p->client, p->server}) {
    bufferevent_setcb(bev, read_cb, nullptr, event_cb, p);
    bufferevent_enable(bev, EV_READ | EV_WRITE);
  }
  SockAddr up = to_sockaddr(upstream_);
  pipes_.push_back(std::move(pipe));
  if (bufferevent_socket_connect(p->server, up.get(), static_cast<int>(up.length)) != 0) close(p);
}

void LinkProxy::flush(Side& side) {
  if (side.pipe->closed || cut_) return;
  const Instant now = loop_.now();
  while (!side.queue.empty() && side.queue.front().due <= now) {
    bufferevent_write(side.to, side.queue.front().bytes.data(), side.queue.front().bytes.size());
    side.queue.pop_front();
  }
  if (side.queue.empty() || side.timer != 0) return;
  side.timer = loop_.at(side.queue.front().due, [this, &side] {
    side.timer = 0;
    flush(side);
  });
}

void LinkProxy::heal() {
  cut_ = false;
  for (auto& p : pipes_) {
    flush(p->down);
    flush(p->up);
  }
}

void LinkProxy::reset() {
  while (!pipes_.empty()) close(pipes_.back().get());
}

void LinkProxy::close(Pipe* pipe) {
  if (pipe->closed) return;
  pipe->closed = true;
  for (Side* s : {&pipe->down, &pipe->up})
    if (s->timer) loop_.cancel(s->timer);
  bufferevent_free(pipe->client);
  bufferevent_free(pipe->server);
  auto it = std::find_if(pipes_.begin(), pipes_.end(), [pipe](const auto& p) { return p.get() == pipe; });
  if (it == pipes_.end()) return;
  // Freed on the next turn: close may run inside one of the pipe's own callbacks.
  std::shared_ptr<Pipe> doomed(std::move(*it));
  pipes_.erase(it);
  loop_.after(Duration{}, [doomed] {});
}

}  // namespace locksim::real
