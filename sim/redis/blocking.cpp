// Blocked commands (Redis 7.0 blocked.c), their timeouts, and the active expire
// cycle: the parts of the server that run on the clock rather than on a request.
#include <algorithm>

#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/server_state.hpp"

namespace locksim::redis {

namespace {
void refresh_blocking_keys(Server::State& state, int db) {
  Database& database = state.dbs[static_cast<size_t>(db)];
  database.blocking.clear();
  for (const auto& conn : state.connections) {
    if (!conn || !conn->blocked || conn->blocked->db != db) continue;
    for (const std::string& key : conn->blocked->keys) database.blocking.insert(key);
  }
}
}  // namespace

void Server::State::block(ConnectionState& conn, BlockedCommand blocked) {
  blocked.order = ++block_order;
  const int db = blocked.db;
  conn.blocked = std::move(blocked);
  for (const std::string& key : conn.blocked->keys) dbs[static_cast<size_t>(db)].blocking.insert(key);
}

void Server::State::unblock(ConnectionState& conn) {
  if (!conn.blocked) return;
  const int db = conn.blocked->db;
  conn.blocked.reset();
  refresh_blocking_keys(*this, db);
}

// Redis handleClientsBlockedOnKeys: after each command, every key made ready serves
// the clients blocked on it, first blocked first, while it has something to give.
// A served command may make other keys ready (BLMOVE), hence the outer loop.
void Server::State::serve_ready_keys(int64_t now_ms) {
  any_ready = false;
  for (bool again = true; again;) {
    again = false;
    for (Database& db : dbs) {
      if (db.ready.empty()) continue;
      again = true;
      std::vector<std::string> ready = std::move(db.ready);
      db.ready.clear();
      for (const std::string& key : ready) {
        // Redis serves a ready key only if it is still there and holds the type its
        // clients wait for (LPUSH, DEL, SET in one transaction wakes nobody).
        const Entry* entry = db.peek(key, now_ms);
        if (!entry) continue;
        std::vector<ConnectionState*> waiting;
        for (const auto& conn : connections) {
          if (!conn || !conn->blocked || conn->blocked->db != db.id || conn->blocked->waits_for != entry->type)
            continue;
          const auto& keys = conn->blocked->keys;
          if (std::find(keys.begin(), keys.end(), key) != keys.end()) waiting.push_back(conn.get());
        }
        std::sort(waiting.begin(), waiting.end(), [](const ConnectionState* a, const ConnectionState* b) {
          return a->blocked->order < b->blocked->order;
        });
        for (ConnectionState* conn : waiting) {
          const Command command = conn->blocked->command;
          ExecContext ctx{.server = *this,
                          .conn = *conn,
                          .now_ms = now_ms,
                          .in_script = false,
                          .db_index = conn->blocked->db,
                          .may_block = false};
          const CommandSpec* spec = find_command(command[0]);
          Notifications::Scope scope(notifications, spec->name);
          Reply reply = spec->handler(ctx, command);
          if (reply.is_nil()) break;  // the key has nothing left for the others either
          stats.ran(*spec, command, reply, false);  // Redis counts a blocked call when it is served
          unblock(*conn);
          push(*conn, std::move(reply));
        }
      }
    }
  }
}

// Redis handleBlockedClientsTimeout: a deadline strictly before now answers a null array.
void Server::State::time_out_blocked(int64_t now_ms) {
  std::vector<ConnectionState*> late;
  for (const auto& conn : connections)
    if (conn && conn->blocked && conn->blocked->deadline_ms >= 0 && conn->blocked->deadline_ms < now_ms)
      late.push_back(conn.get());
  std::sort(late.begin(), late.end(),
            [](const ConnectionState* a, const ConnectionState* b) { return a->blocked->order < b->blocked->order; });
  for (ConnectionState* conn : late) {
    if (const CommandSpec* spec = find_command(conn->blocked->command[0]))
      stats.ran(*spec, conn->blocked->command, Reply::nil_array(), false);
    unblock(*conn);
    push(*conn, Reply::nil_array());
  }
}

// The active expire cycle, every 1000/hz ms of server time. Redis samples keys at
// random until few of them are expired; the model removes every expired key, which
// is where Redis converges.
void Server::State::active_expire_cycle(int64_t now_ms) {
  if (!config.active_expire) return;
  const int64_t period = std::max<int64_t>(1, 1000 / std::max<int64_t>(1, config.hz));
  if (last_expire_cycle_ms >= 0 && now_ms - last_expire_cycle_ms < period) return;
  last_expire_cycle_ms = now_ms;
  for (Database& db : dbs) db.expire_some(now_ms, static_cast<size_t>(-1));
}

}  // namespace locksim::redis
