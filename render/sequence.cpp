#include "locksim/render/sequence.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "locksim/base/assert.hpp"
#include "locksim/render/duration.hpp"
#include "locksim/render/svg.hpp"

namespace locksim::render {

namespace {

const char* owner_colour(uint32_t owner) {
  static const char* palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#bcbd22"};
  if (owner == kNoClient) return "#999999";
  return palette[owner % (sizeof palette / sizeof *palette)];
}

std::string seconds(Instant at) { return fmt::format("{:.3f}s", static_cast<double>(at.ns) / 1e9); }

// An event of the run that gets a label, and so a row of its own.
struct Labelled {
  Instant at;
  int order = 0;  // among events at one instant: faults, commands, key effects, writes, the violation
  std::string text;
  std::string css;
  double x = 0;  // where the label starts
};

// Commands a client repeats while it waits (the same command failing the same
// way) are drawn as arrows, and only the first of each run is labelled.
// A write to the fenced resource: drawn on the resource's lane, not as a command to Redis.
bool to_resource(const Command& c) { return c.letter == 'R'; }

bool repeats(const Command& a, const Command& b) {
  auto name = [](const std::string& text) { return text.substr(0, text.find(' ')); };
  return !a.changed_key && !b.changed_key && name(a.text) == name(b.text) && a.reply == b.reply &&
         a.failed == b.failed;
}

std::string reply_text(const Command& c) {
  if (c.failed) return "no reply";
  return c.reply.empty() ? "?" : c.reply;
}

// At most this many characters: a Lua script's body would fill the picture.
std::string shortened(std::string text, size_t most) {
  if (text.size() <= most) return text;
  return text.substr(0, most - 3) + "...";
}

std::string key_moment_text(const Timeline& t, const KeyMoment& m) {
  const std::string owner = m.owner == kNoClient ? "the" : lane_name(t, m.owner) + "'s";
  switch (m.kind) {
    case KeyMoment::Kind::Set: return fmt::format("{} key set by {}", t.key, lane_name(t, m.client));
    case KeyMoment::Kind::Deleted:
      if (m.owner != kNoClient && m.owner != m.client)
        return fmt::format("{} deletes {} key!", lane_name(t, m.client), owner);
      return fmt::format("{} key deleted by {}", owner, lane_name(t, m.client));
    case KeyMoment::Kind::Expired: return fmt::format("{} key expired", owner);
    case KeyMoment::Kind::Rearmed: return "";  // renewals: their command says it
    case KeyMoment::Kind::Lost: return fmt::format("{} key lost", owner);
  }
  return "";
}

class Drawing {
 public:
  Drawing(const Timeline& t, const SequenceOptions& o) : t_(t), o_(o) {}

  SequenceLayout draw() {
    place_lanes();
    collect();
    assign_rows();
    std::string body;
    body += lifelines();
    body += faults();
    body += holds();
    body += key_bar();
    body += violations();
    body += commands();
    body += writes();
    body += labels();
    body += caption();
    finish(body);
    return std::move(out_);
  }

 private:
  const Timeline& t_;
  const SequenceOptions& o_;
  SequenceLayout out_;
  std::vector<double> client_x_;
  double server_x_ = 0, key_x_ = 0, resource_x_ = -1, top_ = 0, bottom_ = 0;
  std::vector<Labelled> events_;
  std::vector<double> rows_;  // events_[i]'s y
  std::string server_name_;

  double char_width() const { return o_.font_size * 0.62; }
  double text_width(const std::string& s) const { return static_cast<double>(s.size()) * char_width(); }

  bool has_writes() const {
    return std::any_of(t_.notable.begin(), t_.notable.end(), [](const lock::HistoryEvent& e) {
      return e.step == lock::Step::WriteAccepted || e.step == lock::Step::WriteRejected;
    });
  }

  void place_lanes() {
    double x = 110;
    for (size_t c = 0; c < t_.clients.size(); ++c, x += 150) client_x_.push_back(x);
    server_x_ = x + 30;
    key_x_ = server_x_ + 18;
    if (has_writes()) resource_x_ = key_x_ + 170;
    size_t redis_nodes = 0;
    for (const std::string& node : t_.servers) redis_nodes += node.rfind("redis", 0) == 0 || node == "replica";
    server_name_ = t_.store == "db" ? "database" : redis_nodes > 1 ? "redis (all)" : "redis";
    top_ = 58;
  }

  double client_x(uint32_t c) const { return c < client_x_.size() ? client_x_[c] : server_x_; }

  void add(Instant at, int order, std::string text, std::string css, double x) {
    if (text.empty()) return;
    events_.push_back({at, order, std::move(text), std::move(css), x});
  }

