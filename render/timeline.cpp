#include "render/timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "lock/redis_node.hpp"

namespace locksim::render {

using lock::HistoryEvent;
using lock::Step;

std::string_view to_string(State s) {
  switch (s) {
    case State::Idle: return "idle";
    case State::Waiting: return "waiting";
    case State::Holding: return "holding";
    case State::Paused: return "paused";
    case State::Crashed: return "crashed";
  }
  return "?";
}

char command_letter(std::string_view text) {
  std::string_view name = text.substr(0, text.find(' '));
  std::string up(name);
  for (char& c : up) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
  if (up == "SET") return 'S';
  if (up == "SETNX") return 'N';
  if (up == "GETSET") return 'T';
  if (up == "GET") return 'G';
  if (up == "DEL" || up == "UNLINK") return 'D';
  if (up == "EXPIRE" || up == "PEXPIRE" || up == "EXPIREAT" || up == "PEXPIREAT") return 'E';
  if (up == "EVAL" || up == "EVALSHA") return 'L';
  if (up == "WATCH" || up == "UNWATCH") return 'W';
  if (up == "MULTI") return 'M';
  if (up == "EXEC" || up == "DISCARD") return 'X';
  if (up == "INCR" || up == "INCRBY") return 'I';
  if (!up.empty() && up[0] == 'H') return 'H';
  if (up.empty()) return 'R';
  return '?';
}

std::string_view command_letter_name(char letter) {
  switch (letter) {
    case 'S': return "SET";
    case 'N': return "SETNX";
    case 'T': return "GETSET";
    case 'G': return "GET";
    case 'D': return "DEL";
    case 'E': return "(P)EXPIRE";
    case 'L': return "Lua script";
    case 'W': return "WATCH";
    case 'M': return "MULTI";
    case 'X': return "EXEC";
    case 'I': return "INCR";
    case 'H': return "hash command";
    case 'R': return "resource write";
    default: return "other command";
  }
}

std::string lane_name(const Timeline& t, uint32_t client) {
  if (client < t.clients.size()) return t.clients[client].name;
  if (client == kNoClient) return "redis";
  return fmt::format("client{}", client);
}

namespace {

bool is_key_effect(Step s) {
  return s == Step::KeySet || s == Step::KeyDeleted || s == Step::KeyExpireChanged || s == Step::KeyExpired;
}

// The deadline of a key effect, moved from the server's local clock to true time.
Instant deadline_of(const HistoryEvent& e) {
  if (e.expire_at_ms < 0) return Instant::never();
  int64_t local_ns = (e.expire_at_ms - lock::kEpochMs) * 1'000'000;
  return Instant{local_ns + (e.at.ns - e.local.ns)};
}

class LaneBuilder {
 public:
  LaneBuilder(ClientLane& lane, Instant start) : lane_(lane), since_(start) {}

  void apply(const HistoryEvent& e) {
    switch (e.step) {
      case Step::AcquireStart:
        if (e.a == 0 && base_ != State::Holding) base_ = State::Waiting;
        break;
      case Step::AcquireFailed:
        if (e.a == 0) base_ = State::Idle;
        break;
      case Step::Enter: base_ = State::Holding; break;
      case Step::Leave: base_ = State::Idle; break;
      case Step::Crashed:
        crashed_ = true;
        paused_ = false;
        break;
      case Step::Restarted: crashed_ = false; break;
      case Step::Paused: paused_ = true; break;
      case Step::Resumed: paused_ = false; break;
      default: return;
    }
    change(e.at);
    if (e.step == Step::Crashed) base_ = State::Idle;  // the crashed span keeps "was holding"
  }

  void finish(Instant end) {
    if (end > since_ || lane_.spans.empty()) lane_.spans.push_back(Span{since_, std::max(end, since_), shown_, holding_});
  }

 private:
  void change(Instant at) {
    State next = crashed_ ? State::Crashed : paused_ ? State::Paused : base_;
    bool holding = base_ == State::Holding;
    if (next == shown_ && holding == holding_) return;
    if (at > since_) lane_.spans.push_back(Span{since_, at, shown_, holding_});
    since_ = at;
    shown_ = next;
    holding_ = holding;
  }

