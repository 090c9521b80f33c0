#pragma once
// CLIENT TRACKING's invalidation messages, as Redis 7.0's tracking.c sends them
// (internal): the keys each tracking client read, and on a change of one of them (or
// of any key under a BCAST prefix) an `invalidate` push to the client (RESP3), or a
// message on __redis__:invalidate to the client it redirects to (RESP2, subscribed).
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "locksim/server/server.hpp"
#include "locksim/sim/redis/resp.hpp"

namespace locksim::server {

class Connection;

struct TrackingTable {
  std::map<std::string, std::set<redis::ConnectionId>, std::less<>> readers;  // key -> clients that read it
  bool any_bcast = false;  // a client asked for BCAST once: every change is looked at
};

// Has the model report modified keys to the table (at the server's start).
void wire_tracking(Server::Core& core);
// After a command of `conn` ran: the keys a read-only command read are tracked for it
// (with OPTIN only after CLIENT CACHING yes, with OPTOUT unless CLIENT CACHING no).
void track_reads(Server::Core& core, Connection& conn, const redis::Command& argv, bool failed);
// FLUSHALL / FLUSHDB: every tracking client is told that everything changed (a null).
void invalidate_everything(Server::Core& core);

}  // namespace locksim::server