  void collect() {
    for (const FaultMark& f : t_.faults) {
      std::string what = f.what;
      if (f.length > Duration{}) what += " for " + human_duration(f.length);
      double x = server_x_ + 6;
      for (size_t c = 0; c < t_.clients.size(); ++c)
        if (t_.clients[c].name == f.node) x = client_x_[c] - 40;
      add(f.at, 0, fmt::format("{}: {}", f.node, what), "fault", x);
    }
    for (size_t c = 0; c < t_.clients.size(); ++c) {
      const auto& cmds = t_.clients[c].commands;
      for (size_t i = 0; i < cmds.size(); ++i) {
        if (to_resource(cmds[i]) || (i > 0 && repeats(cmds[i - 1], cmds[i]))) continue;
        size_t n = 1;
        while (i + n < cmds.size() && repeats(cmds[i + n - 1], cmds[i + n])) ++n;
        std::string text = fmt::format("{}: {} -> {}", t_.clients[c].name, shortened(cmds[i].text, 44),
                                       shortened(reply_text(cmds[i]), 16));
        if (n > 1) text += fmt::format("  (x{}, until {})", n, seconds(cmds[i + n - 1].sent));
        add(cmds[i].sent, 1, std::move(text), cmds[i].failed ? "failed" : "cmd", client_x_[c] + 6);
      }
    }
    for (const KeyMoment& m : t_.key_moments) add(m.at, 2, key_moment_text(t_, m), "key", key_x_ + 18);
    for (const lock::HistoryEvent& e : t_.notable) {
      if (e.step != lock::Step::WriteAccepted && e.step != lock::Step::WriteRejected) continue;
      const bool rejected = e.step == lock::Step::WriteRejected;
      std::string text =
          rejected ? fmt::format("{} writes with token {}: REJECTED (the resource has seen {})",
                                 lane_name(t_, e.client), e.token, e.highest_seen)
                   : fmt::format("{} writes with token {}: accepted", lane_name(t_, e.client), e.token);
      add(e.at, 3, std::move(text), rejected ? "rejected" : "write", resource_x_ + 6);
    }
    for (const Highlight& h : t_.highlights) {
      std::string who;
      for (uint32_t c : h.clients) who += (who.empty() ? "" : " and ") + lane_name(t_, c);
      add(h.from, 4, fmt::format("{} broken ({}), {} to {}", h.property, who, seconds(h.from), seconds(h.to)),
          "violation", client_x_.empty() ? server_x_ : client_x_.front() - 40);
    }
    std::stable_sort(events_.begin(), events_.end(),
                     [](const Labelled& a, const Labelled& b) { return std::tie(a.at, a.order) < std::tie(b.at, b.order); });
    out_.steps = static_cast<int>(events_.size());
    for (const Labelled& e : events_) out_.step_text.push_back(seconds(e.at) + "  " + e.text);
  }

  // Each labelled event gets a row: at its time to scale, or the row after the last when they crowd.
  void assign_rows() {
    double last = top_;
    for (const Labelled& e : events_) {
      const double scaled = top_ + o_.row + static_cast<double>((e.at - t_.start).ns) / 1e6 * o_.pixels_per_ms;
      last = std::max(scaled, last + o_.row);
      rows_.push_back(last);
    }
    const double scaled_end = top_ + o_.row + static_cast<double>((t_.end - t_.start).ns) / 1e6 * o_.pixels_per_ms;
    bottom_ = std::max(last + o_.row, scaled_end);
  }

  // The y of an instant: the row of the first event at it, or between the rows around it.
  double y(Instant at) const {
    if (at >= t_.end) return bottom_;
    for (size_t i = 0; i < events_.size(); ++i) {
      if (events_[i].at < at) continue;
      if (events_[i].at == at) return rows_[i];
      const Instant before_at = i == 0 ? t_.start : events_[i - 1].at;
      const double before_y = i == 0 ? top_ + o_.row : rows_[i - 1];
      const double share = static_cast<double>((at - before_at).ns) / static_cast<double>((events_[i].at - before_at).ns);
      return before_y + (rows_[i] - before_y) * share;
    }
    const Instant after_at = events_.empty() ? t_.start : events_.back().at;
    const double after_y = events_.empty() ? top_ + o_.row : rows_.back();
    const double share = static_cast<double>((at - after_at).ns) / static_cast<double>(std::max<int64_t>(1, (t_.end - after_at).ns));
    return after_y + (bottom_ - after_y) * share;
  }

  // The step at which something beginning at `at` appears: that of the first labelled event at or after it.
  int step_of(Instant at) const {
    for (size_t i = 0; i < events_.size(); ++i)
      if (events_[i].at >= at) return static_cast<int>(i) + 1;
    return std::max(1, out_.steps);
  }

