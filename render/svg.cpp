#include "locksim/render/svg.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "locksim/render/duration.hpp"

namespace locksim::render {

std::string xml_escape(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (c < 0x20 && c != '\n' && c != '\t')
          out += ' ';  // not allowed in XML 1.0
        else
          out += static_cast<char>(c);
    }
  }
  return out;
}

namespace {

const char* state_fill(State s) {
  switch (s) {
    case State::Holding: return "#2e7d32";
    case State::Waiting: return "#f2c14e";
    case State::Paused: return "#8e44ad";
    case State::Crashed: return "#7f8c8d";
    case State::Idle: return "none";
  }
  return "none";
}

const char* owner_fill(uint32_t owner) {
  static const char* palette[] = {"#1f77b4", "#ff7f0e", "#17becf", "#9467bd", "#8c564b", "#e377c2", "#bcbd22"};
  if (owner == kNoClient) return "#999999";
  return palette[owner % (sizeof palette / sizeof *palette)];
}

std::vector<std::string> wrap_words(const std::string& text, size_t width) {
  std::vector<std::string> lines;
  std::string line;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t space = text.find(' ', pos);
    std::string word = text.substr(pos, space == std::string::npos ? std::string::npos : space - pos);
    pos = space == std::string::npos ? text.size() : space + 1;
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += word;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

// Where everything goes: the plot's x scale and the rows' heights.
struct Layout {
  double width, left = 110, right = 30, plot;
  double lane_h = 34, bar_h = 18;
  Instant start;
  int64_t range;
  std::vector<std::string> sentences;  // the violations' sentences, wrapped
  double title_h, axis_y, lanes_y, lanes_end, legend_y, height;

  double x(Instant at) const {
    double f = static_cast<double>(std::clamp<int64_t>(at.ns - start.ns, 0, range)) / static_cast<double>(range);
    return left + f * plot;
  }
};

Layout make_layout(const Timeline& t, const SvgOptions& options) {
  Layout l;
  l.width = std::max(400, options.width);
  l.plot = l.width - l.left - l.right;
  l.start = t.start;
  l.range = std::max<int64_t>(t.end.ns - t.start.ns, 1'000'000);
  for (const auto& h : t.highlights) {
    if (l.sentences.size() == 3) break;
    for (auto& line : wrap_words((h.property.empty() ? std::string("violation") : h.property) + ": " + h.sentence + ".",
                                 static_cast<size_t>(l.width / 7.6)))
      l.sentences.push_back(line);
  }
  l.title_h = t.title.empty() ? 12 : 34;
  const double sentences_h = static_cast<double>(l.sentences.size()) * 18 + (l.sentences.empty() ? 0 : 8);
  l.axis_y = l.title_h + sentences_h + 24;
  l.lanes_y = l.axis_y + 12;
  const size_t lanes = t.clients.size() + 1;  // + the key
  l.lanes_end = l.lanes_y + static_cast<double>(lanes) * l.lane_h;
  const double faults_h = 22;
  l.legend_y = l.lanes_end + faults_h + 14;
  l.height = l.legend_y + 30;
  return l;
}

std::string svg_header(const Timeline& t, const Layout& l) {
  std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" viewBox=\"0 0 {:.0f} {:.0f}\" "
      "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"13\">\n",
      l.width, l.height, l.width, l.height);
  s += fmt::format("<title>{}</title>\n", xml_escape(t.title.empty() ? std::string("locksim timeline") : t.title));
  s += fmt::format("<rect x=\"0\" y=\"0\" width=\"{:.0f}\" height=\"{:.0f}\" fill=\"#ffffff\"/>\n", l.width, l.height);
  if (!t.title.empty())
    s += fmt::format("<text x=\"12\" y=\"24\" font-size=\"17\" font-weight=\"bold\" fill=\"#222222\">{}</text>\n",
                     xml_escape(t.title));
  for (size_t i = 0; i < l.sentences.size(); ++i)
    s += fmt::format("<text x=\"12\" y=\"{:.1f}\" fill=\"#b71c1c\">{}</text>\n",
                     l.title_h + 14 + 18 * static_cast<double>(i), xml_escape(l.sentences[i]));
  return s;
}

// Round ticks, at most about ten.
std::string svg_axis(const Layout& l) {
  int64_t step = 1'000'000;
  for (int64_t unit = 1'000'000; unit <= int64_t{1'000'000'000'000}; unit *= 10) {
    bool found = false;
    for (int64_t m : {1, 2, 5})
      if (l.range / (unit * m) <= 10) {
        step = unit * m;
        found = true;
        break;
      }
    if (found) break;
  }
  std::string s = "<g class=\"axis\" fill=\"#555555\" font-size=\"11\">\n";
  for (int64_t tick = 0; tick <= l.range; tick += step) {
    double px = l.x(Instant{l.start.ns + tick});
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e0e0e0\"/>\n", px,
                     l.axis_y + 4, px, l.lanes_end);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", px, l.axis_y,
                     xml_escape(human_duration(Duration{tick})));
  }
  return s + "</g>\n";
}