  ClientLane& lane_;
  Instant since_;
  State base_ = State::Idle, shown_ = State::Idle;
  bool holding_ = false, paused_ = false, crashed_ = false;
};

std::string strip_arrow(std::string s) {
  if (s.rfind("-> ", 0) == 0) s.erase(0, 3);
  return s;
}

}  // namespace

Timeline build_timeline(const lock::History& history, const sim::Trace* trace, const TimelineOptions& options) {
  Timeline t;
  t.title = options.title;
  t.key = options.key;
  t.highlights = options.highlights;
  t.has_commands = trace != nullptr && trace->recording();
  t.start = Instant{};

  const auto& events = history.events();
  Instant end{};
  for (const auto& e : events) end = std::max(end, e.at);
  for (const auto& h : t.highlights) end = std::max(end, h.to);
  if (options.end != Instant::never()) end = options.end;
  t.end = end;

  for (const auto& name : history.clients()) t.clients.push_back(ClientLane{name, {}, {}});

  // --- clients' states ---
  {
    std::vector<LaneBuilder> builders;
    builders.reserve(t.clients.size());
    for (auto& lane : t.clients) builders.emplace_back(lane, t.start);
    for (const auto& e : events) {
      if (e.at > t.end) break;
      if (is_key_effect(e.step) || e.client >= builders.size()) continue;
      builders[e.client].apply(e);
      if (e.step == Step::WriteAccepted || e.step == Step::WriteRejected ||
          (e.step == Step::AcquireFailed && e.a == 0) || e.step == Step::Log || e.step == Step::VariantError)
        t.notable.push_back(e);
    }
    for (auto& b : builders) b.finish(t.end);
  }

  // --- the trace: commands, replies, faults, server names ---
  std::vector<Instant> redis_crashes;
  if (trace) {
    std::map<sim::NodeId, uint32_t> client_of;
    sim::NodeId max_id = 0;
    for (const auto& e : trace->events())
      if (e.node != sim::kNoNode) max_id = std::max(max_id, e.node);
    for (sim::NodeId id = 0; id <= max_id; ++id) {
      const std::string& name = trace->node_name(id);
      if (name == "-") continue;
      bool found = false;
      for (uint32_t c = 0; c < t.clients.size(); ++c)
        if (t.clients[c].name == name) { client_of[id] = c; found = true; }
      if (!found) t.servers.push_back(name);
    }
    std::map<std::pair<int64_t, int64_t>, std::pair<uint32_t, size_t>> calls;  // (conn, call) -> command
    std::set<std::pair<uint32_t, int64_t>> key_changes;                        // (client, at)
    for (const auto& e : events)
      if (e.key == t.key && (e.step == Step::KeySet || e.step == Step::KeyDeleted || e.step == Step::KeyExpireChanged))
        key_changes.insert({e.client, e.at.ns});
    for (const auto& e : trace->events()) {
      if (e.at > t.end) break;
      auto client = client_of.find(e.node);
      switch (e.kind) {
        case sim::TraceKind::CallSent:
          if (client != client_of.end()) {
            auto& cmds = t.clients[client->second].commands;
            Command c;
            c.sent = e.at;
            c.text = e.text.empty() ? "resource write" : e.text;
            c.letter = e.text.empty() ? 'R' : command_letter(e.text);
            calls[{e.a, e.b}] = {client->second, cmds.size()};
            cmds.push_back(std::move(c));
          }
          break;
        case sim::TraceKind::CallExecuted: {
          auto it = calls.find({e.a, e.b});
          if (it != calls.end()) {
            Command& c = t.clients[it->second.first].commands[it->second.second];
            c.executed = e.at;
            c.reply = strip_arrow(e.text);
            c.changed_key = key_changes.count({it->second.first, e.at.ns}) > 0;
          }
          break;
        }
        case sim::TraceKind::CallTimedOut:
        case sim::TraceKind::ConnectionLost: {
          auto it = calls.find({e.a, e.b});
          if (it != calls.end()) {
            Command& c = t.clients[it->second.first].commands[it->second.second];
            c.failed = true;
            if (c.reply.empty()) c.reply = e.kind == sim::TraceKind::CallTimedOut ? "timed out" : "connection lost";
          }
          break;
        }
        case sim::TraceKind::Crash:
          t.faults.push_back({e.at, {}, trace->node_name(e.node), "crash"});
          if (trace->node_name(e.node) == "redis") redis_crashes.push_back(e.at);
          break;
        case sim::TraceKind::Restart: t.faults.push_back({e.at, {}, trace->node_name(e.node), "restart"}); break;
        case sim::TraceKind::Pause:
          t.faults.push_back({e.at, Duration{e.a}, trace->node_name(e.node), "pause"});
          break;
        case sim::TraceKind::ClockJump:
          t.faults.push_back({e.at, Duration{e.a}, trace->node_name(e.node),
                              fmt::format("clock jump {}{}", e.a >= 0 ? "+" : "", sim::format_duration(Duration{e.a}))});
          break;
        case sim::TraceKind::Cut:
          t.faults.push_back({e.at, Duration{e.b}, trace->node_name(e.node),
                              e.text.empty() ? std::string("network cut") : "cut " + e.text});
          break;
        case sim::TraceKind::Heal: t.faults.push_back({e.at, {}, trace->node_name(e.node), "heal"}); break;
        case sim::TraceKind::Reset: t.faults.push_back({e.at, {}, trace->node_name(e.node), "connection reset"}); break;
        default: break;
      }
    }
  } else {
    for (const auto& e : events) {
      if (e.at > t.end) break;
      if (e.client >= t.clients.size()) continue;
      std::string name = t.clients[e.client].name;
      if (e.step == Step::Crashed) t.faults.push_back({e.at, {}, name, "crash"});
      if (e.step == Step::Restarted) t.faults.push_back({e.at, {}, name, "restart"});
      if (e.step == Step::Paused) t.faults.push_back({e.at, {}, name, "pause"});
    }
    // Pause lengths from the matching resume.
    for (auto& f : t.faults) {
      if (f.what != "pause") continue;
      for (const auto& e : events)
        if (e.step == Step::Resumed && e.at >= f.at && history.client_name(e.client) == f.node) {
          f.length = e.at - f.at;
          break;
        }
    }
  }

  // --- the lock key ---
  {
    bool present = false;
    KeySpan cur;
    Instant deadline = Instant::never();
    size_t next_crash = 0;
    auto close = [&](Instant at, KeyMoment::Kind kind, uint32_t by, lock::Purpose purpose) {
      cur.to = at;
      if (cur.to > cur.from) t.key_spans.push_back(cur);
      t.key_moments.push_back(KeyMoment{at, kind, by, cur.owner, purpose, {}});
      present = false;
      deadline = Instant::never();
    };
    auto settle = [&](Instant until) {
      for (;;) {
        Instant crash = next_crash < redis_crashes.size() ? redis_crashes[next_crash] : Instant::never();
        if (crash > until) crash = Instant::never();
        if (present && deadline <= until && deadline <= crash) {
          close(deadline, KeyMoment::Kind::Expired, kNoClient, lock::Purpose::Other);
          continue;
        }
        if (crash == Instant::never()) return;
        ++next_crash;
        if (present) close(crash, KeyMoment::Kind::Lost, kNoClient, lock::Purpose::Other);
      }
    };
    for (const auto& e : events) {
      if (!is_key_effect(e.step) || e.key != t.key) continue;
      if (e.at > t.end) break;
      settle(e.at);
      switch (e.step) {
        case Step::KeySet: {
          std::string value = e.new_value.value_or("");
          if (present && cur.owner == e.client) {
            // The owner changed its own key (a reentrant count, say): one span.
            cur.value = value;
          } else {
            uint32_t before = present ? cur.owner : kNoClient;
            if (present) {
              cur.to = e.at;
              if (cur.to > cur.from) t.key_spans.push_back(cur);
            }
            cur = KeySpan{e.at, e.at, e.client, value, false};
            t.key_moments.push_back(KeyMoment{e.at, KeyMoment::Kind::Set, e.client, before, e.purpose, {}});
            present = true;
          }
          cur.ttl = e.expire_at_ms >= 0;
          deadline = deadline_of(e);
          break;
        }
        case Step::KeyExpireChanged:
          if (present) {
            cur.ttl = e.expire_at_ms >= 0;
            deadline = deadline_of(e);
            t.key_moments.push_back(KeyMoment{e.at, KeyMoment::Kind::Rearmed, e.client, cur.owner, e.purpose, {}});
          }
          break;
        case Step::KeyDeleted:
          if (present) close(e.at, KeyMoment::Kind::Deleted, e.client, e.purpose);
          else t.key_moments.push_back(KeyMoment{e.at, KeyMoment::Kind::Deleted, e.client, kNoClient, e.purpose, {}});
          break;
        case Step::KeyExpired:
          if (present) close(e.at, KeyMoment::Kind::Expired, kNoClient, lock::Purpose::Other);
          break;
        default: break;
      }
    }
    settle(t.end);
    if (present) {
      cur.to = t.end;
      if (cur.to > cur.from) t.key_spans.push_back(cur);
    }
  }

  // The command behind each key moment, when the trace says.
  if (t.has_commands) {
    for (auto& m : t.key_moments) {
      if (m.client >= t.clients.size()) continue;
      for (const auto& c : t.clients[m.client].commands)
        if (c.executed == m.at && c.changed_key) { m.text = c.text; break; }
    }
  }
  return t;
}

}  // namespace locksim::render
