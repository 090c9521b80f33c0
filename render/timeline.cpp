#include "locksim/render/timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "locksim/lock/unix_time.hpp"

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

// The database locks' statements (sim/db/statement.cpp's SQL).
static char sql_letter(const std::string& verb, std::string_view text) {
  if (verb == "BEGIN") return 'B';
  if (verb == "COMMIT") return 'C';
  if (verb == "ROLLBACK") return 'K';
  if (verb == "INSERT") return 'P';
  if (verb == "DELETE") return 'Z';
  if (verb == "UPDATE") return 'U';
  if (verb == "SELECT") return text.ends_with("FOR UPDATE") ? 'F' : 'Q';
  return '?';
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
  return sql_letter(up, text);
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
    case 'B': return "BEGIN";
    case 'C': return "COMMIT";
    case 'K': return "ROLLBACK";
    case 'P': return "INSERT";
    case 'Z': return "DELETE";
    case 'U': return "UPDATE";
    case 'Q': return "SELECT";
    case 'F': return "SELECT ... FOR UPDATE";
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
  int64_t local_ns = lock::from_unix_ms(e.expire_at_ms).ns;
  return Instant{local_ns + (e.at.ns - e.local.ns)};
}

class LaneBuilder {
 public:
  LaneBuilder(ClientLane& lane, Instant start) : lane_(lane), since_(start) {}