// The violations, drawn under everything else.
std::string svg_violations(const Timeline& t, const Layout& l) {
  std::string s;
  for (const auto& h : t.highlights) {
    double x1 = l.x(h.from), x2 = std::max(l.x(h.to), x1 + 2);
    s += fmt::format(
        "<rect class=\"violation\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#e53935\" "
        "fill-opacity=\"0.18\" stroke=\"#e53935\" stroke-dasharray=\"4 3\"><title>{}</title></rect>\n",
        x1, l.lanes_y - 4, x2 - x1, l.lanes_end - l.lanes_y + 4, xml_escape(h.sentence));
  }
  return s;
}

std::string svg_lane_start(const Layout& l, double y, const std::string& id, const std::string& label) {
  std::string s = fmt::format("<g class=\"lane\" id=\"{}\">\n", xml_escape(id));
  s += fmt::format("<text x=\"12\" y=\"{:.1f}\" font-weight=\"bold\">{}</text>\n", y + l.bar_h - 4, xml_escape(label));
  s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#cccccc\"/>\n", l.left,
                   y + l.bar_h / 2, l.left + l.plot, y + l.bar_h / 2);
  return s;
}

std::string svg_client_lane(const Timeline& t, const Layout& l, size_t c) {
  const ClientLane& lane = t.clients[c];
  const double y = l.lanes_y + static_cast<double>(c) * l.lane_h;
  std::string s = svg_lane_start(l, y, "client-" + lane.name, "client " + lane.name);
  for (const auto& sp : lane.spans) {
    if (sp.state == State::Idle) continue;
    double x1 = l.x(sp.from), x2 = std::max(l.x(sp.to), x1 + 1);
    bool in_violation = false;
    for (const auto& h : t.highlights)
      if (std::find(h.clients.begin(), h.clients.end(), c) != h.clients.end() && sp.from < h.to && h.from < sp.to &&
          sp.state != State::Waiting)
        in_violation = true;
    s += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"{}><title>{} {} {} to {}</title>"
        "</rect>\n",
        x1, y, x2 - x1, l.bar_h, state_fill(sp.state), in_violation ? " stroke=\"#b71c1c\" stroke-width=\"2\"" : "",
        xml_escape(lane.name), to_string(sp.state), sim::format_instant(sp.from), sim::format_instant(sp.to));
  }
  for (const auto& cmd : lane.commands) {
    if (cmd.sent > t.end) continue;
    double px = l.x(cmd.sent);
    const char* colour = cmd.failed ? "#d32f2f" : cmd.changed_key ? "#0d47a1" : "#9e9e9e";
    s += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"{}\"><title>{} {} "
        "-&gt; {}</title></line>\n",
        px, y + l.bar_h + 1, px, y + l.bar_h + (cmd.changed_key ? 9 : 5), colour, cmd.changed_key ? 2 : 1,
        sim::format_instant(cmd.sent), xml_escape(cmd.text), xml_escape(cmd.reply));
    if (cmd.changed_key)
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"9\" fill=\"{}\" text-anchor=\"middle\">{}</text>\n",
                       px, y + l.bar_h + 16, colour, xml_escape(cmd.text.substr(0, cmd.text.find(' '))));
  }
  return s + "</g>\n";
}

