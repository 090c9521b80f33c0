#include "locksim/render/timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

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
    // The history's key steps change no client's state: the key lane is the ledger's (add_key_spans).
    if (e.client >= builders.size()) continue;
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
    case sim::TraceKind::Heal:
      t.faults.push_back({e.at, {}, node, e.text.empty() ? std::string("heal") : "heal " + e.text});
      return true;
    case sim::TraceKind::Reset: t.faults.push_back({e.at, {}, node, "connection reset"}); return true;
    case sim::TraceKind::MessageDropped:  // only the losses a fault aimed at one call (call=A:N:...-lost)
      if (e.drop_reason() == sim::DropReason::RequestLost) t.faults.push_back({e.at, {}, node, "request lost"});
      if (e.drop_reason() == sim::DropReason::ReplyLost) t.faults.push_back({e.at, {}, node, "reply lost"});
      return e.drop_reason() == sim::DropReason::RequestLost || e.drop_reason() == sim::DropReason::ReplyLost;
    default: return false;
  }
}

// The commands of the client lanes, followed from sent to executed (or failed).
class CommandTracker {
 public:
  CommandTracker(Timeline& t, const lock::Ledger& ledger) : t_(t) {
    for (const lock::LockFact& f : ledger.facts())
      if (ledger.instance(f.instance).key == t.key && f.client != kNoClient) key_changes_.insert({f.client, f.at.ns});
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

// Reads the trace into the timeline.
void add_trace(Timeline& t, const lock::Ledger& ledger, const sim::Trace& trace) {
  const std::map<sim::NodeId, uint32_t> client_of = map_trace_nodes(t, trace);
  CommandTracker commands(t, ledger);
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
        add_trace_fault(t, e, trace.node_name(e.node));
        break;
    }
  }
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
    if (e.step == Step::CallLost) t.faults.push_back({e.at, {}, name, e.status ? "reply lost" : "request lost"});
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

// The requests a fault held in flight (call=A:N:delay:D): the history has them, trace or not.
void add_call_delays(Timeline& t, const lock::History& history) {
  for (const auto& e : history.events()) {
    if (e.at > t.end) break;
    if (e.step != Step::CallDelayed || e.client >= t.clients.size()) continue;
    const bool write = e.purpose == lock::Purpose::Resource;
    t.faults.push_back({e.at, Duration{e.status}, t.clients[e.client].name,
                        fmt::format("delayed {} {}", write ? "write" : "call", e.token)});
  }
}

// --- the lock key ---

// The node the key lane shows at `at`: the database, or the first Redis node
// (the master, then the replica once promoted; with several masters, the first).
struct LaneNode {
  const lock::Ledger& ledger;
  bool database = false;
  uint32_t at(Instant when) const {
    if (database) return lock::kDatabaseNode;
    if (ledger.has_replica() && ledger.promoted_at() && when >= *ledger.promoted_at()) return ledger.replica();
    return 0;
  }
  // The part of [from, to) during which `node` is the one shown.
  std::pair<Instant, Instant> window(uint32_t node, Instant from, Instant to) const {
    if (database || !ledger.has_replica()) return {from, to};
    const Instant promoted = ledger.promoted_at().value_or(Instant::never());
    if (node == ledger.replica()) return {std::max(from, promoted), to};
    return {from, std::min(to, promoted)};
  }
};

std::string why_lost(const lock::LockInstance& i) {
  switch (i.end) {
    case lock::InstanceEnd::LostInFailover: return "lost in the failover: the promoted replica never had it";
    case lock::InstanceEnd::LostWithServer:
      return i.node == lock::kDatabaseNode ? "lost: the database ended the transaction that held it"
                                           : "lost: the Redis server crashed without persistence";
    default: return "lost";
  }
}

KeyMoment moment(Instant at, KeyMoment::Kind kind, uint32_t client, uint32_t owner, lock::Purpose purpose) {
  KeyMoment m;
  m.at = at;
  m.kind = kind;
  m.client = client;
  m.owner = owner;
  m.purpose = purpose;
  return m;
}

// Who held the key when (the ledger's instances where clients found them), and
// the moments it changed hands, was re-armed, expired, was deleted or was lost.
void add_key_spans(Timeline& t, const lock::Ledger& ledger) {
  LaneNode lane{ledger, false};
  for (const lock::LockInstance& i : ledger.instances())
    if (i.key == t.key && i.node == lock::kDatabaseNode) lane.database = true;
  if (lane.database) t.store = "db";
  std::vector<uint32_t> predecessor(ledger.instances().size(), kNoClient);
  for (const lock::LockInstance& i : ledger.instances())
    if (i.end == lock::InstanceEnd::Overwritten && i.successor != lock::kNoInstance) predecessor[i.successor] = i.owner;
  std::vector<std::pair<Instant, Instant>> shown(ledger.instances().size(), {Instant::never(), Instant::never()});
  for (const lock::LockInstance& i : ledger.instances()) {
    if (i.key != t.key || (lane.database != (i.node == lock::kDatabaseNode))) continue;
    if (!lane.database && i.node != 0 && !(ledger.has_replica() && i.node == ledger.replica())) continue;
    const Instant over = i.over() == Instant::never() ? t.end : std::min(i.over(), t.end);
    auto [from, to] = lane.window(i.node, i.granted, over);
    if (from > t.end || to < from || (to == from && i.granted != from)) continue;
    shown[i.id] = {from, to};
    if (to > from) t.key_spans.push_back(KeySpan{from, to, i.owner, i.value, i.deadline != Instant::never()});
  }
  for (const lock::LockFact& f : ledger.facts()) {
    const lock::LockInstance& i = ledger.instance(f.instance);
    const auto [from, to] = shown[f.instance];
    if (from == Instant::never() || f.at > t.end) continue;
    switch (f.kind) {
      case lock::FactKind::Granted:
      case lock::FactKind::Visible:
        if (f.at == from) t.key_moments.push_back(moment(from, KeyMoment::Kind::Set, i.owner, predecessor[i.id], f.purpose));
        break;
      case lock::FactKind::Rearmed:
      case lock::FactKind::RearmedByOther:
        if (f.at >= from && f.at < to)
          t.key_moments.push_back(moment(f.at, KeyMoment::Kind::Rearmed, f.client, i.owner, f.purpose));
        break;
      case lock::FactKind::Ended: {
        if (f.at != to && i.ended != to) break;  // past the lane's window (a failover moved it on)
        switch (i.end) {
          case lock::InstanceEnd::Released:
          case lock::InstanceEnd::ReleasedByOther:
            t.key_moments.push_back(moment(i.ended, KeyMoment::Kind::Deleted, i.ended_by, i.owner, i.ended_purpose));
            break;
          case lock::InstanceEnd::Expired:
            t.key_moments.push_back(moment(i.ended, KeyMoment::Kind::Expired, kNoClient, i.owner, lock::Purpose::Other));
            break;
          case lock::InstanceEnd::LostWithServer:
          case lock::InstanceEnd::LostInFailover: {
            KeyMoment m = moment(i.ended, KeyMoment::Kind::Lost, kNoClient, i.owner, lock::Purpose::Other);
            m.why = why_lost(i);
            t.key_moments.push_back(std::move(m));
            break;
          }
          default: break;  // overwritten: the successor's grant says so; handed over: its copy goes on
        }
        break;
      }
    }
  }
  // Still live past its deadline (nobody touched it): it expired then.
  for (const lock::LockInstance& i : ledger.instances()) {
    const auto [from, to] = shown[i.id];
    if (from == Instant::never() || !i.live() || i.deadline == Instant::never() || i.deadline > t.end) continue;
    t.key_moments.push_back(moment(i.deadline, KeyMoment::Kind::Expired, kNoClient, i.owner, lock::Purpose::Other));
  }
  std::stable_sort(t.key_moments.begin(), t.key_moments.end(),
                   [](const KeyMoment& a, const KeyMoment& b) { return a.at < b.at; });
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

// Whether the ledger shows `client` granted (acquire) or ending (release) an instance of `key`
// in [from, to]: a nested acquire that set the key anew, an inner release that ended it.
bool changed_key(const lock::Ledger& ledger, const std::string& key, uint32_t client, bool release, Instant from,
                 Instant to) {
  for (const lock::LockFact& f : ledger.facts()) {
    if (f.client != client || f.at < from || f.at > to) continue;
    const lock::LockInstance& i = ledger.instance(f.instance);
    if (i.key != key || i.copy) continue;
    if (!release && f.kind == lock::FactKind::Granted) return true;
    if (release && f.kind == lock::FactKind::Ended && i.end == lock::InstanceEnd::Released) return true;
  }
  return false;
}

// The nested acquires and inner releases, from the clients' steps and the ledger.
void add_nested(Timeline& t, const lock::History& history) {
  std::map<uint32_t, Instant> acquiring, releasing;  // client -> when its inner step set out
  for (const auto& e : history.events()) {
    if (e.at > t.end) break;
    if (e.client >= t.clients.size() || e.depth <= 0) continue;
    if (e.step == Step::AcquireStart) acquiring[e.client] = e.at;
    if (e.step == Step::ReleaseStart) releasing[e.client] = e.at;
    const bool acquired = e.step == Step::Acquired || e.step == Step::AcquireFailed;
    if (!acquired && e.step != Step::Released) continue;
    auto& open = acquired ? acquiring : releasing;
    auto from = open.find(e.client);
    if (from == open.end()) continue;
    NestedStep n;
    n.from = from->second;
    n.at = e.at;
    n.client = e.client;
    n.depth = e.depth;
    n.release = !acquired;
    n.gave_up = e.step == Step::AcquireFailed;
    n.changed = changed_key(history.ledger(), t.key, e.client, n.release, n.from, n.at);
    t.nested.push_back(n);
    open.erase(from);
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
  if (trace)
    add_trace(t, history.ledger(), *trace);
  else
    add_history_faults(t, history);
  add_call_delays(t, history);
  add_key_spans(t, history.ledger());
  add_nested(t, history);
  if (t.has_commands) attach_key_commands(t);
  return t;
}

}  // namespace locksim::render
