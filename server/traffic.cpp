#include "locksim/server/lower.hpp"
#include "locksim/server/traffic.hpp"

#include <fmt/format.h>

#include <chrono>

#include "locksim/server/connection.hpp"
#include "locksim/sim/redis/arguments.hpp"
#include "locksim/sim/redis/command_table.hpp"
#include "locksim/sim/redis/glob.hpp"

namespace locksim::server {

namespace {
bool is_container(std::string_view name) {
  // (constexpr: a braced list of string_views would measure every literal on each call)
  static constexpr std::string_view kContainers[] = {"client",  "config",  "command", "object",  "script",
                                                     "function", "pubsub", "memory",  "latency", "acl",
                                                     "slowlog", "module",  "cluster", "xinfo",   "locksim.fault"};
  for (std::string_view c : kContainers)
    if (name == c) return true;
  return false;
}

// "set", or "client|kill" for a command with subcommands (as Redis 7.0 names them).
std::string full_name(const redis::Command& argv) {
  std::string name = lower(argv[0]);
  if (argv.size() > 1 && is_container(name) && argv[1].size() <= 32) name += "|" + lower(argv[1]);
  return name;
}

bool is_admin(std::string_view lower_name) { return lower_name.starts_with("locksim."); }

bool is_handshake(const std::string& full) {
  return full == "hello" || full == "auth" || full == "select" || full == "client|setname" ||
         full == "client|setinfo" || full == "client|id" || full == "client|getname";
}

// Redis 7.0 postpones these under CLIENT PAUSE WRITE: writes, and what may replicate one.
bool may_write(std::string_view lower_name) {
  if (const redis::CommandSpec* spec = redis::find_command(lower_name); spec && (spec->flags & redis::kWrite))
    return true;
  // EXEC is held whatever it queued (Redis looks at the queue; a read-only one waits too).
  for (std::string_view name : {"eval", "evalsha", "fcall", "publish", "spublish", "pfcount", "wait", "exec"})
    if (lower_name == name) return true;
  return false;
}

bool glob_or_any(const std::string& pattern, std::string_view text) {
  return pattern.empty() || redis::glob_match(pattern, text);
}

bool selects(const FaultRule& rule, const Connection& conn, const redis::Command& argv, const std::string& full) {
  if (!rule.handshakes && is_handshake(full)) return false;
  if (rule.client && *rule.client != conn.id()) return false;
  if (!glob_or_any(rule.name, conn.name) || !glob_or_any(rule.addr, conn.peer())) return false;
  if (!rule.command.empty() && !redis::glob_match(rule.command, full) &&
      !redis::glob_match(rule.command, full.substr(0, full.find('|'))))
    return false;
  if (rule.key.empty()) return true;
  for (std::string_view key : command_keys(argv))
    if (redis::glob_match(rule.key, key)) return true;
  return false;
}

Verdict acting(Verdict::Action action) {
  Verdict v;
  v.action = action;
  return v;
}

void drop_finished_rules(Traffic& traffic, int64_t now) {
  std::erase_if(traffic.rules, [now](const FaultRule& r) {
    return r.remaining == 0 || (r.until_ms >= 0 && now >= r.until_ms);
  });
}
}  // namespace

std::string FaultRule::describe(int64_t now_ms) const {
  static constexpr const char* kKinds[] = {"delay", "drop-reply", "drop-request", "close", "error"};
  std::string text = fmt::format("id={} kind={}", id, kKinds[static_cast<int>(kind)]);
  if (kind == Kind::Delay) text += fmt::format(" ms={}", delay_ms);
  if (kind == Kind::Error) text += " error=" + error;
  if (client) text += fmt::format(" client={}", *client);
  if (!name.empty()) text += " name=" + name;
  if (!addr.empty()) text += " addr=" + addr;
  if (!command.empty()) text += " command=" + command;
  if (!key.empty()) text += " key=" + key;
  if (handshakes) text += " handshakes=yes";
  text += fmt::format(" count={} for-ms={} hits={}", remaining, until_ms < 0 ? -1 : std::max<int64_t>(0, until_ms - now_ms),
                      hits);
  return text;
}

Verdict screen_command(Server::Core& core, Connection& conn, const redis::Command& argv) {
  Traffic& traffic = core.traffic;
  if (traffic.pause_until_ms == 0 && traffic.rules.empty()) return {};  // the usual case, kept cheap
  const std::string full = full_name(argv);
  if (is_admin(full) || full == "client|unpause") return {};
  const int64_t now = Clock::host_ms();
  if (traffic.pause_until_ms > now && (!traffic.pause_writes_only || may_write(full.substr(0, full.find('|')))))
    return acting(Verdict::Action::Hold);
  if (traffic.rules.empty()) return {};
  drop_finished_rules(traffic, now);
  for (FaultRule& rule : traffic.rules) {
    if (!selects(rule, conn, argv, full)) continue;
    ++rule.hits;
    if (rule.remaining > 0) --rule.remaining;
    switch (rule.kind) {
      case FaultRule::Kind::Delay: {
        Verdict v;
        v.delay_ms = rule.delay_ms;
        return v;
      }
      case FaultRule::Kind::DropReply: {
        Verdict v;
        v.drop_reply = true;
        return v;
      }
      case FaultRule::Kind::DropRequest: return acting(Verdict::Action::Skip);
      case FaultRule::Kind::Close: return acting(Verdict::Action::Close);
      case FaultRule::Kind::Error: {
        Verdict v = acting(Verdict::Action::Error);
        v.error = rule.error;
        return v;
      }
    }
  }
  return {};
}

namespace {
void note_frontend_command_named(Server::Core& core, const std::string& full, std::string_view reply, bool refused) {
  const std::string_view base = std::string_view(full).substr(0, full.find('|'));
  const bool known = redis::find_command(base) || is_frontend_command(base);
  core.model.note_host_command(known ? std::string_view(full) : std::string_view{}, reply, refused);
}
}  // namespace

void note_frontend_command(Server::Core& core, const redis::Command& argv, std::string_view reply, bool refused) {
  note_frontend_command_named(core, full_name(argv), reply, refused);
}

void note_command(Server::Core& core, Connection& conn, const redis::Command& argv, std::string_view reply,
                  bool counted_by_model) {
  Traffic& traffic = core.traffic;
  ++traffic.commands_processed;
  traffic.net_output_bytes += reply.size();
  // INFO commandstats and errorstats live in the model, which counted what it ran; what
  // the front-end answered itself is handed to it here.
  // A queued command is counted when EXEC runs it, as Redis's call() counts it.
  if (!counted_by_model && reply != "+QUEUED\r\n") note_frontend_command_named(core, full_name(argv), reply, false);
  if (traffic.monitors.empty() || conn.monitor) return;
  const std::string base = lower(argv[0]);
  // MONITOR's line: "+<seconds>.<micros> [<db> <addr>] "arg" ...", AUTH and HELLO redacted.
  const int64_t us = std::chrono::duration_cast<std::chrono::microseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  std::string line = fmt::format("{}.{:06} [0 {}]", us / 1'000'000, us % 1'000'000, conn.peer());
  const bool secret = base == "auth" || base == "hello" || base == "migrate";
  for (size_t i = 0; i < argv.size(); ++i) {
    if (secret && i > 0) break;
    line += " \"";
    for (unsigned char c : argv[i]) {
      if (c == '"' || c == '\\') line += fmt::format("\\{}", static_cast<char>(c));
      else if (c >= 0x20 && c < 0x7f) line += static_cast<char>(c);
      else line += fmt::format("\\x{:02x}", c);
    }
    line += "\"";
  }
  std::vector<redis::Reply> pushed{redis::Reply::status(line)};
  std::erase_if(traffic.monitors, [&core](redis::ConnectionId id) { return !core.clients.contains(id); });
  for (redis::ConnectionId id : traffic.monitors) {
    auto client = core.clients.at(id);
    std::vector<redis::Reply> copy = pushed;
    client->receive(copy);
    asio::post(core.io, [client] { client->pump(); });
  }
}

bool admit_connection(Server::Core& core) {
  ++core.traffic.connections_received;
  if (core.traffic.refuse_until_ms > Clock::host_ms()) {
    ++core.traffic.connections_rejected;
    return false;
  }
  return true;
}

void pause_clients(Server::Core& core, int64_t ms, bool writes_only) {
  Traffic& traffic = core.traffic;
  const int64_t now = Clock::host_ms();
  const bool active = traffic.pause_until_ms > now;
  // Redis: a new pause never shortens one in force, and ALL wins over WRITE.
  traffic.pause_writes_only = active ? traffic.pause_writes_only && writes_only : writes_only;
  traffic.pause_until_ms = std::max(active ? traffic.pause_until_ms : 0, now + ms);
  traffic.pause_timer.expires_after(std::chrono::milliseconds(traffic.pause_until_ms - now));
  traffic.pause_timer.async_wait([&core](const std::error_code& ec) {
    if (!ec) unpause_clients(core);
  });
}

void unpause_clients(Server::Core& core) {
  core.traffic.pause_until_ms = 0;
  core.traffic.pause_timer.cancel();
  for (auto& [id, client] : core.clients) asio::post(core.io, [client = client] { client->pump(); });
}

void reset_stats(Traffic& traffic) {
  traffic.connections_received = traffic.connections_rejected = traffic.commands_processed = 0;
  traffic.net_input_bytes = traffic.net_output_bytes = 0;
  traffic.peak_rss = 0;
}

namespace {
void close_idle_clients(Server::Core& core) {
  Traffic& traffic = core.traffic;
  if (traffic.idle_timeout_s <= 0 || core.stopped) return;
  const int64_t now = Clock::host_ms();
  std::vector<std::shared_ptr<Connection>> idle;
  for (auto& [id, client] : core.clients)
    if (!client->monitor && !core.model.is_blocked(id) && id != core.running &&  // (running: its script is busy)
        now - client->last_active_ms > traffic.idle_timeout_s * 1000)
      idle.push_back(client);
  for (auto& client : idle) client->close();
  traffic.idle_timer.expires_after(std::chrono::seconds(1));
  traffic.idle_timer.async_wait([&core](const std::error_code& ec) {
    if (!ec) close_idle_clients(core);
  });
}
}  // namespace

void set_idle_timeout(Server::Core& core, int64_t seconds) {
  core.traffic.idle_timeout_s = seconds;
  core.traffic.idle_timer.cancel();
  if (seconds > 0) close_idle_clients(core);
}

}  // namespace locksim::server