std::string svg_key_moment(const Timeline& t, const Layout& l, const KeyMoment& m, double y) {
  double px = l.x(m.at);
  bool bad = m.kind != KeyMoment::Kind::Deleted || m.client != m.owner;
  std::string label = m.kind == KeyMoment::Kind::Expired ? "expired"
                      : m.kind == KeyMoment::Kind::Lost  ? "lost"
                      : m.client == m.owner              ? "released"
                                            : lane_name(t, m.client) + " deleted " + lane_name(t, m.owner) + "'s";
  std::string s =
      fmt::format("<path d=\"M {:.1f} {:.1f} l -4 7 l 8 0 z\" fill=\"{}\"><title>{} {}</title></path>\n", px,
                  y + l.bar_h + 1, bad ? "#d32f2f" : "#757575", sim::format_instant(m.at), xml_escape(label));
  if (bad)
    s += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" fill=\"#d32f2f\" text-anchor=\"middle\">{}</text>\n", px,
        y + l.bar_h + 17, xml_escape(label));
  return s;
}

std::string svg_key_lane(const Timeline& t, const Layout& l) {
  const double y = l.lanes_y + static_cast<double>(t.clients.size()) * l.lane_h;
  std::string s = svg_lane_start(l, y, "key", (t.store == "db" ? "db row " : "key ") + t.key);
  for (const auto& k : t.key_spans) {
    double x1 = l.x(k.from), x2 = std::max(l.x(k.to), x1 + 1);
    std::string who = lane_name(t, k.owner);
    s += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" "
        "fill-opacity=\"{}\"><title>held by "
        "{}{} from {} to {}</title></rect>\n",
        x1, y, x2 - x1, l.bar_h, owner_fill(k.owner), k.ttl ? "0.85" : "0.45", xml_escape(who),
        k.ttl ? "" : " (no expiry)", sim::format_instant(k.from), sim::format_instant(k.to));
    if (x2 - x1 > 24)
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"#ffffff\" font-size=\"11\">{}{}</text>\n", x1 + 4,
                       y + l.bar_h - 5, xml_escape(who), k.ttl || x2 - x1 < 90 ? "" : " (no expiry)");
  }
  for (const auto& m : t.key_moments) {
    if (m.kind == KeyMoment::Kind::Set || m.kind == KeyMoment::Kind::Rearmed) continue;
    if (m.kind == KeyMoment::Kind::Deleted && (m.owner == kNoClient)) continue;
    s += svg_key_moment(t, l, m, y);
  }
  return s + "</g>\n";
}

std::string svg_faults(const Timeline& t, const Layout& l) {
  std::string s = "<g class=\"faults\" font-size=\"10\" fill=\"#6a1b9a\">\n";
  for (const auto& f : t.faults) {
    double px = l.x(f.at);
    std::string label = f.node + " " + f.what + (f.length.ns > 0 ? " " + human_duration(f.length) : std::string());
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">&#9889; {}</text>\n", px, l.lanes_end + 14,
                     xml_escape(label));
  }
  return s + "</g>\n";
}

std::string svg_legend(const Layout& l) {
  std::string s = "<g class=\"legend\" font-size=\"11\">\n";
  double lx = 12;
  for (State st : {State::Waiting, State::Holding, State::Paused, State::Crashed}) {
    s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"14\" height=\"10\" fill=\"{}\"/>\n", lx, l.legend_y,
                     state_fill(st));
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", lx + 18, l.legend_y + 9, to_string(st));
    lx += 90;
  }
  s += fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"14\" height=\"10\" fill=\"#e53935\" fill-opacity=\"0.25\" "
      "stroke=\"#e53935\"/>\n",
      lx, l.legend_y);
  s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">violation</text>\n", lx + 18, l.legend_y + 9);
  lx += 90;
  s += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"#555555\">ticks: Redis commands (tall: changed the key)</text>\n", lx,
      l.legend_y + 9);
  return s + "</g>\n";
}

}  // namespace

std::string render_svg(const Timeline& t, const SvgOptions& options) {
  const Layout l = make_layout(t, options);
  std::string s = svg_header(t, l);
  s += svg_axis(l);
  s += svg_violations(t, l);
  for (size_t c = 0; c < t.clients.size(); ++c) s += svg_client_lane(t, l, c);
  s += svg_key_lane(t, l);
  s += svg_faults(t, l);
  s += svg_legend(l);
  return s + "</svg>\n";
}

}  // namespace locksim::render
