#include "locksim/render/text.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>
#include <utility>

#include "locksim/render/duration.hpp"
#include "locksim/render/terminal_safe.hpp"

namespace locksim::render {

bool colour_wanted(int fd) {
  const char* no_colour = std::getenv("NO_COLOR");
  if (no_colour && *no_colour) return false;
  return isatty(fd) != 0;
}

namespace {

constexpr const char* kReset = "\x1b[0m";
constexpr const char* kBold = "\x1b[1m";
constexpr const char* kDim = "\x1b[2m";
constexpr const char* kGreen = "\x1b[32m";
constexpr const char* kYellow = "\x1b[33m";
constexpr const char* kMagenta = "\x1b[35m";
constexpr const char* kRed = "\x1b[31m";
constexpr const char* kCyan = "\x1b[36m";
constexpr const char* kAlarm = "\x1b[1;97;41m";  // bold white on red: the violation

char state_char(State s) {
  switch (s) {
    case State::Holding: return '#';
    case State::Waiting: return '-';
    case State::Paused: return '~';
    case State::Crashed: return 'x';
    case State::Idle: return ' ';
  }
  return ' ';
}

const char* state_colour(State s) {
  switch (s) {
    case State::Holding: return kGreen;
    case State::Waiting: return kYellow;
    case State::Paused: return kMagenta;
    case State::Crashed: return kRed;
    case State::Idle: return "";
  }
  return "";
}

int state_rank(State s) {
  switch (s) {
    case State::Paused: return 4;
    case State::Holding: return 3;
    case State::Crashed: return 2;
    case State::Waiting: return 1;
    case State::Idle: return 0;
  }
  return 0;
}

// The time axis: columns of equal width, ticks at round times.
struct Scale {
  Instant start;
  int64_t step_ns = 1'000'000'000;  // between ticks
  int cols_per_tick = 10;
  int ticks = 1;  // intervals
  int cols() const { return ticks * cols_per_tick; }
  Instant at(int col) const { return Instant{start.ns + step_ns * col / cols_per_tick}; }
  int col(Instant t) const {
    if (t <= start) return 0;
    int64_t c = (t.ns - start.ns) * cols_per_tick / step_ns;
    return static_cast<int>(std::min<int64_t>(c, cols() - 1));
  }
};

Scale make_scale(Instant start, Instant end, int plot) {
  int64_t range = std::max<int64_t>(end.ns - start.ns, 1'000'000);
  static const int64_t mantissas[] = {1, 2, 5};
  Scale best;
  best.start = start;
  for (int64_t unit = 1'000'000; unit <= int64_t{1'000'000'000'000}; unit *= 10)
    for (int64_t m : mantissas) {
      int64_t step = unit * m;
      int ticks = static_cast<int>((range + step - 1) / step);
      if (ticks < 1) ticks = 1;
      int cpt = plot / ticks;
      if (cpt < 8) continue;
      best.step_ns = step;
      best.ticks = ticks;
      best.cols_per_tick = cpt;
      return best;
    }
  best.step_ns = range;
  best.ticks = 1;
  best.cols_per_tick = plot;
  return best;
}

// One row of cells, each with its own colour.
struct Row {
  std::string label;
  std::string cells;
  std::vector<const char*> colours;
  explicit Row(std::string l, int n)
      : label(std::move(l)), cells(static_cast<size_t>(n), ' '), colours(static_cast<size_t>(n), "") {}
  bool put(int col, std::string_view text, const char* colour = "", bool only_if_free = false) {
    if (col < 0 || col + static_cast<int>(text.size()) > static_cast<int>(cells.size())) return false;
    if (only_if_free) {
      int from = std::max(0, col - 1),
          to = std::min(static_cast<int>(cells.size()), col + static_cast<int>(text.size()) + 1);
      for (int i = from; i < to; ++i)
        if (cells[static_cast<size_t>(i)] != ' ') return false;
    }
    for (size_t i = 0; i < text.size(); ++i) {
      cells[static_cast<size_t>(col) + i] = text[i];
      colours[static_cast<size_t>(col) + i] = colour;
    }
    return true;
  }
};

std::string wrap(const std::string& text, int width, const std::string& indent) {
  std::string out, line;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t space = text.find(' ', pos);
    std::string word = text.substr(pos, space == std::string::npos ? std::string::npos : space - pos);
    pos = space == std::string::npos ? text.size() : space + 1;
    if (!line.empty() && static_cast<int>(line.size() + 1 + word.size()) > width) {
      out += line + "\n";
      line = indent;
    }
    if (!line.empty() && line != indent) line += ' ';
    line += word;
  }
  if (!line.empty()) out += line + "\n";
  return out;
}

struct StoryLine {
  Instant at;
  int order;  // ties: faults of servers and links, key moments, clients' lines, faults that strike a client
  std::string text;
  bool alarm = false;
};

// Each hold: when it starts, and when it ends unless the holder crashed.
void tell_holds(const Timeline& t, std::vector<StoryLine>& out) {
  for (uint32_t c = 0; c < t.clients.size(); ++c) {
    const auto& spans = t.clients[c].spans;
    const std::string& n = t.clients[c].name;
    for (size_t i = 0; i < spans.size(); ++i) {
      const Span& s = spans[i];
      bool held = s.state == State::Holding || (s.state == State::Paused && s.holding);
      bool held_before = i > 0 && (spans[i - 1].state == State::Holding ||
                                   (spans[i - 1].state == State::Paused && spans[i - 1].holding));
      if (held && !held_before) {
        Instant end = s.to;
        for (size_t j = i; j < spans.size(); ++j) {
          bool h = spans[j].state == State::Holding || (spans[j].state == State::Paused && spans[j].holding);
          if (!h) break;
          end = spans[j].to;
        }
        out.push_back({s.from, 3, fmt::format("{} acquired {} and starts its critical section", n, t.key)});
        if (end < t.end) {
          bool crashed = false;
          for (const auto& x : spans)
            if (x.from == end && x.state == State::Crashed) crashed = true;
          // A crash and restart at one instant leaves no crashed span: the fault says it.
          for (const FaultMark& f : t.faults)
            if (f.at == end && f.node == n && f.what == "crash") crashed = true;
          if (!crashed)
            out.push_back(
                {end, 2,
                 fmt::format("{} leaves its critical section after {} and releases", n, human_duration(end - s.from))});
        }
      }
    }
  }
}

// What happened to the lock key that the clients did not mean: expiries, deletes and overwrites of others' locks.
void tell_key_moments(const Timeline& t, std::vector<StoryLine>& out) {
  for (const auto& m : t.key_moments) {
    std::string owner = lane_name(t, m.owner), by = lane_name(t, m.client);
    std::string cmd = m.text.empty() ? std::string() : fmt::format(" ({})", m.text);
    switch (m.kind) {
      case KeyMoment::Kind::Expired:
        out.push_back({m.at, 1,
                       m.owner == kNoClient ? fmt::format("{} expired", t.key)
                                            : fmt::format("{} expired: {}'s lease ran out", t.key, owner)});
        break;
      case KeyMoment::Kind::Deleted:
        if (m.owner == kNoClient) break;
        if (m.client != m.owner) out.push_back({m.at, 1, fmt::format("{} deleted {}'s lock{}", by, owner, cmd), true});
        break;
      case KeyMoment::Kind::Set:
        if (m.owner != kNoClient && m.owner != m.client)
          out.push_back({m.at, 1, fmt::format("{} overwrote {}'s lock{}", by, owner, cmd), true});
        break;
      case KeyMoment::Kind::Lost:
        out.push_back({m.at, 1,
                       fmt::format("{} {}", t.key, m.why.empty() ? "lost: the Redis server crashed without persistence" : m.why),
                       true});
        break;
      case KeyMoment::Kind::Rearmed: break;
    }
  }
}

void tell_faults(const Timeline& t, std::vector<StoryLine>& out) {
  for (const auto& f : t.faults) {
    std::string what = f.what;
    if (f.length.ns > 0) what += " for " + human_duration(f.length);
    if (f.what == "pause") what = fmt::format("paused (stop-the-world) for {}", human_duration(f.length));
    if (f.what == "crash") what = "crashed";
    if (f.what == "restart") what = "restarted";
    if (f.what == "request lost") what = "lost a request: the command never ran, and its call will time out";
    if (f.what == "reply lost") what = "lost a reply: the command ran, and its call will time out";
    if (f.what.starts_with("delayed ")) {  // "delayed write 2", "delayed call 7" (add_call_delays)
      out.push_back({f.at, 0,
                     fmt::format("{}'s {} was held in flight {} longer than its latency", f.node,
                                 f.what.substr(std::string_view("delayed ").size()), human_duration(f.length)),
                     false});
      continue;
    }
    // A fault that strikes a client acts on the state that client's own lines at the same instant set up
    // (it acquired, then paused; it left, then crashed): told after them. Other nodes' faults come first.
    bool strikes_client = std::any_of(t.clients.begin(), t.clients.end(),
                                      [&](const ClientLane& c) { return c.name == f.node; });
    // A link's cut and heal name both ends themselves.
    std::string line = fmt::format("{} {}", f.node, what);
    if (f.what.rfind("cut ", 0) == 0) line = fmt::format("the network cuts {} for {}", f.what.substr(4), human_duration(f.length));
    if (f.what.rfind("heal ", 0) == 0) line = fmt::format("the network heals {}", f.what.substr(5));
    out.push_back({f.at, strikes_client ? 4 : 0, line,
                   f.what == "crash" || f.what == "pause"});
  }
}

// Give-ups, the resource's verdicts, a variant's log lines and errors.
void tell_notable(const Timeline& t, std::vector<StoryLine>& out) {
  for (const auto& e : t.notable) {
    std::string n = lane_name(t, e.client);
    if (e.step == lock::Step::AcquireFailed)
      out.push_back({e.at, 3, fmt::format("{} gave up waiting for {}", n, t.key)});
    else if (e.step == lock::Step::WriteRejected)
      out.push_back(
          {e.at, 3,
           fmt::format("the resource rejected {}'s write: token {} < {} already seen", n, e.token, e.highest_seen)});
    else if (e.step == lock::Step::WriteAccepted && e.token >= 0)
      out.push_back({e.at, 3, fmt::format("the resource accepted {}'s write with token {}", n, e.token)});
    else if (e.step == lock::Step::Log)
      out.push_back({e.at, 3, fmt::format("{} logs: {}", n, e.text)});
    else if (e.step == lock::Step::VariantError)
      out.push_back({e.at, 3, fmt::format("{}'s variant failed: {}", n, e.text), true});
  }
}

// A reentrant hold's inner steps: each nested acquire (and whether it had to take the key
// afresh) and each inner release (and whether it ended the key under the outer hold).
void tell_nested(const Timeline& t, std::vector<StoryLine>& out) {
  for (const NestedStep& n : t.nested) {
    const std::string name = lane_name(t, n.client);
    if (n.release && n.changed)
      out.push_back({n.at, 3, fmt::format("{}'s inner release (depth {}) deleted {} while its outer hold goes on", name,
                                          n.depth, t.key), true});
    else if (n.release)
      out.push_back({n.at, 3, fmt::format("{}'s inner release (depth {}): its outer hold keeps {}", name, n.depth, t.key)});
    else if (n.gave_up)
      out.push_back({n.at, 3, fmt::format("{}'s nested acquire (depth {}) gave up: it could not take again the lock it "
                                          "holds", name, n.depth), true});
    else if (n.changed)
      out.push_back({n.at, 3, fmt::format("{}'s nested acquire (depth {}) took {} afresh: the key of its outer hold "
                                          "was gone, this is a new lock", name, n.depth, t.key)});
    else
      out.push_back({n.at, 3, fmt::format("{} acquired {} again, nested (depth {})", name, t.key, n.depth)});
  }
}

std::vector<StoryLine> story(const Timeline& t) {
  std::vector<StoryLine> out;
  tell_holds(t, out);
  tell_nested(t, out);
  tell_key_moments(t, out);
  tell_faults(t, out);
  tell_notable(t, out);
  std::stable_sort(out.begin(), out.end(), [](const StoryLine& a, const StoryLine& b) {
    return a.at != b.at ? a.at < b.at : a.order < b.order;
  });
  return out;
}

}  // namespace

