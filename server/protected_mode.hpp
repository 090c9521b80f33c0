#pragma once
// Protected mode (Redis 3.2+): without a password, only clients on the loopback
// interface or a Unix socket are served; any other gets Redis's -DENIED text and is
// closed (internal).
#include <sys/socket.h>

#include <string_view>

namespace locksim::server {

// Redis 7.0's reply, byte for byte (networking.c clientAcceptHandlerCommon).
extern const std::string_view kProtectedModeDenied;

// 127.0.0.0/8, ::1 and ::ffff:127.0.0.0/8 (IPv4 loopback mapped into IPv6).
bool is_loopback(const sockaddr* peer);
// Whether a client connecting from `peer` (nullptr or AF_UNIX: a Unix socket) is refused.
bool protected_mode_denies(bool protected_mode, bool has_password, const sockaddr* peer);
// Whether the address serve binds to reaches beyond the host ("0.0.0.0", a LAN address).
bool binds_beyond_loopback(std::string_view bind);

}  // namespace locksim::server
