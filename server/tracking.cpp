#include "locksim/server/tracking.hpp"

#include <vector>

#include "locksim/server/command_facts.hpp"
#include "locksim/server/connection.hpp"
#include "locksim/server/traffic.hpp"
#include "locksim/sim/redis/arguments.hpp"

namespace locksim::server {

using redis::Reply;

namespace {
// Redis's tracking-table-max-keys default: past it the oldest keys are invalidated.
constexpr size_t kMaxTrackedKeys = 1'000'000;

Connection* open_client(Server::Core& core, redis::ConnectionId id) {
  auto it = core.clients.find(id);
  return it == core.clients.end() || it->second->closed() ? nullptr : it->second.get();
}

// Redis sendTrackingMessage: `keys` is an array of keys, or a null for "all".
void send_invalidation(Server::Core& core, Connection& client, const Reply& keys) {
  Connection* target = &client;
  if (client.tracking.redirect) {
    target = open_client(core, static_cast<redis::ConnectionId>(client.tracking.redirect));
    if (!target) {
      if (client.protocol == redis::Protocol::Resp3)
        client.push_out(Reply::array({Reply::bulk("tracking-redir-broken"), Reply::integer_(client.tracking.redirect)}));
      return;
    }
  }
  if (target->protocol == redis::Protocol::Resp3)
    target->push_out(Reply::array({Reply::bulk("invalidate"), keys}));
  else if (target->subscribed())
    target->push_out(Reply::array({Reply::bulk("message"), Reply::bulk("__redis__:invalidate"), keys}));
}

void invalidate_readers(Server::Core& core, std::string_view key, redis::ConnectionId by) {
  auto it = core.tracking_table.readers.find(key);
  if (it == core.tracking_table.readers.end()) return;
  const std::set<redis::ConnectionId> readers = std::move(it->second);
  core.tracking_table.readers.erase(it);
  const Reply keys = Reply::array({Reply::bulk(std::string(key))});
  for (redis::ConnectionId id : readers) {
    Connection* client = open_client(core, id);
    if (!client || !client->tracking.on || client->tracking.bcast) continue;
    if (client->tracking.noloop && id == by) continue;
    send_invalidation(core, *client, keys);
  }
}

void invalidate_prefixes(Server::Core& core, std::string_view key, redis::ConnectionId by) {
  const Reply keys = Reply::array({Reply::bulk(std::string(key))});
  for (auto& [id, client] : core.clients) {
    const ClientTracking& t = client->tracking;
    if (client->closed() || !t.on || !t.bcast || (t.noloop && id == by)) continue;
    bool matches = t.prefixes.empty();
    for (const std::string& prefix : t.prefixes) matches = matches || key.starts_with(prefix);
    if (matches) send_invalidation(core, *client, keys);
  }
}

void key_modified(Server::Core& core, std::string_view key) {
  const redis::ConnectionId by = core.running;  // 0: the server's own expiry
  if (!core.tracking_table.readers.empty()) invalidate_readers(core, key, by);
  if (core.tracking_table.any_bcast) invalidate_prefixes(core, key, by);
}
}  // namespace

void wire_tracking(Server::Core& core) {
  core.model.set_modified_listener([&core](int, std::string_view key) { key_modified(core, key); });
}

void track_reads(Server::Core& core, Connection& conn, const redis::Command& argv, bool failed) {
  ClientTracking& t = conn.tracking;
  const bool caching_command = argv.size() >= 2 && redis::equals_lower(argv[0], "client") &&
                               redis::equals_lower(argv[1], "caching");
  const int caching = t.caching;
  if (!caching_command) t.caching = -1;  // CLIENT CACHING applies to the next command only
  if (!t.on || t.bcast || failed || caching_command) return;
  if ((t.optin && caching != 1) || (t.optout && caching == 0)) return;
  std::string name = argv[0];
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const CommandFacts* facts = command_facts(name);
  if (!facts || !has_category(*facts, "read")) return;
  for (std::string_view key : command_keys(argv)) {
    auto& readers = core.tracking_table.readers;
    if (readers.size() >= kMaxTrackedKeys && !readers.contains(key))
      invalidate_readers(core, std::string(readers.begin()->first), 0);
    readers[std::string(key)].insert(conn.id());
  }
}

void invalidate_everything(Server::Core& core) {
  core.tracking_table.readers.clear();
  for (auto& [id, client] : core.clients)
    if (!client->closed() && client->tracking.on) send_invalidation(core, *client, Reply::nil());
}

}  // namespace locksim::server