std::string render_story(const Timeline& t, size_t max_lines, bool colour) {
  std::vector<StoryLine> lines = story(t);
  size_t first = 0, last = lines.size();
  if (lines.size() > max_lines && max_lines > 0) {
    // Keep the lines around the first violation: most before it, a few after.
    size_t focus = lines.size();
    if (!t.highlights.empty()) {
      Instant from = t.highlights.front().from;
      focus = 0;
      while (focus < lines.size() && lines[focus].at < from) ++focus;
    }
    size_t before = max_lines * 2 / 3;
    first = focus > before ? focus - before : 0;
    if (first + max_lines > lines.size()) first = lines.size() - max_lines;
    last = first + max_lines;
  }
  std::string out;
  if (first > 0) out += fmt::format("  {:>8}  ({} earlier event{})\n", "...", first, first == 1 ? "" : "s");
  for (size_t i = first; i < last; ++i) {
    const auto& l = lines[i];
    if (colour && l.alarm)
      out += fmt::format("  {:>8}  {}{}{}\n", sim::format_instant(l.at), kRed, l.text, kReset);
    else
      out += fmt::format("  {:>8}  {}\n", sim::format_instant(l.at), l.text);
  }
  if (last < lines.size())
    out +=
        fmt::format("  {:>8}  ({} later event{})\n", "...", lines.size() - last, lines.size() - last == 1 ? "" : "s");
  return terminal_safe(out, colour);
}