  std::string step_attr(int step) const { return o_.steps && step > 0 ? fmt::format(" data-step=\"{}\"", step) : ""; }

  void label(double x, double row_y, std::string text, std::string css, int step) {
    SequenceLabel l;
    l.box = {x, row_y - o_.font_size, text_width(text), o_.font_size + 3};
    l.text = std::move(text);
    l.css = std::move(css);
    l.step = step;
    out_.labels.push_back(std::move(l));
  }

  std::string lifelines() {
    std::string s;
    auto lane = [&](double x, const std::string& name) {
      label(x - text_width(name) / 2, top_ - 6, name, "lane", 0);
      return fmt::format("<line class=\"life\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\"/>\n", x, top_,
                         x, bottom_);
    };
    for (size_t c = 0; c < t_.clients.size(); ++c) s += lane(client_x_[c], "client " + t_.clients[c].name);
    s += lane(server_x_, server_name_);
    label(key_x_ + 8, top_ - 22, "key " + t_.key, "lane", 0);
    if (resource_x_ >= 0) s += lane(resource_x_, "resource");
    return s;
  }

  std::string faults() {
    std::string s;
    for (const FaultMark& f : t_.faults) {
      double x = server_x_;
      for (size_t c = 0; c < t_.clients.size(); ++c)
        if (t_.clients[c].name == f.node) x = client_x_[c];
      const double y0 = y(f.at), y1 = f.length > Duration{} ? y(f.at + f.length) : y0 + 4;
      const bool cut = f.what.rfind("cut", 0) == 0;
      const double x0 = cut ? std::min(x, server_x_) : x - 40, x1 = cut ? std::max(x, server_x_) : x + 40;
      s += fmt::format("<rect class=\"fault\"{} x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\"/>\n",
                       step_attr(step_of(f.at)), x0, y0, x1 - x0, std::max(2.0, y1 - y0));
    }
    return s;
  }

  std::string holds() {
    std::string s;
    for (size_t c = 0; c < t_.clients.size(); ++c) {
      for (const Span& span : t_.clients[c].spans) {
        if (span.state == State::Idle) continue;
        const char* css = span.state == State::Holding ? "hold"
                          : span.state == State::Waiting ? "wait"
                          : span.state == State::Paused  ? (span.holding ? "paused-holding" : "paused")
                                                         : "crashed";
        const double w = span.state == State::Waiting ? 4 : 10;
        const double y0 = y(span.from), y1 = y(span.to);
        s += fmt::format(
            "<rect class=\"{}\"{} x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\"><title>{} {} {} to "
            "{}</title></rect>\n",
            css, step_attr(step_of(span.from)), client_x_[c] - w / 2, y0, w, std::max(1.0, y1 - y0),
            xml_escape(t_.clients[c].name), to_string(span.state), seconds(span.from), seconds(span.to));
      }
    }
    return s;
  }

  std::string key_bar() {
    std::string s;
    for (const KeySpan& k : t_.key_spans) {
      const double y0 = y(k.from), y1 = y(k.to);
      s += fmt::format(
          "<rect class=\"ttl\"{} x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"{:.1f}\" fill=\"{}\"{}><title>{}'s "
          "key{} {} to {}</title></rect>\n",
          step_attr(step_of(k.from)), key_x_, y0, std::max(1.0, y1 - y0), owner_colour(k.owner),
          k.ttl ? "" : " stroke=\"#000\" stroke-dasharray=\"3 2\"", xml_escape(lane_name(t_, k.owner)),
          k.ttl ? " (with a TTL)" : " (no TTL)", seconds(k.from), seconds(k.to));
    }
    return s;
  }

  std::string violations() {
    std::string s;
    const double x0 = client_x_.empty() ? server_x_ - 50 : client_x_.front() - 50;
    for (const Highlight& h : t_.highlights)
      s += fmt::format("<rect class=\"violation\"{} x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\"/>\n",
                       step_attr(step_of(h.from)), x0, y(h.from), key_x_ + 12 - x0,
                       std::max(2.0, y(h.to) - y(h.from)));
    return s;
  }

  std::string arrow(double x0, double x1, double at_y, const char* css, int step) const {
    return fmt::format("<line class=\"{}\"{} x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
                       "marker-end=\"url(#arrow)\"/>\n",
                       css, step_attr(step), x0, at_y, x1, at_y);
  }

  std::string commands() {
    std::string s;
    for (size_t c = 0; c < t_.clients.size(); ++c)
      for (const Command& cmd : t_.clients[c].commands)
        if (!to_resource(cmd))
          s += arrow(client_x_[c], server_x_ - 2, y(cmd.sent) + 2, cmd.failed ? "arrow failed" : "arrow",
                   step_of(cmd.sent));
    return s;
  }

