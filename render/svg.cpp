#include "render/svg.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "render/duration.hpp"

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
        if (c < 0x20 && c != '\n' && c != '\t') out += ' ';  // not allowed in XML 1.0
        else out += static_cast<char>(c);
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

}  // namespace

std::string render_svg(const Timeline& t, const SvgOptions& options) {
  const double width = std::max(400, options.width);
  const double left = 110, right = 30, plot = width - left - right;
  const double lane_h = 34, bar_h = 18;
  const int64_t range = std::max<int64_t>(t.end.ns - t.start.ns, 1'000'000);
  auto x = [&](Instant at) {
    double f = static_cast<double>(std::clamp<int64_t>(at.ns - t.start.ns, 0, range)) / static_cast<double>(range);
    return left + f * plot;
  };

  std::vector<std::string> sentences;
  for (const auto& h : t.highlights) {
    if (sentences.size() == 3) break;
    for (auto& l : wrap_words((h.property.empty() ? std::string("violation") : h.property) + ": " + h.sentence + ".",
                              static_cast<size_t>(width / 7.6)))
      sentences.push_back(l);
  }
  const double title_h = t.title.empty() ? 12 : 34;
  const double sentences_h = static_cast<double>(sentences.size()) * 18 + (sentences.empty() ? 0 : 8);
  const double axis_y = title_h + sentences_h + 24;
  const double lanes_y = axis_y + 12;
  const size_t lanes = t.clients.size() + 1;  // + the key
  const double lanes_end = lanes_y + static_cast<double>(lanes) * lane_h;
  const double faults_h = 22;
  const double legend_y = lanes_end + faults_h + 14;
  const double height = legend_y + 30;

  std::string s;
  s += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" viewBox=\"0 0 {:.0f} {:.0f}\" "
      "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"13\">\n",
      width, height, width, height);
  s += fmt::format("<title>{}</title>\n", xml_escape(t.title.empty() ? std::string("locksim timeline") : t.title));
  s += fmt::format("<rect x=\"0\" y=\"0\" width=\"{:.0f}\" height=\"{:.0f}\" fill=\"#ffffff\"/>\n", width, height);
  if (!t.title.empty())
    s += fmt::format("<text x=\"12\" y=\"24\" font-size=\"17\" font-weight=\"bold\" fill=\"#222222\">{}</text>\n",
                     xml_escape(t.title));
  for (size_t i = 0; i < sentences.size(); ++i)
    s += fmt::format("<text x=\"12\" y=\"{:.1f}\" fill=\"#b71c1c\">{}</text>\n", title_h + 14 + 18 * static_cast<double>(i),
                     xml_escape(sentences[i]));

  // Axis: round ticks, at most about ten.
  int64_t step = 1'000'000;
  for (int64_t unit = 1'000'000; unit <= int64_t{1'000'000'000'000}; unit *= 10) {
    bool found = false;
    for (int64_t m : {1, 2, 5})
      if (range / (unit * m) <= 10) { step = unit * m; found = true; break; }
    if (found) break;
  }
  s += "<g class=\"axis\" fill=\"#555555\" font-size=\"11\">\n";
  for (int64_t tick = 0; tick <= range; tick += step) {
    double px = x(Instant{t.start.ns + tick});
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e0e0e0\"/>\n", px, axis_y + 4, px,
                     lanes_end);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", px, axis_y,
                     xml_escape(human_duration(Duration{tick})));
  }
  s += "</g>\n";

  // The violations, under everything else.
  for (const auto& h : t.highlights) {
    double x1 = x(h.from), x2 = std::max(x(h.to), x1 + 2);
    s += fmt::format(
        "<rect class=\"violation\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#e53935\" "
        "fill-opacity=\"0.18\" stroke=\"#e53935\" stroke-dasharray=\"4 3\"><title>{}</title></rect>\n",
        x1, lanes_y - 4, x2 - x1, lanes_end - lanes_y + 4, xml_escape(h.sentence));
  }

  // Client lanes.
  for (size_t c = 0; c < t.clients.size(); ++c) {
    const ClientLane& lane = t.clients[c];
    double y = lanes_y + static_cast<double>(c) * lane_h;
    s += fmt::format("<g class=\"lane\" id=\"client-{}\">\n", xml_escape(lane.name));
    s += fmt::format("<text x=\"12\" y=\"{:.1f}\" font-weight=\"bold\">client {}</text>\n", y + bar_h - 4, xml_escape(lane.name));
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#cccccc\"/>\n", left, y + bar_h / 2,
                     left + plot, y + bar_h / 2);
    for (const auto& sp : lane.spans) {
      if (sp.state == State::Idle) continue;
      double x1 = x(sp.from), x2 = std::max(x(sp.to), x1 + 1);
      bool in_violation = false;
      for (const auto& h : t.highlights)
        if (std::find(h.clients.begin(), h.clients.end(), c) != h.clients.end() && sp.from < h.to && h.from < sp.to &&
            sp.state != State::Waiting)
          in_violation = true;
      s += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"{}><title>{} {} {} to {}</title></rect>\n",
          x1, y, x2 - x1, bar_h, state_fill(sp.state), in_violation ? " stroke=\"#b71c1c\" stroke-width=\"2\"" : "",
          xml_escape(lane.name), to_string(sp.state), sim::format_instant(sp.from), sim::format_instant(sp.to));
    }
    for (const auto& cmd : lane.commands) {
      if (cmd.sent > t.end) continue;
      double px = x(cmd.sent);
      const char* colour = cmd.failed ? "#d32f2f" : cmd.changed_key ? "#0d47a1" : "#9e9e9e";
      s += fmt::format(
          "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"{}\"><title>{} {} -&gt; "
          "{}</title></line>\n",
          px, y + bar_h + 1, px, y + bar_h + (cmd.changed_key ? 9 : 5), colour, cmd.changed_key ? 2 : 1,
          sim::format_instant(cmd.sent), xml_escape(cmd.text), xml_escape(cmd.reply));
      if (cmd.changed_key)
        s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"9\" fill=\"{}\" text-anchor=\"middle\">{}</text>\n", px,
                         y + bar_h + 16, colour, xml_escape(cmd.text.substr(0, cmd.text.find(' '))));
    }
    s += "</g>\n";
  }

  // The key lane.
  {
    double y = lanes_y + static_cast<double>(t.clients.size()) * lane_h;
    s += "<g class=\"lane\" id=\"key\">\n";
    s += fmt::format("<text x=\"12\" y=\"{:.1f}\" font-weight=\"bold\">key {}</text>\n", y + bar_h - 4, xml_escape(t.key));
    s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#cccccc\"/>\n", left, y + bar_h / 2,
                     left + plot, y + bar_h / 2);
    for (const auto& k : t.key_spans) {
      double x1 = x(k.from), x2 = std::max(x(k.to), x1 + 1);
      std::string who = lane_name(t, k.owner);
      s += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" fill-opacity=\"{}\"><title>held by {}{} "
          "from {} to {}</title></rect>\n",
          x1, y, x2 - x1, bar_h, owner_fill(k.owner), k.ttl ? "0.85" : "0.45", xml_escape(who), k.ttl ? "" : " (no expiry)",
          sim::format_instant(k.from), sim::format_instant(k.to));
      if (x2 - x1 > 24)
        s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"#ffffff\" font-size=\"11\">{}{}</text>\n", x1 + 4, y + bar_h - 5,
                         xml_escape(who), k.ttl || x2 - x1 < 90 ? "" : " (no expiry)");
    }
    for (const auto& m : t.key_moments) {
      if (m.kind == KeyMoment::Kind::Set || m.kind == KeyMoment::Kind::Rearmed) continue;
      if (m.kind == KeyMoment::Kind::Deleted && (m.owner == kNoClient)) continue;
      double px = x(m.at);
      bool bad = m.kind != KeyMoment::Kind::Deleted || m.client != m.owner;
      std::string label = m.kind == KeyMoment::Kind::Expired ? "expired"
                          : m.kind == KeyMoment::Kind::Lost  ? "lost"
                          : m.client == m.owner              ? "released"
                                                             : lane_name(t, m.client) + " deleted " + lane_name(t, m.owner) + "'s";
      s += fmt::format(
          "<path d=\"M {:.1f} {:.1f} l -4 7 l 8 0 z\" fill=\"{}\"><title>{} {}</title></path>\n", px, y + bar_h + 1,
          bad ? "#d32f2f" : "#757575", sim::format_instant(m.at), xml_escape(label));
      if (bad)
        s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" fill=\"#d32f2f\" text-anchor=\"middle\">{}</text>\n", px,
                         y + bar_h + 17, xml_escape(label));
    }
    s += "</g>\n";
  }

  // Faults.
  s += "<g class=\"faults\" font-size=\"10\" fill=\"#6a1b9a\">\n";
  for (const auto& f : t.faults) {
    double px = x(f.at);
    std::string label = f.node + " " + f.what + (f.length.ns > 0 ? " " + human_duration(f.length) : std::string());
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">&#9889; {}</text>\n", px, lanes_end + 14,
                     xml_escape(label));
  }
  s += "</g>\n";

  // Legend.
  s += "<g class=\"legend\" font-size=\"11\">\n";
  double lx = 12;
  for (State st : {State::Waiting, State::Holding, State::Paused, State::Crashed}) {
    s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"14\" height=\"10\" fill=\"{}\"/>\n", lx, legend_y, state_fill(st));
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", lx + 18, legend_y + 9, to_string(st));
    lx += 90;
  }
  s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"14\" height=\"10\" fill=\"#e53935\" fill-opacity=\"0.25\" stroke=\"#e53935\"/>\n",
                   lx, legend_y);
  s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">violation</text>\n", lx + 18, legend_y + 9);
  lx += 90;
  s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"#555555\">ticks: Redis commands (tall: changed the key)</text>\n", lx,
                   legend_y + 9);
  s += "</g>\n</svg>\n";
  return s;
}

}  // namespace locksim::render
