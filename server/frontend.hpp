#pragma once
// The front-end's own commands beyond the connection's (internal): COMMAND, INFO, the
// CLIENT admin subcommands, and the small server commands clients' suites call.
#include <optional>
#include <string_view>

#include "locksim/server/core.hpp"
#include "locksim/sim/redis/reply.hpp"
#include "locksim/sim/redis/resp.hpp"

namespace locksim::server {

class Connection;

// CONFIG SET, all or nothing over the model's parameters and the server's (config_set.cpp).
redis::Reply config_set(Server::Core& core, Connection& conn, const redis::Command& argv);
// COMMAND [COUNT|LIST|INFO|DOCS|GETKEYS] (command_docs.cpp).
redis::Reply run_command_command(const redis::Command& argv);
// MEMORY STATS and MEMORY DOCTOR from the figures INFO memory reports (info.cpp).
redis::Reply memory_stats(Server::Core& core, Connection& conn);
redis::Reply memory_doctor(Server::Core& core, Connection& conn);
// INFO [section ...] with every section client libraries read (info.cpp).
redis::Reply run_info_command(Server::Core& core, Connection& conn, const redis::Command& argv);
// CLIENT KILL|LIST|PAUSE|UNPAUSE|TRACKING|GETREDIR|TRACKINGINFO|NO-EVICT|NO-TOUCH
// (client_admin.cpp); nullopt for a subcommand it does not answer.
std::optional<redis::Reply> run_client_admin(Server::Core& core, Connection& conn, const redis::Command& argv);
// MONITOR ROLE LATENCY LASTSAVE SAVE BGSAVE BGREWRITEAOF READONLY READWRITE SLOWLOG ACL
// DEBUG SLEEP (server_commands.cpp); nullopt for a command it does not answer.
inline constexpr std::string_view kServerCommandNames[] = {
    "monitor",  "role",     "latency", "slowlog", "lastsave",  "save",    "bgsave", "bgrewriteaof", "readonly",
    "readwrite", "acl",     "module",  "replicaof", "slaveof", "lolwut", "cluster", "asking"};
bool is_server_command(std::string_view lower_name);
std::optional<redis::Reply> run_server_command(Server::Core& core, Connection& conn, const redis::Command& argv,
                                               std::string_view lower_name);

}  // namespace locksim::server
