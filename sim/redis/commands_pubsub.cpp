// Pub/sub (Redis 7.0 pubsub.c): SUBSCRIBE UNSUBSCRIBE PSUBSCRIBE PUNSUBSCRIBE PUBLISH
// PUBSUB. Messages go to the subscribers' outboxes (Server::take_pushed). A command
// with several replies (SUBSCRIBE a b) answers the first and pushes the others.
#include <algorithm>

#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/glob.hpp"
#include "locksim/sim/redis/typed_lookup.hpp"

namespace locksim::redis {

namespace {

using Registry = std::map<std::string, std::vector<ConnectionId>, std::less<>>;

int64_t subscription_count(const ConnectionState& conn) {
  return static_cast<int64_t>(conn.channels.size() + conn.patterns.size());
}

Reply notice(std::string_view kind, std::optional<std::string_view> name, int64_t count) {
  return Reply::array(
      {Reply::bulk(std::string(kind)), name ? Reply::bulk(std::string(*name)) : Reply::nil(), Reply::integer_(count)});
}

void drop(Registry& registry, const std::string& name, ConnectionId id) {
  auto it = registry.find(name);
  if (it == registry.end()) return;
  auto& ids = it->second;
  ids.erase(std::remove(ids.begin(), ids.end(), id), ids.end());
  if (ids.empty()) registry.erase(it);
}

// Collects the replies of a multi-reply command: the first is answered, the rest pushed.
struct Replies {
  ExecContext& ctx;
  std::optional<Reply> first;
  void add(Reply r) {
    if (!first)
      first = std::move(r);
    else
      ctx.server.push(ctx.conn, std::move(r));
  }
};

Reply subscribe_generic(ExecContext& ctx, const Command& argv, bool patterns) {
  Replies out{ctx, std::nullopt};
  auto& mine = patterns ? ctx.conn.patterns : ctx.conn.channels;
  Registry& registry = patterns ? ctx.server.pubsub.patterns : ctx.server.pubsub.channels;
  for (size_t i = 1; i < argv.size(); ++i) {
    if (mine.insert(argv[i]).second) registry[argv[i]].push_back(ctx.conn.id);
    out.add(notice(patterns ? "psubscribe" : "subscribe", argv[i], subscription_count(ctx.conn)));
  }
  return std::move(*out.first);
}

Reply unsubscribe_generic(ExecContext& ctx, const Command& argv, bool patterns) {
  Replies out{ctx, std::nullopt};
  auto& mine = patterns ? ctx.conn.patterns : ctx.conn.channels;
  Registry& registry = patterns ? ctx.server.pubsub.patterns : ctx.server.pubsub.channels;
  const std::string_view kind = patterns ? "punsubscribe" : "unsubscribe";
  std::vector<std::string> names(argv.begin() + 1, argv.end());
  if (names.empty()) names.assign(mine.begin(), mine.end());
  for (const std::string& name : names) {
    if (mine.erase(name)) drop(registry, name, ctx.conn.id);
    out.add(notice(kind, name, subscription_count(ctx.conn)));
  }
  if (!out.first) out.add(notice(kind, std::nullopt, subscription_count(ctx.conn)));
  return std::move(*out.first);
}

}  // namespace

void Server::State::unsubscribe_all(ConnectionState& conn) {
  for (const std::string& name : conn.channels) drop(pubsub.channels, name, conn.id);
  for (const std::string& name : conn.patterns) drop(pubsub.patterns, name, conn.id);
  conn.channels.clear();
  conn.patterns.clear();
}

Reply cmd_subscribe(ExecContext& ctx, const Command& argv) { return subscribe_generic(ctx, argv, false); }
Reply cmd_psubscribe(ExecContext& ctx, const Command& argv) { return subscribe_generic(ctx, argv, true); }
Reply cmd_unsubscribe(ExecContext& ctx, const Command& argv) { return unsubscribe_generic(ctx, argv, false); }
Reply cmd_punsubscribe(ExecContext& ctx, const Command& argv) { return unsubscribe_generic(ctx, argv, true); }

// Channel subscribers first, in subscription order, then pattern subscribers by pattern.
int64_t publish_message(Server::State& server, const std::string& channel, const std::string& message) {
  int64_t receivers = 0;
  if (auto it = server.pubsub.channels.find(channel); it != server.pubsub.channels.end()) {
    for (ConnectionId id : it->second) {
      server.push(server.connection(id),
                  Reply::array({Reply::bulk("message"), Reply::bulk(channel), Reply::bulk(message)}));
      ++receivers;
    }
  }
  for (const auto& [pattern, ids] : server.pubsub.patterns) {
    if (!glob_match(pattern, channel)) continue;
    for (ConnectionId id : ids) {
      server.push(server.connection(id), Reply::array({Reply::bulk("pmessage"), Reply::bulk(pattern),
                                                       Reply::bulk(channel), Reply::bulk(message)}));
      ++receivers;
    }
  }
  return receivers;
}

Reply cmd_publish(ExecContext& ctx, const Command& argv) {
  return Reply::integer_(publish_message(ctx.server, argv[1], argv[2]));
}

Reply cmd_pubsub(ExecContext& ctx, const Command& argv) {
  const PubSub& ps = ctx.server.pubsub;
  if (equals_lower(argv[1], "channels") || equals_lower(argv[1], "shardchannels")) {
    if (argv.size() > 3)
      return error_reply("ERR unknown subcommand or wrong number of arguments for '" + argv[1] + "'. Try PUBSUB HELP.");
    std::vector<Reply> out;
    if (equals_lower(argv[1], "channels")) {
      for (const auto& [name, ids] : ps.channels)
        if (argv.size() == 2 || glob_match(argv[2], name)) out.push_back(Reply::bulk(name));
    }
    return Reply::array(std::move(out));
  }
  if (equals_lower(argv[1], "numsub") || equals_lower(argv[1], "shardnumsub")) {
    const bool shard = equals_lower(argv[1], "shardnumsub");
    std::vector<Reply> out;
    for (size_t i = 2; i < argv.size(); ++i) {
      auto it = ps.channels.find(argv[i]);
      out.push_back(Reply::bulk(argv[i]));
      out.push_back(Reply::integer_(!shard && it != ps.channels.end() ? static_cast<int64_t>(it->second.size()) : 0));
    }
    return Reply::array(std::move(out));
  }
  if (equals_lower(argv[1], "numpat")) {
    return Reply::integer_(static_cast<int64_t>(ps.patterns.size()));
  }
  static constexpr const char* kHelp[] = {
      "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CHANNELS [<pattern>]",
      "    Return the currently active channels matching a <pattern> (default: '*').",
      "NUMPAT",
      "    Return number of subscriptions to patterns.",
      "NUMSUB [<channel> ...]",
      "    Return the number of subscribers for the specified channels, excluding",
      "    pattern subscriptions(default: no channels).",
      "SHARDCHANNELS [<pattern>]",
      "    Return the currently active shard level channels matching a <pattern> (default: '*').",
      "SHARDNUMSUB [<shardchannel> ...]",
      "    Return the number of subscribers for the specified shard level channel(s)",
      "HELP",
      "    Prints this help.",
  };
  std::vector<Reply> lines;
  for (const char* line : kHelp) lines.push_back(Reply::status(line));
  return Reply::array(std::move(lines));
}

}  // namespace locksim::redis
