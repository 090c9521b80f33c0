#pragma once
// Connection sequences against `locksim serve` (server/): clients opening, sending
// commands (MULTI/EXEC, WATCH, blocking pops, subscriptions, CLIENT KILL of themselves
// or of others, LOCKSIM.DROP, LOCKSIM.RESTART, QUIT), reading or not, and closing, in
// any order; then a fresh client must be answered and every earlier connection gone.
// Shared by fuzz_connections and its regression test (tests/hostile), header-only.
//
// Input: a list of operations, two bytes each: (op, argument).
//
// Every wait here is against a deadline and survives signals: libFuzzer's -timeout
// arms SIGALRM every timeout/2+1 s, and a poll it interrupts returns EINTR at once.
// Taking that for "no answer" made fuzz_connections report a stall that was not one.
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <thread>

#include "locksim/server/server.hpp"

namespace locksim::fuzz {

inline constexpr size_t kSequenceClients = 4;
inline constexpr int kProbeWaitMs = 5000;  // what a fresh client waits for its PONG

inline std::string resp(std::initializer_list<std::string> args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  return out;
}

// Whether fd becomes readable within wait_ms, however many signals arrive meanwhile.
inline bool wait_readable(int fd, int wait_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    const int ready = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(left, 0)));
    if (ready > 0) return true;
    if (ready == 0 || errno != EINTR) return false;
  }
}

// recv that a signal does not cut short (MSG_WAITALL returns early on one).
inline ssize_t recv_all(int fd, char* buffer, size_t size) {
  size_t got = 0;
  while (got < size) {
    const ssize_t n = ::recv(fd, buffer + got, size - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return got > 0 ? static_cast<ssize_t>(got) : n;
    got += static_cast<size_t>(n);
  }
  return static_cast<ssize_t>(got);
}

inline int connect_unix(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  path.copy(addr.sun_path, sizeof addr.sun_path - 1);
  int rc = 0;
  do rc = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  while (rc != 0 && errno == EINTR);
  if (rc != 0) std::abort();
  return fd;
}

// What was sent so far arrives; a client that reads nothing lets it pile up.
inline void drain(int fd, int wait_ms) {
  char buffer[65536];
  while (wait_readable(fd, wait_ms)) {
    if (::recv(fd, buffer, sizeof buffer, MSG_DONTWAIT) <= 0) return;
    wait_ms = 0;
  }
}

inline std::string command_for(uint8_t arg, uint64_t self_id, uint64_t other_id) {
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

// A fresh client gets +PONG within kProbeWaitMs. A kill sent just before by a closing
// client (CLIENT KILL ID or LOCKSIM.DROP of a guessed next id) may still be in flight
// and end this very connection: that is the server doing what it was told, so the
// probe tries again (ids only grow, so the same guess cannot end the next one).
// Returns "" when answered, else what went wrong.
inline std::string probe_answers_ping(const std::string& path) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    const int probe = connect_unix(path);
    const std::string ping = resp({"PING"});
    ::send(probe, ping.data(), ping.size(), MSG_NOSIGNAL);
    char reply[8] = {};
    const bool readable = wait_readable(probe, kProbeWaitMs);
    const ssize_t got = readable ? recv_all(probe, reply, 7) : -1;
    ::close(probe);
    if (got == 7 && std::string(reply) == "+PONG\r\n") return "";
    if (got == 0) continue;  // closed: ended by a kill in flight
    return std::string("probe: ") + (readable ? "answered" : "no answer in 5 s") + " (" + std::to_string(got) +
           " bytes: " + std::string(reply, got > 0 ? static_cast<size_t>(got) : 0) + ")";
  }
  return "probe: closed by the server three times";
}

// What the server says about its connections, for a failure report.
inline std::string client_list(const std::string& path) {
  const int fd = connect_unix(path);
  const std::string list = resp({"CLIENT", "LIST"});
  ::send(fd, list.data(), list.size(), MSG_NOSIGNAL);
  std::string out;
  char buffer[4096];
  while (wait_readable(fd, 1000)) {
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) break;
    out.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

// Runs one sequence on `server` (listening on a Unix socket). Returns "" when a fresh
// client was answered afterwards and every connection was released, else why not.
inline std::string run_connection_sequence(server::Server& server, const uint8_t* data, size_t size) {
  const std::string& path = server.unix_path();
  std::array<int, kSequenceClients> fds{};
  std::array<uint64_t, kSequenceClients> ids{};
  fds.fill(-1);
  uint64_t next_id_guess = 0;
  for (size_t i = 0; i + 1 < size; i += 2) {
    const uint8_t op = data[i], arg = data[i + 1];
    const size_t c = op % kSequenceClients;
    switch ((op / kSequenceClients) % 4) {
      case 0:  // open (or send on) client c
        if (fds[c] < 0) {
          fds[c] = connect_unix(path);
          const std::string hello = resp({"CLIENT", "ID"});
          ::send(fds[c], hello.data(), hello.size(), MSG_NOSIGNAL);
          char reply[32] = {};
          if (wait_readable(fds[c], 1000) && ::recv(fds[c], reply, sizeof reply - 1, 0) > 1 && reply[0] == ':')
            ids[c] = std::strtoull(reply + 1, nullptr, 10);
          next_id_guess = ids[c] + 1;
          break;
        }
        [[fallthrough]];
      case 1: {  // send a command on c (if open)
        if (fds[c] < 0) break;
        const std::string bytes =
            command_for(arg, ids[c], arg % 2 ? ids[(c + 1) % kSequenceClients] : next_id_guess);
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
  if (std::string failed = probe_answers_ping(path); !failed.empty()) return failed + "\n" + client_list(path);
  for (int i = 0; i < 5000 && server.client_count() != 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (const size_t left = server.client_count(); left != 0)
    return std::to_string(left) + " connections left after every client closed:\n" + client_list(path);
  return "";
}

}  // namespace locksim::fuzz
