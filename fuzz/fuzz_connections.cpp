// Connection lifetime in `locksim serve` (server/): any sequence of clients opening,
// sending commands (MULTI/EXEC, WATCH, blocking pops, subscriptions, CLIENT KILL of
// themselves or of others, LOCKSIM.DROP, LOCKSIM.RESTART, QUIT), reading or not, and
// closing, in any order. The server must neither crash, trip a sanitizer nor an
// assertion (LOCKSIM_ASSERT on the connection-lifetime invariants), and must answer a
// fresh client afterwards with every earlier connection gone.
//
// Input: a list of operations, two bytes each: (op, argument).
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "locksim/server/server.hpp"

namespace {
constexpr size_t kClients = 4;

std::string resp(std::initializer_list<std::string> args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return out;
}

locksim::server::Server& server() {
  static const std::string path = "/tmp/locksim-fuzz-connections-" + std::to_string(::getpid()) + ".sock";
  static auto instance = [] {
    locksim::server::Options options;
    options.port = -1;
    options.unix_path = path;
    options.time = locksim::server::TimeMode::Manual;
    options.log = [](std::string_view) {};
    auto s = std::make_unique<locksim::server::Server>(options);
    s->start();
    return s;
  }();
  return *instance;
}

int connect_unix() {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string& path = server().unix_path();
  path.copy(addr.sun_path, sizeof addr.sun_path - 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) std::abort();
  return fd;
}

// What was sent so far arrives; a client that reads nothing lets it pile up.
void drain(int fd, int wait_ms) {
  char buffer[65536];
  pollfd p{fd, POLLIN, 0};
  while (::poll(&p, 1, wait_ms) > 0) {
    if (::recv(fd, buffer, sizeof buffer, MSG_DONTWAIT) <= 0) return;
    wait_ms = 0;
  }
}

std::string command_for(uint8_t arg, uint64_t self_id, uint64_t other_id) {
  const std::string self = std::to_string(self_id), other = std::to_string(other_id);
  switch (arg % 16) {
    case 0: return resp({"MULTI"});
    case 1: return resp({"EXEC"});
    case 2: return resp({"WATCH", "k"});
    case 3: return resp({"SET", "k", std::string(arg, 'v')});
    case 4: return resp({"BLPOP", "q", "0"});
    case 5: return resp({"RPUSH", "q", "x"});
    case 6: return resp({"SUBSCRIBE", "ch", "ch" + std::to_string(arg % 3)});
    case 7: return resp({"PUBLISH", "ch", std::string(arg * 16, 'm')});
    case 8: return resp({"CLIENT", "KILL", "ID", self});
    case 9: return resp({"CLIENT", "KILL", "ID", other});
    case 10: return resp({"LOCKSIM.DROP", other});
    case 11: return resp({"LOCKSIM.DROP", self});
    case 12: return resp({"LOCKSIM.RESTART"});
    case 13: return resp({"QUIT"});
    case 14: return resp({"UNSUBSCRIBE"});
    default: return resp({"DISCARD"});
  }
}
// A fresh client gets +PONG. A kill sent just before by a closing client (CLIENT KILL
// ID or LOCKSIM.DROP of a guessed next id) may still be in flight and end this very
// connection: that is the server doing what it was told, so the probe tries again
// (ids only grow, so the same guess cannot end the next one).
bool probe_answers_ping() {
  for (int attempt = 0; attempt < 3; ++attempt) {
    const int probe = connect_unix();
    const std::string ping = resp({"PING"});
    ::send(probe, ping.data(), ping.size(), MSG_NOSIGNAL);
    char reply[8] = {};
    pollfd p{probe, POLLIN, 0};
    const bool readable = ::poll(&p, 1, 5000) > 0;
    const ssize_t got = readable ? ::recv(probe, reply, 7, MSG_WAITALL) : -1;
    ::close(probe);
    if (got == 7 && std::string(reply) == "+PONG\r\n") return true;
    if (got == 0) continue;  // closed: ended by a kill in flight
    std::fprintf(stderr, "probe: %s (%zd bytes: %.7s)\n", readable ? "answered" : "no answer in 5 s", got, reply);
    return false;
  }
  std::fprintf(stderr, "probe: closed by the server three times\n");
  return false;
}
// What the server says about its connections, for a failure report.
std::string client_list() {
  const int fd = connect_unix();
  const std::string list = resp({"CLIENT", "LIST"});
  ::send(fd, list.data(), list.size(), MSG_NOSIGNAL);
  std::string out;
  char buffer[4096];
  pollfd p{fd, POLLIN, 0};
  while (::poll(&p, 1, 1000) > 0) {
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) break;
    out.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 256) return 0;
  server();
  std::array<int, kClients> fds{};
  std::array<uint64_t, kClients> ids{};
  fds.fill(-1);
  uint64_t next_id_guess = 0;
  for (size_t i = 0; i + 1 < size; i += 2) {
    const uint8_t op = data[i], arg = data[i + 1];
    const size_t c = op % kClients;
    switch ((op / kClients) % 4) {
      case 0:  // open (or send on) client c
        if (fds[c] < 0) {
          fds[c] = connect_unix();
          const std::string hello = resp({"CLIENT", "ID"});
          ::send(fds[c], hello.data(), hello.size(), MSG_NOSIGNAL);
          char reply[32] = {};
          pollfd p{fds[c], POLLIN, 0};
          if (::poll(&p, 1, 1000) > 0 && ::recv(fds[c], reply, sizeof reply - 1, 0) > 1 && reply[0] == ':')
            ids[c] = std::strtoull(reply + 1, nullptr, 10);
          next_id_guess = ids[c] + 1;
          break;
        }
        [[fallthrough]];
      case 1: {  // send a command on c (if open)
        if (fds[c] < 0) break;
        const std::string bytes = command_for(arg, ids[c], arg % 2 ? ids[(c + 1) % kClients] : next_id_guess);
        ::send(fds[c], bytes.data(), bytes.size(), MSG_NOSIGNAL);
        break;
      }
      case 2:  // read what c was sent
        if (fds[c] >= 0) drain(fds[c], arg % 4);
        break;
      default:  // close c
        if (fds[c] >= 0) ::close(fds[c]);
        fds[c] = -1;
        break;
    }
  }
  for (int fd : fds)
    if (fd >= 0) ::close(fd);
  // A fresh client is served, and every earlier connection is released.
  if (!probe_answers_ping()) std::abort();
  for (int i = 0; i < 5000 && server().client_count() != 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (server().client_count() != 0) {
    std::fprintf(stderr, "%zu connections left after every client closed:\n%s\n", server().client_count(),
                 client_list().c_str());
    std::abort();
  }
  return 0;
}
