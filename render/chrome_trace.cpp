#include "locksim/render/chrome_trace.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "locksim/render/duration.hpp"

namespace locksim::render {

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20 || c == 0x7f)
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        else
          out += static_cast<char>(c);
    }
  }
  // Invalid UTF-8 would make the file unreadable: replace stray bytes.
  std::string checked;
  checked.reserve(out.size());
  for (size_t i = 0; i < out.size();) {
    unsigned char c = static_cast<unsigned char>(out[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = len > 0 && i + len <= out.size();
    for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(out[i + k]) >> 6) == 2;
    if (ok) {
      checked.append(out, i, len);
      i += len;
    } else {
      checked += "\\ufffd";
      ++i;
    }
  }
  checked += "\"";
  return checked;
}

namespace {

std::string ts(Instant at) {
  int64_t ns = std::max<int64_t>(at.ns, 0);
  return fmt::format("{}.{:03}", ns / 1000, ns % 1000);
}

std::string dur(Duration d) { return ts(Instant{std::max<int64_t>(d.ns, 0)}); }

class Writer {
 public:
  void add(std::string event) {
    out_ += first_ ? "\n" : ",\n";
    out_ += event;
    first_ = false;
  }
  void name_track(int tid, std::string_view name, int order) {
    add(fmt::format(R"({{"ph":"M","pid":1,"tid":{},"name":"thread_name","args":{{"name":{}}}}})", tid,
                    json_string(name)));
    add(fmt::format(R"({{"ph":"M","pid":1,"tid":{},"name":"thread_sort_index","args":{{"sort_index":{}}}}})", tid,
                    order));
  }
  void slice(int tid, std::string_view name, std::string_view cat, Instant from, Instant to, const std::string& args) {
    add(fmt::format(R"({{"ph":"X","pid":1,"tid":{},"name":{},"cat":{},"ts":{},"dur":{},"args":{{{}}}}})", tid,
                    json_string(name), json_string(cat), ts(from), dur(to - from), args));
  }
  void instant(int tid, std::string_view name, std::string_view cat, Instant at, const std::string& args) {
    add(fmt::format(R"({{"ph":"i","s":"t","pid":1,"tid":{},"name":{},"cat":{},"ts":{},"args":{{{}}}}})", tid,
                    json_string(name), json_string(cat), ts(at), args));
  }
  std::string& out() { return out_; }