namespace {

// The drawing surface of render_text: the time axis, the label column, and
// the text written so far.
struct Canvas {
  const Timeline& t;
  int width;
  size_t label_width;
  Scale scale;
  int cols;
  bool colour;
  std::string out;

  void emit(const Row& row, bool trim = true) {
    std::string line = fmt::format("{:<{}}", row.label.substr(0, label_width - 1), label_width);
    int last = static_cast<int>(row.cells.size());
    if (trim)
      while (last > 0 && row.cells[static_cast<size_t>(last - 1)] == ' ' &&
             !*row.colours[static_cast<size_t>(last - 1)])
        --last;
    const char* current = "";
    for (int i = 0; i < last; ++i) {
      const char* c = row.colours[static_cast<size_t>(i)];
      if (colour && std::string_view(c) != current) {
        line += kReset;
        line += c;
        current = c;
      }
      line += row.cells[static_cast<size_t>(i)];
    }
    if (colour && *current) line += kReset;
    out += line + "\n";
  }
};

Canvas make_canvas(const Timeline& t, const TextOptions& options) {
  const int width = std::max(40, options.width);
  size_t label_width = 6;
  for (const auto& c : t.clients) label_width = std::max(label_width, c.name.size() + 2);
  label_width = std::max(label_width, std::min<size_t>(t.key.size() + 2, 12));
  const int plot = width - static_cast<int>(label_width) - 1;
  const Scale scale = make_scale(t.start, t.end, plot - 4);  // room for the last tick's label
  return Canvas{t, width, label_width, scale, scale.cols() + 1, options.colour, {}};
}

// Highlighted cells per client, and all highlighted columns.
struct HotCells {
  std::vector<std::set<int>> clients;
  std::set<int> key;
};

HotCells hot_cells(const Timeline& t, const Scale& scale) {
  HotCells hot{std::vector<std::set<int>>(t.clients.size()), {}};
  for (const auto& h : t.highlights) {
    int from = scale.col(h.from), to = std::max(from, scale.col(h.to));
    if (h.to > h.from && scale.col(h.to) > from && scale.at(scale.col(h.to)) == h.to) to = scale.col(h.to) - 1;
    for (uint32_t c : h.clients)
      if (c < hot.clients.size())
        for (int i = from; i <= to; ++i) hot.clients[c].insert(i);
    for (int i = from; i <= to; ++i) hot.key.insert(i);
  }
  return hot;
}

void draw_axis(Canvas& canvas) {
  const Scale& scale = canvas.scale;
  Row labels("time", canvas.cols), ruler("", canvas.cols);
  for (int k = 0; k <= scale.ticks; ++k) {
    int col = k * scale.cols_per_tick;
    labels.put(col, human_duration(Duration{scale.step_ns * k}));
    ruler.put(col, "+");
    if (k < scale.ticks)
      for (int i = col + 1; i < col + scale.cols_per_tick; ++i) ruler.put(i, "-", kDim);
  }
  for (auto& c : ruler.colours)
    if (!*c) c = kDim;
  canvas.emit(labels);
  canvas.emit(ruler);
}

// A client's states, one cell per column: the most telling state in it.
Row state_row(const Canvas& canvas, const ClientLane& lane, const std::set<int>& hot) {
  Row row(lane.name, canvas.cols);
  for (int col = 0; col < canvas.scale.cols(); ++col) {
    Instant a = canvas.scale.at(col), b = canvas.scale.at(col + 1);
    State best = State::Idle;
    bool any = false;
    for (const auto& s : lane.spans) {
      if (s.to <= a || s.from >= b) continue;
      if (!any || state_rank(s.state) > state_rank(best)) best = s.state;
      any = true;
    }
    const char* colour_code = hot.count(col) && best != State::Idle ? kAlarm : state_colour(best);
    row.put(col, std::string(1, state_char(best)), colour_code);
  }
  return row;
}

// A client's commands, one letter per column: a key change beats a failure beats the rest.
Row command_row(const Canvas& canvas, const ClientLane& lane, std::set<char>& letters) {
  Row cmds("", canvas.cols);
  std::vector<int> rank(static_cast<size_t>(canvas.cols), -1);
  for (const auto& cmd : lane.commands) {
    if (cmd.sent > canvas.t.end) continue;
    int col = canvas.scale.col(cmd.sent);
    int r = cmd.changed_key ? 2 : cmd.failed ? 1 : 0;
    if (r <= rank[static_cast<size_t>(col)]) continue;
    rank[static_cast<size_t>(col)] = r;
    char ch = cmd.failed ? '?' : cmd.changed_key ? cmd.letter : static_cast<char>(std::tolower(cmd.letter));
    letters.insert(cmd.letter);
    cmds.put(col, std::string(1, ch), cmd.failed ? kRed : cmd.changed_key ? kCyan : kDim);
  }
  return cmds;
}

// Who held the key in each column (a small letter: no expiry).
void draw_key_lane(Canvas& canvas, const std::set<int>& hot_key) {
  const Timeline& t = canvas.t;
  Row key(t.store == "db" ? "db:" + t.key : t.key, canvas.cols);
  for (int col = 0; col < canvas.scale.cols(); ++col) {
    Instant a = canvas.scale.at(col), b = canvas.scale.at(col + 1), mid = canvas.scale.at(col) + (b - a) / 2;
    const KeySpan* best = nullptr;
    for (const auto& k : t.key_spans) {
      if (k.to <= a || k.from >= b) continue;
      if (!best || (k.from <= mid && mid < k.to)) best = &k;
    }
    if (!best) continue;
    const bool named = best->owner < t.clients.size() && !t.clients[best->owner].name.empty();
    char ch = named ? t.clients[best->owner].name[0] : '?';
    if (!best->ttl) ch = static_cast<char>(std::tolower(ch));
    key.put(col, std::string(1, ch), hot_key.count(col) ? kAlarm : kCyan);
  }
  canvas.emit(key);
}

// What happened to the key, where there is room.
void draw_key_moments(Canvas& canvas) {
  const Timeline& t = canvas.t;
  Row moments("", canvas.cols);
  bool any_moment = false;
  for (const auto& m : t.key_moments) {
    std::string word;
    switch (m.kind) {
      case KeyMoment::Kind::Expired: word = "expired"; break;
      case KeyMoment::Kind::Lost: word = "lost"; break;
      case KeyMoment::Kind::Deleted:
        if (m.owner == kNoClient) continue;
        word = m.client == m.owner ? "del" : fmt::format("{} del {}", lane_name(t, m.client), lane_name(t, m.owner));
        break;
      case KeyMoment::Kind::Set:
        if (m.owner == kNoClient || m.owner == m.client) continue;
        word = fmt::format("{} took", lane_name(t, m.client));
        break;
      case KeyMoment::Kind::Rearmed: continue;
    }
    int col = canvas.scale.col(m.at);
    const char* c = m.kind == KeyMoment::Kind::Deleted && m.client == m.owner ? kDim : kRed;
    if (!moments.put(col, "^" + word, c, true)) moments.put(col, "^", c, true);
    any_moment = true;
  }
  if (any_moment) canvas.emit(moments);
}

// Faults of the servers and the network (clients show theirs in their lanes).
void draw_faults(Canvas& canvas) {
  Row faults("faults", canvas.cols);
  bool any_fault = false;
  for (const auto& f : canvas.t.faults) {
    bool client = false;
    for (const auto& c : canvas.t.clients)
      if (c.name == f.node) client = true;
    if (client && (f.what == "crash" || f.what == "pause" || f.what == "restart")) continue;
    int col = canvas.scale.col(f.at);
    std::string word = f.node + " " + f.what;
    if (!faults.put(col, "^" + word, kRed, true)) faults.put(col, "^", kRed, true);
    any_fault = true;
  }
  if (any_fault) canvas.emit(faults);
}

// The violations: a marker line each (at most three), readable without colour, then their sentences.
void draw_violations(Canvas& canvas) {
  const Timeline& t = canvas.t;
  const Scale& scale = canvas.scale;
  size_t shown = 0;
  for (const auto& h : t.highlights) {
    if (shown++ == 3) break;
    Row mark("", canvas.cols);
    int from = scale.col(h.from), to = scale.col(h.to);
    if (h.to > h.from && to > from && scale.at(to) == h.to) --to;
    for (int i = from; i <= to; ++i) mark.put(i, "^", kAlarm);
    std::string tag = " " + (h.property.empty() ? std::string("violation") : h.property);
    if (!mark.put(to + 1, tag, kRed)) {
      int left = from - static_cast<int>(tag.size());
      if (left >= 0) {
        mark.put(left, tag.substr(1) + " ", kRed);
      } else if (to - from + 1 >= static_cast<int>(tag.size()) + 3) {
        mark.put(from + 2, tag + " ", kAlarm);  // no room on either side: inside the marks, near their start
      }
    }
    canvas.emit(mark);
  }
  for (size_t i = 0; i < t.highlights.size() && i < 3; ++i) {
    const auto& h = t.highlights[i];
    std::string text = (h.property.empty() ? std::string("violation") : h.property) + ": " + h.sentence + ".";
    std::string wrapped = wrap(text, canvas.width, "  ");
    canvas.out += canvas.colour ? fmt::format("{}{}{}", kRed, wrapped, kReset) : wrapped;
  }
  if (t.highlights.size() > 3) canvas.out += fmt::format("  (and {} more violations)\n", t.highlights.size() - 3);
}

void draw_legend(Canvas& canvas, const std::set<char>& letters) {
  std::string legend = "# holding  - waiting  ~ paused  x crashed";
  if (canvas.t.has_commands && !letters.empty()) {
    std::string cmds = "commands:";
    for (char l : letters) cmds += fmt::format("{} {} {}", cmds.size() > 9 ? "," : "", l, command_letter_name(l));
    legend += "\n" + cmds + " (capital: changed the key; ? failed)";
  }
  legend += fmt::format("\n{} lane: who holds the key (small letter: no expiry)", canvas.t.key);
  std::string wrapped;
  size_t pos = 0;
  while (pos <= legend.size()) {
    size_t nl = legend.find('\n', pos);
    std::string part = legend.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    wrapped += wrap(part, canvas.width, "  ");
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  canvas.out += canvas.colour ? fmt::format("{}{}{}", kDim, wrapped, kReset) : wrapped;
}

}  // namespace

std::string render_text(const Timeline& t, const TextOptions& options) {
  Canvas canvas = make_canvas(t, options);
  if (!t.title.empty()) canvas.out += options.colour ? fmt::format("{}{}{}\n", kBold, t.title, kReset) : t.title + "\n";
  const HotCells hot = hot_cells(t, canvas.scale);
  draw_axis(canvas);
  std::set<char> letters;
  for (uint32_t c = 0; c < t.clients.size(); ++c) {
    canvas.emit(state_row(canvas, t.clients[c], hot.clients[c]));
    if (t.has_commands) canvas.emit(command_row(canvas, t.clients[c], letters));
  }
  draw_key_lane(canvas, hot.key);
  draw_key_moments(canvas);
  draw_faults(canvas);
  draw_violations(canvas);
  if (options.legend) draw_legend(canvas, letters);
  if (options.story) canvas.out += render_story(t, options.story_lines, options.colour);
  return terminal_safe(canvas.out, options.colour);  // the key and a variant's log lines are user text
}

}  // namespace locksim::render
