#include "locksim/server/protected_mode.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>
#include <string>

namespace locksim::server {

const std::string_view kProtectedModeDenied =
    "-DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the "
    "default user. In this mode connections are only accepted from the loopback interface. If you want to connect "
    "from external computers to Redis you may adopt one of the following solutions: 1) Just disable protected mode "
    "sending the command 'CONFIG SET protected-mode no' from the loopback interface by connecting to Redis from the "
    "same host the server is running, however MAKE SURE Redis is not publicly accessible from internet if you do so. "
    "Use CONFIG REWRITE to make this change permanent. 2) Alternatively you can just disable the protected mode by "
    "editing the Redis configuration file, and setting the protected mode option to 'no', and then restarting the "
    "server. 3) If you started the server manually just for testing, restart it with the '--protected-mode no' "
    "option. 4) Setup a an authentication password for the default user. NOTE: You only need to do one of the "
    "above things in order for the server to start accepting connections from the outside.\r\n";

bool is_loopback(const sockaddr* peer) {
  if (!peer) return false;
  if (peer->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(peer);
    return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
  }
  if (peer->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(peer);
    if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr)) return true;
    return IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) && in6->sin6_addr.s6_addr[12] == 127;
  }
  return false;
}

bool protected_mode_denies(bool protected_mode, bool has_password, const sockaddr* peer) {
  if (!protected_mode || has_password) return false;
  if (!peer || peer->sa_family == AF_UNIX) return false;
  return !is_loopback(peer);
}

bool binds_beyond_loopback(std::string_view bind) {
  const std::string text(bind);
  in_addr v4{};
  if (::inet_pton(AF_INET, text.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) != 127;
  in6_addr v6{};
  if (::inet_pton(AF_INET6, text.c_str(), &v6) == 1) return !IN6_IS_ADDR_LOOPBACK(&v6);
  return bind != "localhost";
}

}  // namespace locksim::server
