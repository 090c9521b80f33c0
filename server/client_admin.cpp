// CLIENT's administrative subcommands as Redis 7.0 answers them: KILL with every filter
// (and the old ip:port form), LIST with TYPE and ID, PAUSE and UNPAUSE (commands held,
// not refused), TRACKING, GETREDIR, TRACKINGINFO, CACHING, NO-EVICT, NO-TOUCH.
#include <algorithm>

#include "locksim/server/connection.hpp"
#include "locksim/server/frontend.hpp"
#include "locksim/server/traffic.hpp"
#include "locksim/sim/redis/arguments.hpp"

namespace locksim::server {

using redis::Command;
using redis::Reply;

namespace {
const Reply& syntax_error() {
  static const Reply e = Reply::error("ERR syntax error");
  return e;
}

// Every client here is normal or pubsub (subscribed to a channel or pattern, as Redis's
// CLIENT_PUBSUB flag); there are no replicas and no masters.
std::optional<Reply> check_type(const std::string& type) {
  for (const char* known : {"normal", "master", "slave", "replica", "pubsub"})
    if (redis::equals_lower(type, known)) return std::nullopt;
  return Reply::error("ERR Unknown client type '" + type + "'");
}

bool type_matches(const std::string& type, const Connection& client) {
  if (redis::equals_lower(type, "pubsub")) return client.subscribed();
  return redis::equals_lower(type, "normal") && !client.subscribed();
}

struct KillFilter {
  std::optional<uint64_t> id;
  std::optional<std::string> type, addr, laddr, user;
  std::optional<int64_t> maxage;
  bool skipme = true;
};

Reply client_kill(Server::Core& core, Connection& caller, const Command& argv) {
  if (argv.size() == 3) {  // CLIENT KILL ip:port (the old form)
    for (auto& [id, client] : core.clients) {
      if (client->closed() || client->peer() != argv[2]) continue;
      if (client.get() == &caller)
        caller.close_after_reply = true;
      else
        client->close();
      return Reply::ok();
    }
    return Reply::error("ERR No such client");
  }
  if (argv.size() % 2 != 0) return syntax_error();
  KillFilter f;
  for (size_t i = 2; i < argv.size(); i += 2) {
    const std::string& option = argv[i];
    const std::string& value = argv[i + 1];
    int64_t n = 0;
    if (redis::equals_lower(option, "id")) {
      if (!redis::parse_int64(value, n) || n <= 0) return Reply::error("ERR client-id should be greater than 0");
      f.id = static_cast<uint64_t>(n);
    } else if (redis::equals_lower(option, "type")) {
      if (auto bad = check_type(value)) return *bad;
      f.type = value;
    } else if (redis::equals_lower(option, "addr")) {
      f.addr = value;
    } else if (redis::equals_lower(option, "laddr")) {
      f.laddr = value;
    } else if (redis::equals_lower(option, "user")) {
      if (value != "default") return Reply::error("ERR No such user '" + value + "'");
      f.user = value;
    } else if (redis::equals_lower(option, "skipme")) {
      if (redis::equals_lower(value, "yes")) f.skipme = true;
      else if (redis::equals_lower(value, "no")) f.skipme = false;
      else return syntax_error();
    } else if (redis::equals_lower(option, "maxage")) {
      if (!redis::parse_int64(value, n)) return syntax_error();
      f.maxage = n;
    } else {
      return syntax_error();
    }
  }
  std::vector<std::shared_ptr<Connection>> doomed;
  for (auto& [id, client] : core.clients) {
    // A connection closed earlier in this command (an EXEC) is gone, though not yet released.
    if (client->closed()) continue;
    if (f.id && id != *f.id) continue;
    if (f.type && !type_matches(*f.type, *client)) continue;
    if (f.addr && client->peer() != *f.addr) continue;
    if (f.laddr && client->local_address() != *f.laddr) continue;
    if (f.maxage && client->age_seconds() < *f.maxage) continue;
    if (f.skipme && client.get() == &caller) continue;
    doomed.push_back(client);
  }
  for (auto& client : doomed) {
    if (client.get() == &caller)
      caller.close_after_reply = true;  // the reply first, as Redis does
    else
      client->close();
  }
  return Reply::integer_(static_cast<int64_t>(doomed.size()));
}

Reply client_list(Server::Core& core, const Command& argv) {
  std::optional<std::vector<uint64_t>> ids;
  std::optional<std::string> type;
  for (size_t i = 2; i < argv.size(); ++i) {
    if (redis::equals_lower(argv[i], "type") && i + 1 < argv.size()) {
      if (auto bad = check_type(argv[i + 1])) return *bad;
      type = argv[++i];
    } else if (redis::equals_lower(argv[i], "id") && i + 1 < argv.size()) {
      ids.emplace();
      for (++i; i < argv.size(); ++i) {
        int64_t id = 0;
        if (!redis::parse_int64(argv[i], id) || id <= 0) return Reply::error("ERR Invalid client ID");
        ids->push_back(static_cast<uint64_t>(id));
      }
    } else {
      return syntax_error();
    }
  }
  std::string text;
  for (const auto& [id, client] : core.clients) {
    if (client->closed()) continue;
    if (ids && std::find(ids->begin(), ids->end(), id) == ids->end()) continue;
    if (type && !type_matches(*type, *client)) continue;
    text += client->info_line() + "\n";
  }
  return Reply::bulk(std::move(text));
}

Reply client_pause(Server::Core& core, const Command& argv) {
  if (argv.size() != 3 && argv.size() != 4) return redis::arity_error("client|pause");
  int64_t ms = 0;
  if (!redis::parse_int64(argv[2], ms)) return Reply::error("ERR timeout is not an integer or out of range");
  if (ms < 0) return Reply::error("ERR timeout is negative");
  if (ms > kMaxDurationMs) return Reply::error("ERR timeout is out of range");  // now + ms must not overflow
  bool writes_only = false;
  if (argv.size() == 4) {
    if (redis::equals_lower(argv[3], "write")) writes_only = true;
    else if (!redis::equals_lower(argv[3], "all")) return Reply::error("ERR CLIENT PAUSE mode must be WRITE or ALL");
  }
  pause_clients(core, ms, writes_only);
  return Reply::ok();
}

Reply client_tracking(Server::Core& core, Connection& conn, const Command& argv) {
  if (argv.size() < 3) return redis::arity_error("client|tracking");
  ClientTracking t;
  if (redis::equals_lower(argv[2], "on")) t.on = true;
  else if (!redis::equals_lower(argv[2], "off")) return syntax_error();
  for (size_t i = 3; i < argv.size(); ++i) {
    const std::string& option = argv[i];
    if (redis::equals_lower(option, "redirect") && i + 1 < argv.size()) {
      int64_t id = 0;
      if (!redis::parse_int64(argv[++i], id)) return Reply::error("ERR value is not an integer or out of range");
      if (!core.clients.contains(static_cast<uint64_t>(id)))
        return Reply::error("ERR The client ID you want redirect to does not exist");
      t.redirect = id;
    } else if (redis::equals_lower(option, "prefix") && i + 1 < argv.size()) {
      t.prefixes.push_back(argv[++i]);
    } else if (redis::equals_lower(option, "bcast")) {
      t.bcast = true;
    } else if (redis::equals_lower(option, "optin")) {
      t.optin = true;
    } else if (redis::equals_lower(option, "optout")) {
      t.optout = true;
    } else if (redis::equals_lower(option, "noloop")) {
      t.noloop = true;
    } else {
      return syntax_error();
    }
  }
  if (t.optin && t.optout)
    return Reply::error("ERR You can't use both OPTIN and OPTOUT");
  if (!t.prefixes.empty() && !t.bcast)
    return Reply::error("ERR PREFIX option requires BCAST mode to be enabled");
  core.tracking_table.any_bcast = core.tracking_table.any_bcast || (t.on && t.bcast);
  conn.tracking = t.on ? std::move(t) : ClientTracking{};
  return Reply::ok();
}

Reply client_trackinginfo(const Connection& conn) {
  const ClientTracking& t = conn.tracking;
  std::vector<Reply> flags;
  if (!t.on) flags.push_back(Reply::bulk("off"));
  else flags.push_back(Reply::bulk("on"));
  if (t.bcast) flags.push_back(Reply::bulk("bcast"));
  if (t.optin) flags.push_back(Reply::bulk("optin"));
  if (t.optout) flags.push_back(Reply::bulk("optout"));
  if (t.noloop) flags.push_back(Reply::bulk("noloop"));
  std::vector<Reply> prefixes;
  for (const std::string& p : t.prefixes) prefixes.push_back(Reply::bulk(p));
  return Reply::array({Reply::bulk("flags"), Reply::array(std::move(flags)), Reply::bulk("redirect"),
                       Reply::integer_(t.on ? t.redirect : -1), Reply::bulk("prefixes"),
                       Reply::array(std::move(prefixes))});
}
}  // namespace

std::optional<Reply> run_client_admin(Server::Core& core, Connection& conn, const Command& argv) {
  const std::string& sub = argv[1];
  if (redis::equals_lower(sub, "kill")) {
    if (argv.size() < 3) return redis::arity_error("client|kill");
    return client_kill(core, conn, argv);
  }
  if (redis::equals_lower(sub, "list")) return client_list(core, argv);
  if (redis::equals_lower(sub, "pause")) return client_pause(core, argv);
  if (redis::equals_lower(sub, "unpause")) {
    if (argv.size() != 2) return redis::arity_error("client|unpause");
    unpause_clients(core);
    return Reply::ok();
  }
  if (redis::equals_lower(sub, "tracking")) return client_tracking(core, conn, argv);
  if (redis::equals_lower(sub, "getredir")) {
    if (argv.size() != 2) return redis::arity_error("client|getredir");
    return Reply::integer_(conn.tracking.on ? conn.tracking.redirect : -1);
  }
  if (redis::equals_lower(sub, "trackinginfo")) {
    if (argv.size() != 2) return redis::arity_error("client|trackinginfo");
    return client_trackinginfo(conn);
  }
  if (redis::equals_lower(sub, "caching")) {
    if (argv.size() != 3) return redis::arity_error("client|caching");
    if (!conn.tracking.on || !(conn.tracking.optin || conn.tracking.optout))
      return Reply::error(
          "ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode "
          "enabled");
    if (!redis::equals_lower(argv[2], "yes") && !redis::equals_lower(argv[2], "no")) return syntax_error();
    conn.tracking.caching = redis::equals_lower(argv[2], "yes") ? 1 : 0;
    return Reply::ok();
  }
  if (redis::equals_lower(sub, "no-evict") || redis::equals_lower(sub, "no-touch")) {
    if (argv.size() != 3) return redis::arity_error("client|" + std::string(redis::equals_lower(sub, "no-evict") ? "no-evict" : "no-touch"));
    if (!redis::equals_lower(argv[2], "on") && !redis::equals_lower(argv[2], "off")) return syntax_error();
    return Reply::ok();
  }
  return std::nullopt;
}

}  // namespace locksim::server
