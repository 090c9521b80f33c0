// MULTI EXEC DISCARD WATCH UNWATCH (Redis 7.0 multi.c).
#include "locksim/sim/redis/arguments.hpp"
#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/memory.hpp"

namespace locksim::redis {

void Server::State::end_transaction(ConnectionState& conn) {
  conn.queued.clear();
  conn.in_multi = conn.dirty_cas = conn.dirty_exec = false;
  watches.unwatch_all(conn);
}

namespace {
void discard_transaction(ExecContext& ctx) { ctx.server.end_transaction(ctx.conn); }
}  // namespace

Reply cmd_multi(ExecContext& ctx, const Command&) {
  if (ctx.conn.in_multi) return error_reply("ERR MULTI calls can not be nested");
  ctx.conn.in_multi = true;
  return Reply::ok();
}

Reply cmd_exec(ExecContext& ctx, const Command&) {
  if (!ctx.conn.in_multi) return error_reply("ERR EXEC without MULTI");
  // Redis 7.0: a WATCHed key that expired since WATCH also aborts the transaction.
  if (ctx.server.watches.any_expired(ctx.conn, [&](int db, std::string_view key) {
        return ctx.server.dbs[static_cast<size_t>(db)].is_expired(key, ctx.now_ms);
      }))
    ctx.conn.dirty_cas = true;
  if (ctx.conn.dirty_exec || ctx.conn.dirty_cas) {
    Reply reply = ctx.conn.dirty_exec ? error_reply("EXECABORT Transaction discarded because of previous errors.")
                                      : Reply::nil_array();
    discard_transaction(ctx);
    return reply;
  }
  ctx.server.watches.unwatch_all(ctx.conn);
  std::vector<Command> queued = std::move(ctx.conn.queued);
  ctx.conn.queued.clear();
  ctx.conn.in_multi = false;
  std::vector<Reply> replies;
  replies.reserve(queued.size());
  ctx.may_block = false;  // blocking commands inside a transaction answer at once
  for (const Command& command : queued) {
    if (ctx.server.host_owns(command)) {
      replies.push_back(ctx.server.host.run(ctx.conn.id, command));
      continue;
    }
    // Already validated when queued; runtime errors do not roll anything back.
    const CommandSpec* spec = find_command(command[0]);
    if (auto refused = refuse_if_over_maxmemory(ctx.server, *spec, command)) {
      ctx.server.stats.rejected(*spec, command, refused->str);
      replies.push_back(std::move(*refused));
      continue;
    }
    Notifications::Scope scope(ctx.server.notifications, spec->name);
    ctx.server.error_already_counted = false;
    Reply reply = spec->handler(ctx, command);
    ctx.server.stats.ran(*spec, command, reply, ctx.server.error_already_counted);
    ctx.server.error_already_counted = false;
    replies.push_back(std::move(reply));
  }
  discard_transaction(ctx);
  return Reply::array(std::move(replies));
}

Reply cmd_discard(ExecContext& ctx, const Command&) {
  if (!ctx.conn.in_multi) return error_reply("ERR DISCARD without MULTI");
  discard_transaction(ctx);
  return Reply::ok();
}

Reply cmd_watch(ExecContext& ctx, const Command& argv) {
  if (ctx.conn.in_multi) return error_reply("ERR WATCH inside MULTI is not allowed");
  if (ctx.conn.dirty_cas) return Reply::ok();  // already doomed: nothing to track
  for (size_t i = 1; i < argv.size(); ++i) ctx.db().watch(ctx.conn, argv[i], ctx.now_ms);
  return Reply::ok();
}

Reply cmd_unwatch(ExecContext& ctx, const Command&) {
  ctx.server.watches.unwatch_all(ctx.conn);
  ctx.conn.dirty_cas = false;
  return Reply::ok();
}

}  // namespace locksim::redis