  void apply(const HistoryEvent& e) {
    switch (e.step) {
      case Step::AcquireStart:
        if (e.depth == 0 && base_ != State::Holding) base_ = State::Waiting;
        break;
      case Step::AcquireFailed:
        if (e.depth == 0) base_ = State::Idle;
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
    if (end > since_ || lane_.spans.empty())
      lane_.spans.push_back(Span{since_, std::max(end, since_), shown_, holding_});
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

// --- clients' states ---

void add_client_states(Timeline& t, const std::vector<HistoryEvent>& events) {
  std::vector<LaneBuilder> builders;
  builders.reserve(t.clients.size());
  for (auto& lane : t.clients) builders.emplace_back(lane, t.start);
  for (const auto& e : events) {
    if (e.at > t.end) break;
    if (is_key_effect(e.step) || e.client >= builders.size()) continue;
    builders[e.client].apply(e);
    if (e.step == Step::WriteAccepted || e.step == Step::WriteRejected ||
        (e.step == Step::AcquireFailed && e.depth == 0) || e.step == Step::Log || e.step == Step::VariantError)
      t.notable.push_back(e);
  }
  for (auto& b : builders) b.finish(t.end);
}

// --- the trace: commands, replies, faults, server names ---

// Which trace node is which client lane; the other named nodes are servers.
std::map<sim::NodeId, uint32_t> map_trace_nodes(Timeline& t, const sim::Trace& trace) {
  std::map<sim::NodeId, uint32_t> client_of;
  sim::NodeId max_id = 0;
  for (const auto& e : trace.events())
    if (e.node != sim::kNoNode) max_id = std::max(max_id, e.node);
  for (sim::NodeId id = 0; id <= max_id; ++id) {
    const std::string& name = trace.node_name(id);
    if (name == "-") continue;
    bool found = false;
    for (uint32_t c = 0; c < t.clients.size(); ++c)
      if (t.clients[c].name == name) {
        client_of[id] = c;
        found = true;
      }
    if (!found) t.servers.push_back(name);
  }
  return client_of;
}

// A fault of the trace as a mark; false if the event is not a fault.
bool add_trace_fault(Timeline& t, const sim::TraceEvent& e, const std::string& node) {
  switch (e.kind) {
    case sim::TraceKind::Crash: t.faults.push_back({e.at, {}, node, "crash"}); return true;
    case sim::TraceKind::Restart: t.faults.push_back({e.at, {}, node, "restart"}); return true;
    case sim::TraceKind::Pause: t.faults.push_back({e.at, e.span(), node, "pause"}); return true;
    case sim::TraceKind::ClockJump:
      t.faults.push_back({e.at, e.span(), node,
                          fmt::format("clock jump {}{}", e.span().ns >= 0 ? "+" : "", sim::format_duration(e.span()))});
      return true;
    case sim::TraceKind::Cut:
      t.faults.push_back({e.at, e.span(), node, e.text.empty() ? std::string("network cut") : "cut " + e.text});
      return true;
    case sim::TraceKind::Heal: t.faults.push_back({e.at, {}, node, "heal"}); return true;
    case sim::TraceKind::Reset: t.faults.push_back({e.at, {}, node, "connection reset"}); return true;
    default: return false;
  }
}

// The commands of the client lanes, followed from sent to executed (or failed).
class CommandTracker {
 public:
  CommandTracker(Timeline& t, const std::vector<HistoryEvent>& events) : t_(t) {
    for (const auto& e : events)
      if (e.key == t.key && (e.step == Step::KeySet || e.step == Step::KeyDeleted || e.step == Step::KeyExpireChanged))
        key_changes_.insert({e.client, e.at.ns});
  }

  void sent(const sim::TraceEvent& e, uint32_t client) {
    auto& cmds = t_.clients[client].commands;
    Command c;
    c.sent = e.at;
    c.text = e.text.empty() ? "resource write" : e.text;
    c.letter = e.text.empty() ? 'R' : command_letter(e.text);
    calls_[{e.connection(), e.call()}] = {client, cmds.size()};
    cmds.push_back(std::move(c));
  }
  void executed(const sim::TraceEvent& e) {
    auto it = calls_.find({e.connection(), e.call()});
    if (it == calls_.end()) return;
    Command& c = t_.clients[it->second.first].commands[it->second.second];
    c.executed = e.at;
    c.reply = strip_arrow(e.text);
    c.changed_key = key_changes_.count({it->second.first, e.at.ns}) > 0;
  }
  void failed(const sim::TraceEvent& e) {
    auto it = calls_.find({e.connection(), e.call()});
    if (it == calls_.end()) return;
    Command& c = t_.clients[it->second.first].commands[it->second.second];
    c.failed = true;
    if (c.reply.empty()) c.reply = e.kind == sim::TraceKind::CallTimedOut ? "timed out" : "connection lost";
  }

 private:
  Timeline& t_;
  std::map<std::pair<int64_t, int64_t>, std::pair<uint32_t, size_t>> calls_;  // (conn, call) -> command
  std::set<std::pair<uint32_t, int64_t>> key_changes_;                        // (client, at)
};

// Reads the trace into the timeline; returns when the Redis node crashed.
std::vector<Instant> add_trace(Timeline& t, const std::vector<HistoryEvent>& events, const sim::Trace& trace) {
  std::vector<Instant> redis_crashes;
  const std::map<sim::NodeId, uint32_t> client_of = map_trace_nodes(t, trace);
  CommandTracker commands(t, events);
  for (const auto& e : trace.events()) {
    if (e.at > t.end) break;
    auto client = client_of.find(e.node);
    switch (e.kind) {
      case sim::TraceKind::CallSent:
        if (client != client_of.end()) commands.sent(e, client->second);
        break;
      case sim::TraceKind::CallExecuted:
        if (trace.node_name(e.node) == "db") t.store = "db";
        commands.executed(e);
        break;
      case sim::TraceKind::CallTimedOut:
      case sim::TraceKind::ConnectionLost: commands.failed(e); break;
      default:
        if (e.kind == sim::TraceKind::CallDeferred && trace.node_name(e.node) == "db") t.store = "db";
        if (add_trace_fault(t, e, trace.node_name(e.node)) && e.kind == sim::TraceKind::Crash &&
            trace.node_name(e.node) == "redis")
          redis_crashes.push_back(e.at);
        break;
    }
  }
  return redis_crashes;
}

// Without a trace, the faults that struck clients, from the history.
void add_history_faults(Timeline& t, const lock::History& history) {
  const auto& events = history.events();
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

// Who held the key when: its spans and the moments it changed hands, with the
// expiries and the crashes of Redis (without persistence) that ended spans.
class KeyTracker {
 public:
  KeyTracker(Timeline& t, std::vector<Instant> redis_crashes) : t_(t), redis_crashes_(std::move(redis_crashes)) {}

  void apply(const HistoryEvent& e) {
    settle(e.at);
    switch (e.step) {
      case Step::KeySet: set(e); break;
      case Step::KeyExpireChanged:
        if (!present_) break;
        cur_.ttl = e.expire_at_ms >= 0;
        deadline_ = deadline_of(e);
        t_.key_moments.push_back(KeyMoment{e.at, KeyMoment::Kind::Rearmed, e.client, cur_.owner, e.purpose, {}});
        break;
      case Step::KeyDeleted:
        if (present_)
          close(e.at, KeyMoment::Kind::Deleted, e.client, e.purpose);
        else
          t_.key_moments.push_back(KeyMoment{e.at, KeyMoment::Kind::Deleted, e.client, kNoClient, e.purpose, {}});
        break;
      case Step::KeyExpired:
        if (present_) close(e.at, KeyMoment::Kind::Expired, kNoClient, lock::Purpose::Other);
        break;
      default: break;
    }
  }

  void finish() {
    settle(t_.end);
    if (!present_) return;
    cur_.to = t_.end;
    if (cur_.to > cur_.from) t_.key_spans.push_back(cur_);
  }

 private:
  void set(const HistoryEvent& e) {
    std::string value = e.new_value.value_or("");
    if (present_ && cur_.owner == e.client) {
      cur_.value = value;  // the owner changed its own key (a reentrant count, say): one span
    } else {
      uint32_t before = present_ ? cur_.owner : kNoClient;
      if (present_) {
        cur_.to = e.at;
        if (cur_.to > cur_.from) t_.key_spans.push_back(cur_);
      }
      cur_ = KeySpan{e.at, e.at, e.client, value, false};
      t_.key_moments.push_back(KeyMoment{e.at, KeyMoment::Kind::Set, e.client, before, e.purpose, {}});
      present_ = true;
    }
    cur_.ttl = e.expire_at_ms >= 0;
    deadline_ = deadline_of(e);
  }

  void close(Instant at, KeyMoment::Kind kind, uint32_t by, lock::Purpose purpose) {
    cur_.to = at;
    if (cur_.to > cur_.from) t_.key_spans.push_back(cur_);
    t_.key_moments.push_back(KeyMoment{at, kind, by, cur_.owner, purpose, {}});
    present_ = false;
    deadline_ = Instant::never();
  }

  // Ends the span at its expiry or at a Redis crash, whichever came first, up to `until`.
  void settle(Instant until) {
    for (;;) {
      Instant crash = next_crash_ < redis_crashes_.size() ? redis_crashes_[next_crash_] : Instant::never();
      if (crash > until) crash = Instant::never();
      if (present_ && deadline_ <= until && deadline_ <= crash) {
        close(deadline_, KeyMoment::Kind::Expired, kNoClient, lock::Purpose::Other);
        continue;
      }
      if (crash == Instant::never()) return;
      ++next_crash_;
      if (present_) close(crash, KeyMoment::Kind::Lost, kNoClient, lock::Purpose::Other);
    }
  }

  Timeline& t_;
  std::vector<Instant> redis_crashes_;
  size_t next_crash_ = 0;
  bool present_ = false;
  KeySpan cur_;
  Instant deadline_ = Instant::never();
};

void add_key_spans(Timeline& t, const std::vector<HistoryEvent>& events, std::vector<Instant> redis_crashes,
                   bool replica) {
  KeyTracker key(t, std::move(redis_crashes));
  bool promoted = false;
  for (const auto& e : events) {
    if (e.at > t.end) break;
    if (e.step == Step::ReplicaPromoted) promoted = true;
    if (!is_key_effect(e.step) || e.key != t.key) continue;
    if (replica && (e.server == 1) != promoted) continue;
    key.apply(e);
  }
  key.finish();
}

// The command behind each key moment, when the trace says.
void attach_key_commands(Timeline& t) {
  for (auto& m : t.key_moments) {
    if (m.client >= t.clients.size()) continue;
    for (const auto& c : t.clients[m.client].commands)
      if (c.executed == m.at && c.changed_key) {
        m.text = c.text;
        break;
      }
  }
}

Instant timeline_end(const lock::History& history, const TimelineOptions& options) {
  if (options.end != Instant::never()) return options.end;
  Instant end{};
  for (const auto& e : history.events()) end = std::max(end, e.at);
  for (const auto& h : options.highlights) end = std::max(end, h.to);
  return end;
}

}  // namespace

Timeline build_timeline(const lock::History& history, const sim::Trace* trace, const TimelineOptions& options) {
  Timeline t;
  t.title = options.title;
  t.key = options.key;
  t.highlights = options.highlights;
  t.has_commands = trace != nullptr && trace->recording();
  t.start = Instant{};
  t.end = timeline_end(history, options);
  for (const auto& name : history.clients()) t.clients.push_back(ClientLane{name, {}, {}});

  add_client_states(t, history.events());
  std::vector<Instant> redis_crashes;
  if (trace)
    redis_crashes = add_trace(t, history.events(), *trace);
  else
    add_history_faults(t, history);
  add_key_spans(t, history.events(), std::move(redis_crashes), options.replica);
  if (t.has_commands) attach_key_commands(t);
  return t;
}

}  // namespace locksim::render