  std::string writes() {
    std::string s;
    for (const lock::HistoryEvent& e : t_.notable) {
      if (e.step != lock::Step::WriteAccepted && e.step != lock::Step::WriteRejected) continue;
      s += arrow(client_x(e.client), resource_x_ - 2, y(e.at) + 2,
                 e.step == lock::Step::WriteRejected ? "arrow rejected" : "arrow write", step_of(e.at));
    }
    return s;
  }

  std::string labels() {
    for (size_t i = 0; i < events_.size(); ++i) {
      const int step = static_cast<int>(i) + 1;
      label(4, rows_[i], seconds(events_[i].at), "time", step);
      label(events_[i].x, rows_[i], events_[i].text, events_[i].css, step);
    }
    std::string s;
    for (const SequenceLabel& l : out_.labels)
      s += fmt::format("<text class=\"{}\"{} x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", l.css, step_attr(l.step), l.box.x,
                       l.box.y + o_.font_size, xml_escape(l.text));
    return s;
  }

  std::string caption() {
    // The violation in words, under the picture, one line per 100 characters.
    std::string s;
    double at_y = bottom_ + 2 * o_.row;
    for (const Highlight& h : t_.highlights) {
      std::string text = h.sentence + ".";
      while (!text.empty()) {
        size_t cut = text.size() <= 100 ? text.size() : text.rfind(' ', 100);
        if (cut == std::string::npos || cut == 0) cut = std::min<size_t>(100, text.size());
        SequenceLabel l;
        l.box = {10, at_y - o_.font_size, text_width(text.substr(0, cut)), o_.font_size + 3};
        l.text = text.substr(0, cut);
        l.css = "sentence";
        s += fmt::format("<text class=\"sentence\" x=\"10\" y=\"{:.1f}\">{}</text>\n", at_y, xml_escape(l.text));
        out_.labels.push_back(std::move(l));
        text = cut < text.size() ? text.substr(cut + 1) : std::string();
        at_y += o_.row;
      }
    }
    bottom_ = std::max(bottom_, at_y);
    return s;
  }

  void finish(const std::string& body) {
    double right = resource_x_ >= 0 ? resource_x_ + 60 : key_x_ + 120;
    for (const SequenceLabel& l : out_.labels) right = std::max(right, l.box.x + l.box.width + 10);
    out_.width = right;
    out_.height = bottom_ + o_.row;
    std::string title = t_.title.empty() ? "a run of " + t_.key : t_.title;
    out_.svg = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"sequence\" width=\"{:.0f}\" height=\"{:.0f}\" "
        "viewBox=\"0 0 {:.0f} {:.0f}\" font-family=\"monospace\" font-size=\"{}\">\n"
        "<title>{}</title>\n"
        "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" "
        "orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#555\"/></marker></defs>\n"
        "<style>\n"
        "line.life{{stroke:#bbb;stroke-dasharray:4 3}} line.arrow{{stroke:#777;stroke-width:1}} "
        "line.failed{{stroke:#c0392b;stroke-dasharray:3 2}} line.write{{stroke:#2e7d32}} "
        "line.rejected{{stroke:#c0392b;stroke-width:2}}\n"
        "rect.hold{{fill:#2e7d32}} rect.wait{{fill:#f2c14e}} rect.paused,rect.paused-holding{{fill:#8e44ad;opacity:.7}} "
        "rect.crashed{{fill:#7f8c8d}} rect.fault{{fill:#8e44ad;opacity:.15}} "
        "rect.violation{{fill:#e74c3c;opacity:.18}}\n"
        "text.lane{{font-weight:bold}} text.time{{fill:#888}} text.cmd{{fill:#333}} text.failed{{fill:#c0392b}} "
        "text.key{{fill:#1f4e79}} text.fault{{fill:#6c3483}} text.write{{fill:#2e7d32}} "
        "text.rejected{{fill:#c0392b;font-weight:bold}} text.violation{{fill:#c0392b;font-weight:bold}} "
        "text.sentence{{fill:#c0392b}}\n"
        "</style>\n"
        "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"
        "<text class=\"lane\" x=\"10\" y=\"16\">{}</text>\n{}</svg>\n",
        out_.width, out_.height, out_.width, out_.height, o_.font_size, xml_escape(title), xml_escape(title), body);
    // The title is a label too.
    SequenceLabel head;
    head.box = {10, 16 - o_.font_size, text_width(title), o_.font_size + 3};
    head.text = title;
    head.css = "lane";
    out_.labels.push_back(std::move(head));
  }
};

}  // namespace

SequenceLayout layout_sequence(const Timeline& t, const SequenceOptions& options) {
  LOCKSIM_ASSERT(options.row > options.font_size, "a row must be taller than a line of text");
  return Drawing(t, options).draw();
}

}  // namespace locksim::render