 private:
  std::string out_;
  bool first_ = true;
};

std::string arg(std::string_view k, std::string_view v) { return json_string(k) + ":" + json_string(v); }

// The track (tid) of each lane: the clients from 1, then the key, the servers, the violations.
struct Tracks {
  const Timeline& t;
  int clients() const { return static_cast<int>(t.clients.size()); }
  int key() const { return clients() + 1; }
  int server(std::string_view name) const {
    for (size_t i = 0; i < t.servers.size(); ++i)
      if (t.servers[i] == name) return clients() + 2 + static_cast<int>(i);
    return -1;
  }
  int violation() const { return clients() + 2 + static_cast<int>(t.servers.size()); }
  int node(std::string_view name) const {
    for (int c = 0; c < clients(); ++c)
      if (t.clients[static_cast<size_t>(c)].name == name) return c + 1;
    int s = server(name);
    return s >= 0 ? s : key();
  }
};

void write_track_names(Writer& w, const Tracks& tracks) {
  const Timeline& t = tracks.t;
  w.add(fmt::format(R"({{"ph":"M","pid":1,"name":"process_name","args":{{"name":{}}}}})",
                    json_string(t.title.empty() ? std::string("locksim") : "locksim: " + t.title)));
  w.add(R"({"ph":"M","pid":1,"name":"process_sort_index","args":{"sort_index":1}})");
  for (int c = 0; c < tracks.clients(); ++c)
    w.name_track(c + 1, "client " + t.clients[static_cast<size_t>(c)].name, c + 1);
  w.name_track(tracks.key(), (t.store == "db" ? "db row " : "key ") + t.key, tracks.key());
  for (const auto& server : t.servers) w.name_track(tracks.server(server), server, tracks.server(server));
  w.name_track(tracks.violation(), "violation", tracks.violation());
}

// A client's states as slices, and its commands as instants (also on the server that ran them).
void write_client(Writer& w, const Tracks& tracks, int c) {
  const Timeline& t = tracks.t;
  const ClientLane& lane = t.clients[static_cast<size_t>(c)];
  for (const auto& s : lane.spans) {
    if (s.state == State::Idle) continue;
    std::string name = s.state == State::Holding   ? "holding " + t.key
                       : s.state == State::Waiting ? "waiting for " + t.key
                       : s.state == State::Paused  ? (s.holding ? "paused (holding)" : "paused")
                                                   : "crashed";
    w.slice(c + 1, name, std::string(to_string(s.state)), s.from, s.to, arg("state", to_string(s.state)));
  }
  for (const auto& cmd : lane.commands) {
    std::string args = arg("command", cmd.text) + "," + arg("reply", cmd.reply) + "," +
                       arg("changed_key", cmd.changed_key ? "yes" : "no");
    w.instant(c + 1, cmd.text.substr(0, 60), "command", cmd.sent, args);
    if (cmd.executed == Instant::never()) continue;
    int tid = tracks.server(cmd.letter == 'R' ? "store" : "redis");
    if (tid >= 0)
      w.instant(tid, cmd.text.substr(0, 60), "command", cmd.executed,
                arg("client", lane.name) + "," + arg("command", cmd.text) + "," + arg("reply", cmd.reply));
  }
}

void write_key(Writer& w, const Tracks& tracks) {
  const Timeline& t = tracks.t;
  for (const auto& k : t.key_spans) {
    std::string who = lane_name(t, k.owner);
    w.slice(tracks.key(), k.ttl ? "held by " + who : "held by " + who + " (no expiry)", "key", k.from, k.to,
            arg("owner", who) + "," + arg("value", k.value) + "," + arg("ttl", k.ttl ? "yes" : "no"));
  }
  for (const auto& m : t.key_moments) {
    std::string name;
    switch (m.kind) {
      case KeyMoment::Kind::Set: name = "set by " + lane_name(t, m.client); break;
      case KeyMoment::Kind::Deleted: name = "deleted by " + lane_name(t, m.client); break;
      case KeyMoment::Kind::Expired: name = "expired"; break;
      case KeyMoment::Kind::Rearmed: name = "expiry re-armed by " + lane_name(t, m.client); break;
      case KeyMoment::Kind::Lost: name = "lost with the server"; break;
    }
    w.instant(tracks.key(), name, "key", m.at,
              arg("previous_owner", m.owner == kNoClient ? std::string("none") : lane_name(t, m.owner)) + "," +
                  arg("command", m.text) + "," + arg("purpose", lock::to_string(m.purpose)));
  }
}

// The faults, the resource's verdicts and acquire give-ups, and the violations.
void write_events(Writer& w, const Tracks& tracks) {
  const Timeline& t = tracks.t;
  for (const auto& f : t.faults) {
    std::string args = arg("node", f.node) + "," + arg("fault", f.what);
    if (f.length.ns > 0) args += "," + arg("length", human_duration(f.length));
    w.instant(tracks.node(f.node), f.node + " " + f.what, "fault", f.at, args);
  }
  for (const auto& e : t.notable) {
    if (e.step == lock::Step::Log || e.step == lock::Step::VariantError) {
      w.instant(static_cast<int>(e.client) + 1, e.step == lock::Step::Log ? "log" : "variant error", "variant", e.at,
                arg("text", e.text));
      continue;
    }
    std::string name = e.step == lock::Step::AcquireFailed   ? "gave up waiting"
                       : e.step == lock::Step::WriteRejected ? "write rejected"
                                                             : "write accepted";
    w.instant(static_cast<int>(e.client) + 1, name, "resource", e.at,
              arg("token", std::to_string(e.token)) + "," + arg("highest_seen", std::to_string(e.highest_seen)));
  }
  for (const auto& h : t.highlights) {
    std::string who;
    for (uint32_t c : h.clients) who += (who.empty() ? "" : ",") + lane_name(t, c);
    Instant to = h.to > h.from ? h.to : h.from + Duration{1000};
    w.slice(tracks.violation(), h.property.empty() ? std::string("violation") : h.property, "violation", h.from, to,
            arg("clients", who) + "," + arg("explanation", h.sentence));
  }
}

}  // namespace

std::string render_chrome_trace(const Timeline& t) {
  Writer w;
  const Tracks tracks{t};
  write_track_names(w, tracks);
  for (int c = 0; c < tracks.clients(); ++c) write_client(w, tracks, c);
  write_key(w, tracks);
  write_events(w, tracks);
  std::string out =
      "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"locksim\",\"title\":" + json_string(t.title) +
      "},\"traceEvents\":[";
  out += w.out();
  out += "\n]}\n";
  return out;
}

}  // namespace locksim::render
