#pragma once
// A TCP/Unix-socket proxy on the event loop, one per link (a client and a
// Redis server, or a replica and its master): it delays every chunk by a
// drawn latency (keeping the byte order, as TCP does), holds the bytes while
// the link is cut (TCP retransmits until the cut heals) and drops every
// connection on a reset. The endpoints never know it is there.
#include <sys/socket.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "locksim/real/event_loop.hpp"

struct evconnlistener;

namespace locksim::real {

// Where to listen or connect: a Unix socket path, or a loopback port.
struct Address {
  std::string unix_path;
  int port = 0;
  std::string describe() const;
};

class LinkProxy {
 public:
  using Delay = std::function<Duration()>;  // one draw per chunk, per direction
  LinkProxy(EventLoop& loop, Address listen, Address upstream, Delay delay);
  ~LinkProxy();
  LinkProxy(const LinkProxy&) = delete;
  LinkProxy& operator=(const LinkProxy&) = delete;

  const Address& address() const { return listen_; }
  void cut() { cut_ = true; }
  void heal();
  void reset();  // closes every connection through the link
  bool is_cut() const { return cut_; }

 private:
  struct Pipe;
  struct Side;
  static void on_accept(evconnlistener*, int fd, sockaddr*, int, void* arg);
  void accept(int fd);
  void flush(Side& side);
  void close(Pipe* pipe);
  friend struct Pipe;

  EventLoop& loop_;
  Address listen_, upstream_;
  Delay delay_;
  evconnlistener* listener_ = nullptr;
  bool cut_ = false;
  std::vector<std::unique_ptr<Pipe>> pipes_;
};

}  // namespace locksim::real
