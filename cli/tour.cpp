// The tour: the lock evolution in order (locksim list's order: the Redis main
// line, the variants beside it, the database locks as an appendix). For each
// version: what it changes, then each catalogue failure of that version told
// with a teaching scenario (cli/tour_lessons.hpp) replayed and checked to fail
// the way its title says, drawn as a timeline, and under it the proof: the
// same failure found LIVE by the explorer (props::run_entry with a fixed seed,
// so the tour reads the same every time) and shrunk, and the version that
// fixes it, checked under the same faults. Chapters are printed as soon as
// their entries are explored. It ends with a matrix of algorithms x
// properties built from what the tour itself found and checked.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <CLI/CLI.hpp>

#include "locksim/cli/commands.hpp"
#include "locksim/cli/entries.hpp"
#include "locksim/cli/program_name.hpp"
#include "locksim/cli/progress.hpp"
#include "locksim/cli/subcommand.hpp"
#include "locksim/cli/tour_assumptions.hpp"
#include "locksim/cli/tour_html.hpp"
#include "locksim/cli/tour_lessons.hpp"
#include "locksim/base/assert.hpp"
#include "locksim/cli/verdicts.hpp"
#include "locksim/lock/sources.hpp"
#include "locksim/render/duration.hpp"

namespace locksim::cli {

namespace {

constexpr uint64_t kTourSeed = 1;
constexpr uint32_t kTourBudget = 2000;

// Short column heads for the matrix, in kAllProperties order.
constexpr std::string_view kShort[] = {"mutex", "deadlock", "owner", "fenced", "reentry", "wait", "zombie", "stall"};

size_t property_index(props::Property p) {
  for (size_t i = 0; i < std::size(props::kAllProperties); ++i)
    if (props::kAllProperties[i] == p) return i;
  return 0;
}

// Columns a string takes on a terminal: ANSI colour sequences take none.
size_t visible(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b') {
      while (i < s.size() && s[i] != 'm') ++i;
      continue;
    }
    if ((static_cast<unsigned char>(s[i]) & 0xc0) != 0x80) ++n;  // UTF-8: count lead bytes only
  }
  return n;
}

// "Label: text that wraps" with the continuation lines under the text.
std::string wrap_field(std::string_view label, std::string_view text, int width, std::string_view indent = "") {
  std::string out = std::string(indent) + std::string(label);
  const std::string hang = std::string(indent) + std::string(visible(label), ' ');
  size_t pos = 0, used = indent.size() + visible(label);
  const size_t start = used;
  while (pos < text.size()) {
    size_t space = text.find(' ', pos);
    std::string_view word = text.substr(pos, space == std::string_view::npos ? std::string_view::npos : space - pos);
    pos = space == std::string_view::npos ? text.size() : space + 1;
    if (word.empty()) continue;
    if (used > start && static_cast<int>(used + 1 + visible(word)) > width) {
      out += "\n" + hang;
      used = hang.size();
    } else if (used > start) {
      out += ' ';
      ++used;
    }
    out += word;
    used += visible(word);
  }
  return out + "\n";
}

struct Style {
  bool colour = false;
  std::string paint(std::string_view s, const char* code) const {
    return colour ? fmt::format("\x1b[{}m{}\x1b[0m", code, s) : std::string(s);
  }
  std::string bold(std::string_view s) const { return paint(s, "1"); }
  std::string dim(std::string_view s) const { return paint(s, "2"); }
  std::string red(std::string_view s) const { return paint(s, "1;31"); }
  std::string green(std::string_view s) const { return paint(s, "32"); }
};

// The matrix: per algorithm and property, the catalogue ids found violated and
// whether a survive or fix check passed.
struct Cell {
  std::vector<std::string> violated;
  bool held = false;
};
using Matrix = std::map<std::string, std::array<Cell, std::size(props::kAllProperties)>>;

void add_holds(Matrix& m, const std::string& algorithm, props::Property p) {
  m[algorithm][property_index(p)].held = true;
}

// "watchdog", or "watchdog with explicit-lease=0s" when the fix needs other parameters.
std::string fix_name(const props::CatalogueEntry& e) {
  return e.fix_params.empty() ? e.fix : fmt::format("{} with {}", e.fix, e.fix_params);
}

// props says "watchdog keeps P in N runs": after "Fixed by watchdog", drop the repeated name.
std::string fix_result(const props::CatalogueEntry& e, const props::EntryOutcome& r) {
  std::string text = r.fix_outcome;
  if (text.rfind(e.fix + " ", 0) == 0) text = text.substr(e.fix.size() + 1);
  // "keeps P in 150 runs" -> "keeps P (150 runs, same faults)"
  if (size_t in = text.rfind(" in "); r.fix_as_expected && in != std::string::npos && text.ends_with(" runs"))
    text = text.substr(0, in) + " (" + text.substr(in + 4) + ", same faults)";
  if (!r.fix_as_expected) text += " (NOT FIXED)";
  return text;
}

std::string plural(uint64_t n, std::string_view word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

// What reached the fenced resource, in order: "B's token 2 at 1.423s: accepted; A's token 1 ...: REJECTED".
std::string resource_writes(const LessonRun& run) {
  std::string out;
  const lock::History& h = run.run.sim->history();
  for (const lock::HistoryEvent& e : h.events()) {
    if (e.step != lock::Step::WriteAccepted && e.step != lock::Step::WriteRejected) continue;
    out += fmt::format("{}{}'s write with token {} at {:.3f}s: {}", out.empty() ? "" : "; ", h.client_name(e.client),
                       e.token, static_cast<double>(e.at.ns) / 1e9,
                       e.step == lock::Step::WriteAccepted
                           ? std::string("accepted")
                           : fmt::format("REJECTED (it has seen token {})", e.highest_seen));
  }
  return out.empty() ? "no write reached it" : out + ".";
}

// One failure: told with its lesson (replayed and checked), drawn, then the
// search's own counterexample as proof, then the fix. `brief`: the appendix's
// few lines, no picture.
std::string show_failure(const props::CatalogueEntry& e, const TimedOutcome& t, const TourOptions& options,
                         const Style& style, Matrix& matrix, bool& all_expected, bool picture, bool first) {
  const props::EntryOutcome& r = t.outcome;
  const int width = options.output.width;
  const std::string algorithm = e.model.base.algorithm;
  const Lesson* lesson = find_lesson(e.id);
  // A blank line between the failures of a version; the first follows its version's head.
  std::string out = (first ? "" : "\n") + wrap_field(style.bold(e.id) + "  ", lesson ? lesson->title : e.title, width);
  if (lesson) {
    LessonRun told = replay_lesson(*lesson, e);
    out += wrap_field("    Scenario: ", lesson->setup, width);
    if (told.violation && picture) {
      std::vector<render::Highlight> highlights = highlights_of(told.run.verdict, e.property);
      if (highlights.size() > 1) highlights.resize(1);  // the one this chapter is about
      ShowOptions show;
      show.indent = "    ";
      show.story_lines = options.verbose ? 5 : 0;
      show.legend = false;
      out += show_run(*told.run.sim, "", options.output, &highlights, show).text;
    }
    if (e.expected == props::Expectation::ViolatedYetHolds) out += wrap_field("    Resource: ", resource_writes(told), width);
    if (told.violation && (options.verbose || !picture))
      out += wrap_field("    Why: ", std::string(props::describe(told.violation->cause)) + ".", width);
    if (!told.as_told()) {
      all_expected = false;
      std::string problems;
      for (const std::string& p : told.problems) problems += (problems.empty() ? "" : "; ") + p;
      out += wrap_field("    " + style.red("THIS SCENARIO DOES NOT FAIL AS TOLD") + ": ", problems, width);
    }
    out += "    Replay: " + program_name() + " replay " + shell_quote(lesson->scenario) + "\n";
  }
  if (!r.counterexample) {
    all_expected = false;
    out += "    " + style.red("NOT FOUND") + " by the search: " + r.outcome + "\n";
    return out;
  }
  const props::Counterexample& ce = *r.counterexample;
  const props::Property p = ce.violation.property;
  matrix[algorithm][property_index(p)].violated.push_back(e.id);
  // The proof, one line: the search found it alone; the fix, checked under the same faults.
  std::string fixed;
  if (!e.fix.empty() && r.fix_as_expected) fixed = ", fixed by " + fix_name(e);
  out += fmt::format("    Found by the search in run {}{}{}: {}\n", ce.run,
                     options.verbose ? fmt::format(" ({} shrink runs)", ce.shrink_runs) : "", fixed,
                     replay_command(ce.shrunk));
  if (!lesson && picture) {
    // No lesson: the search's own counterexample is the picture.
    Recorded rec = run_recorded(ce.shrunk);
    std::vector<render::Highlight> highlights = highlights_of(rec.verdict, p);
    if (highlights.size() > 1) highlights.resize(1);
    ShowOptions show;
    show.indent = "    ";
    show.story_lines = options.verbose ? 5 : 0;
    show.legend = false;
    out += show_run(*rec.sim, "", options.output, &highlights, show).text;
  }
  for (props::Property also : e.also_holds) add_holds(matrix, algorithm, also);
  if (!e.also_holds.empty() && options.verbose) out += wrap_field("    Yet: ", r.outcome.substr(r.outcome.find(';') + 2), width);
  if (!r.as_expected) {
    all_expected = false;
    out += wrap_field("    " + style.red("UNEXPECTED") + ": ", r.outcome, width);
  }
  if (!e.fix.empty()) {
    if (r.fix_as_expected)
      add_holds(matrix, e.fix, e.fix_property.value_or(e.property));
    else
      all_expected = false;
    if (options.verbose || !r.fix_as_expected)
      out += wrap_field("    Fixed by ", style.bold(fix_name(e)) + ": " + fix_result(e, r), width);
  }
  return out;
}

// A cost or a survivor: one line.
std::string show_line(const props::CatalogueEntry& e, const TimedOutcome& t, const Style& style, int width,
                      bool verbose, Matrix& matrix, bool& all_expected) {
  const props::EntryOutcome& r = t.outcome;
  const std::string algorithm = e.model.base.algorithm;
  std::string text;
  if (e.expected == props::Expectation::Metric) {
    text = verbose ? fmt::format("{}: a cost, not a violation; {} reached {} in {} (documented: at least {})", e.title,
                                 props::to_string(e.metric),
                                 render::human_duration(props::metric_value(r.metrics, e.metric)),
                                 plural(r.runs, "run"), render::human_duration(e.metric_at_least))
                   : fmt::format("{}: a cost, not a violation ({} up to {})", e.title, props::to_string(e.metric),
                                 render::human_duration(props::metric_value(r.metrics, e.metric)));
  } else {
    text = verbose ? fmt::format("{}: {}", e.title, r.outcome)
                   : fmt::format("{}{}", e.title, r.as_expected ? " (held in every run the search made)" : "");
    if (r.as_expected) {
      add_holds(matrix, algorithm, e.property);
      for (props::Property also : e.also_holds) add_holds(matrix, algorithm, also);
    }
  }
  if (!r.as_expected) {
    all_expected = false;
    text += " (UNEXPECTED)";
  }
  if (!e.fix.empty()) {
    if (r.fix_as_expected)
      add_holds(matrix, e.fix, e.fix_property.value_or(e.property));
    else
      all_expected = false;
    if (verbose || !r.fix_as_expected) text += fmt::format("; fixed by {}: {}", fix_name(e), fix_result(e, r));
    else text += fmt::format("; fixed by {}", fix_name(e));
  }
  return "\n" + wrap_field(style.bold(e.id) + "  ", text, width);
}

std::string rule(const Style& style, const std::string& head, int width) {
  std::string line = "== " + head + " ";
  while (static_cast<int>(line.size()) < width) line += '=';
  return style.bold(line) + "\n";
}

// Explores the tour's entries, in the order the tour prints them, on a few
// threads; a chapter waits only for its own entries, so it is printed as soon
// as they are done.
class Exploration {
 public:
  Exploration(std::vector<const props::CatalogueEntry*> entries, props::EntryOptions options, unsigned jobs)
      : entries_(std::move(entries)), options_(options), results_(entries_.size()), done_(entries_.size(), false) {
    jobs = std::max(1u, std::min<unsigned>(jobs, static_cast<unsigned>(entries_.size())));
    for (unsigned j = 0; j < jobs && !entries_.empty(); ++j) threads_.emplace_back([this] { work(); });
  }
  ~Exploration() {
    stop_ = true;
    for (std::thread& t : threads_) t.join();
  }
  Exploration(const Exploration&) = delete;
  Exploration& operator=(const Exploration&) = delete;

  // The entry's outcome, once explored.
  const TimedOutcome& at(const props::CatalogueEntry* e) {
    const size_t i = static_cast<size_t>(std::find(entries_.begin(), entries_.end(), e) - entries_.begin());
    LOCKSIM_ASSERT(i < entries_.size(), "a chapter asked for an entry the tour does not explore");
    std::unique_lock lock(mutex_);
    if (!done_[i]) {
      Progress progress(fmt::format("tour: exploring {}", e->id), entries_.size());
      while (!done_[i]) {
        progress.update(finished_);
        changed_.wait_for(lock, std::chrono::milliseconds(100));
      }
    }
    return results_[i];
  }

 private:
  void work() {
    for (size_t i; !stop_ && (i = next_.fetch_add(1)) < entries_.size();) {
      const auto start = std::chrono::steady_clock::now();
      TimedOutcome out;
      try {
        out.outcome = props::run_entry(*entries_[i], options_);
      } catch (const std::exception& error) {
        out.outcome.entry = entries_[i];
        out.outcome.outcome = std::string("the search stopped: ") + error.what();
      }
      out.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      std::lock_guard lock(mutex_);
      results_[i] = std::move(out);
      done_[i] = true;
      ++finished_;
      changed_.notify_all();
    }
  }

  std::vector<const props::CatalogueEntry*> entries_;
  props::EntryOptions options_;
  std::vector<TimedOutcome> results_;
  std::vector<bool> done_;
  size_t finished_ = 0;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::atomic<size_t> next_{0};
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};
using ByEntry = Exploration;

// The modelled entries the tour shows (all, or those of --only's algorithm).
std::vector<const props::CatalogueEntry*> tour_entries(const TourOptions& options) {
  std::vector<const props::CatalogueEntry*> entries;
  for (const auto& e : props::catalogue()) {
    if (e.expected == props::Expectation::NotModelled) continue;
    if (!options.only.empty() && e.model.base.algorithm != options.only && e.fix != options.only) continue;
    entries.push_back(&e);
  }
  return entries;
}

std::string part_head(Part part, const Style& style) {
  switch (part) {
    case Part::MainLine:
      return "\n" + style.bold("Part 1. The lock in Redis, version by version") + "\n";
    case Part::Variants:
      return "\n" + style.bold("Part 2. Variants beside the main line") + "\n";
    case Part::Appendix:
      return "\n" + style.bold("Appendix. The same lock in a relational database, for contrast") + "\n";
  }
  return {};
}

// The Redlock chapter's argument: why it is safe, and what that rests on.
constexpr std::string_view kRedlockArgument =
    "The argument: a client that got the key on a majority of the N masters, within the validity time "
    "V = lease - time spent acquiring - clock drift, holds the lock for V; a rival needs a majority too, and two "
    "majorities share a master, which holds one key at a time. It rests on timing: (1) bounded pauses - a client "
    "paused past V still believes it holds (F13 again; fencing answers it); "
    "(2) bounded delays - a late reply eats V unseen; (3) bounded clock error - each master expires the key on its "
    "own clock, and a fast or jumping clock frees a vote early; (4) delayed restarts - a master that restarts "
    "without its data must stay down a lease before voting again, or it forgets a vote it gave (F18).";

// The argument, then tried: each scenario's outcome and the assumption it breaks.
std::string show_assumption_trials(const Style& style, int width, bool& all_expected) {
  const std::vector<AssumptionTrial> trials = try_redlock_assumptions();
  std::string out = wrap_field("", kRedlockArgument, width) +
                    wrap_field("", fmt::format("Tried, with --assume {}:", kRedlockAssumptions), width);
  size_t what_width = 0;
  for (const AssumptionTrial& t : trials) what_width = std::max(what_width, t.what.size());
  for (const AssumptionTrial& t : trials) {
    std::string outcome = t.violated ? style.red(fmt::format("both held {:<6}", render::human_duration(t.overlap)))
                                     : style.green(fmt::format("{:<16}", "held"));
    std::string judged = t.broken.empty() ? "inside every assumption" : fmt::format("breaks {}", fmt::join(t.broken, ", "));
    if (!t.as_argued()) {
      all_expected = false;
      judged += style.red(t.problem.empty() ? "  (not as argued)" : "  (" + t.problem + ")");
    }
    out += fmt::format("  {:<{}}  {}  {}\n", t.what, what_width, outcome, judged);
  }
  return out;
}

std::string introduction(const Style& style, int width) {
  std::string out = style.bold("The Redis lock evolution, one failure at a time") + "\n";
  out += wrap_field("",
                    "Each failure is told with a scenario, replayed in the simulator and checked to fail as its "
                    "title says (a picture per version; --verbose, tour --html: every one), then found again by the "
                    "random search without help, shrunk.",
                    width);
  out += wrap_field("",
                    "Lanes: # holding, - waiting, ~ paused, x crashed; letters are commands (S SET, N SETNX, T "
                    "GETSET, G GET, D DEL, E EXPIRE, L Lua, R resource write; capital: it changed the key); the "
                    "lock lane: whose key Redis holds; ^^^ the violation.",
                    width);
  return out;
}

// One algorithm's chapter: what it does, what it fixes, its failures and costs (or, with none of its own,
// the failures it fixes).
std::string show_algorithm(const lock::Algorithm& a, const std::string& head,
                           const std::vector<const props::CatalogueEntry*>& entries, ByEntry& by_entry,
                           const TourOptions& options, const Style& style, Matrix& matrix, bool& all_expected) {
  const int width = options.output.width;
  const std::string id(a.id);
  const bool brief = part_of(a) == Part::Appendix;
  std::string out = rule(style, head, width);  // the rule is the separator: no blank line before it
  out += wrap_field("What it does: ", a.summary, width);
  if (options.verbose) out += wrap_field("Described in:  ", lock::source_titles(a.documents), width);
  std::string fixes;
  for (const props::CatalogueEntry* e : entries)
    if (e->fix == id) fixes += fmt::format("{}{} ({})", fixes.empty() ? "" : ", ", e->id, e->model.base.algorithm);
  if (!fixes.empty() && options.verbose) out += wrap_field("Fixes:         ", fixes, width);
  bool any = false;
  bool pictured = false;  // a picture per version; --verbose: per failure (the HTML tour draws every one)
  for (const props::CatalogueEntry* e : entries) {
    if (e->model.base.algorithm != id) continue;
    any = true;
    const TimedOutcome& t = by_entry.at(e);
    if (e->expected == props::Expectation::Violated || e->expected == props::Expectation::ViolatedYetHolds) {
      out += show_failure(*e, t, options, style, matrix, all_expected, !brief && (options.verbose || !pictured),
                          !pictured);
      pictured = true;
    }
  }
  for (const props::CatalogueEntry* e : entries) {
    if (e->model.base.algorithm != id) continue;
    if (e->expected != props::Expectation::Metric && e->expected != props::Expectation::Survives) continue;
    // Costs and survivals are statistics: the matrix counts them; --verbose prints them.
    const std::string line = show_line(*e, by_entry.at(e), style, width, options.verbose, matrix, all_expected);
    if (options.verbose || !by_entry.at(e).outcome.as_expected) out += line;
  }
  if (id == "redlock") out += "\n" + show_assumption_trials(style, width, all_expected);
  if (!any && options.verbose) {
    // No failure of its own in the catalogue: what it fixes, checked.
    for (const props::CatalogueEntry* e : entries) {
      if (e->fix != id) continue;
      const props::EntryOutcome& r = by_entry.at(e).outcome;
      out += "\n" + wrap_field(style.bold(e->id) + "  ",
                               fmt::format("in {}: {}. Here: {}", e->model.base.algorithm, e->title,
                                           r.fix_outcome.empty() ? "not checked" : r.fix_outcome),
                               width);
    }
    out += "\nNo catalogue failure of its own yet.\n";
  } else if (!any && !fixes.empty()) {
    out += wrap_field("Fixes: ", fixes + "; no catalogue failure of its own.", width);
  }
  return out;
}

// The matrix: per algorithm and property, the catalogue failures found, ok, or not checked; then its legend.
std::string show_matrix(Matrix& matrix, const std::vector<std::string>& shown_algorithms, const Style& style,
                        int width) {
  std::string out = "\n" + rule(style, "what the tour found", width);
  std::array<size_t, std::size(props::kAllProperties)> col{};
  // A property no shown version was checked for gets no column (the matrix stays in 80 columns).
  std::array<bool, std::size(props::kAllProperties)> used{};
  for (const auto& id : shown_algorithms)
    for (size_t p = 0; p < col.size(); ++p) used[p] = used[p] || matrix[id][p].held || !matrix[id][p].violated.empty();
  for (size_t p = 0; p < col.size(); ++p) {
    col[p] = kShort[p].size();
    for (const auto& [algo, cells] : matrix) {
      std::string text;
      for (const auto& id : cells[p].violated) text += (text.empty() ? "" : ",") + id;
      col[p] = std::max(col[p], text.size());
    }
  }
  size_t first = 9;
  for (const auto& id : shown_algorithms) first = std::max(first, id.size());
  std::string head = fmt::format("{:<{}}", "algorithm", first);
  for (size_t p = 0; p < col.size(); ++p)
    if (used[p]) head += fmt::format("  {:<{}}", kShort[p], col[p]);
  while (!head.empty() && head.back() == ' ') head.pop_back();
  out += head + "\n";
  for (const auto& id : shown_algorithms) {
    const auto& cells = matrix[id];
    std::string row = fmt::format("{:<{}}", id, first);
    for (size_t p = 0; p < col.size(); ++p) {
      if (!used[p]) continue;
      std::string text;
      for (const auto& v : cells[p].violated) text += (text.empty() ? "" : ",") + v;
      std::string painted;
      if (!text.empty())
        painted = style.red(text);
      else if (cells[p].held)
        text = "ok", painted = style.green(text);
      else
        text = "\xc2\xb7", painted = style.dim(text);  // a middle dot: one column
      const size_t visible = text == "\xc2\xb7" ? 1 : text.size();
      row += "  " + painted + std::string(col[p] - visible, ' ');
    }
    while (!row.empty() && row.back() == ' ') row.pop_back();
    out += row + "\n";
  }
  out += "\n";
  std::string legend =
      "Fxx: the failure found on that version; ok: held in every run of a survive or fix check; "
      "\xc2\xb7: not checked.";
  out += wrap_field("", legend, width);
  return out;
}

// The catalogue entries whose system the simulator does not have yet.
std::string not_modelled(int width) {
  std::string missing;
  for (const auto& e : props::catalogue())
    if (e.expected == props::Expectation::NotModelled)
      missing +=
          wrap_field(fmt::format("  {}  ", e.id), fmt::format("{} ({})", e.title, e.model.base.algorithm), width);
  return missing.empty() ? std::string() : "\nNot yet modelled (so never counted as passed):\n" + missing;
}

}  // namespace

Part part_of(const lock::Algorithm& a) {
  if (a.uses_database) return Part::Appendix;
  for (std::string_view main : {"setnx-del", "setnx-expire", "del-setnx", "getset", "set-nx-px", "token-check-del",
                                "token-lua", "watchdog", "fenced", "redlock"})
    if (a.id == main) return Part::MainLine;
  return Part::Variants;  // reentrant, watch-multi, fair, pubsub-wait, and users' own
}

std::vector<const lock::Algorithm*> tour_order() {
  std::vector<const lock::Algorithm*> algos;
  for (const auto& a : lock::algorithms()) algos.push_back(&a);
  std::stable_sort(algos.begin(), algos.end(), [](auto* x, auto* y) { return part_of(*x) < part_of(*y); });
  return algos;
}

int cmd_tour(const TourOptions& options) {
  if (!options.only.empty()) check_algorithm(options.only);
  if (!options.html.empty()) return write_tour_html(options);
  Style style{options.output.use_colour()};
  const int width = options.output.width;

  // Every modelled entry, explored live in the order the chapters print them.
  const std::vector<const lock::Algorithm*> algos = tour_order();
  std::vector<const props::CatalogueEntry*> entries;
  for (const lock::Algorithm* a : algos)
    for (const props::CatalogueEntry* e : tour_entries(options))
      if (e->model.base.algorithm == a->id) entries.push_back(e);
  props::EntryOptions eo;
  eo.seed = kTourSeed;
  eo.budget = kTourBudget;
  eo.check_fix = true;
  Exploration by_entry(entries, eo, std::max(1u, std::min(2u, std::thread::hardware_concurrency())));

  if (options.only.empty()) std::cout << introduction(style, width) << std::flush;
  Matrix matrix;
  bool all_expected = true;
  std::vector<std::string> shown_algorithms;
  size_t number = 0;
  for (const lock::Algorithm* algorithm : algos) {
    const lock::Algorithm& a = *algorithm;
    ++number;
    const std::string id(a.id);
    if (!options.only.empty() && id != options.only) continue;
    std::string out;
    if (options.only.empty() && (number == 1 || part_of(a) != part_of(*algos[number - 2])))
      out += part_head(part_of(a), style);
    shown_algorithms.push_back(id);
    matrix[id];
    const std::string head = fmt::format("{}/{}  {}", number, algos.size(), id);
    out += show_algorithm(a, head, entries, by_entry, options, style, matrix, all_expected);
    std::cout << out << std::flush;  // each chapter as soon as it is ready
  }
  std::string out = show_matrix(matrix, shown_algorithms, style, width);
  if (options.only.empty()) out += not_modelled(width);
  if (!all_expected)
    out += "\n" +
           style.red("Some entries did not come out as documented (marked above): run '" + program_name() +
                     " catalogue'.") +
           "\n";
  out += "\n" + wrap_field("More: ", program_name() + " check ALGORITHM | replay SCENARIO --svg FILE | tour --html FILE",
                           width);
  std::cout << out;
  return all_expected ? 0 : 1;
}

}  // namespace locksim::cli

namespace locksim::cli {

Subcommand add_tour_command(CLI::App& parent) {
  auto options = std::make_shared<TourOptions>();
  auto* app = parent.add_subcommand("tour", "walk the lock evolution: each version, the failure found in it, the fix");
  app->add_option("--only", options->only, "show one algorithm only");
  app->add_flag("--verbose", options->verbose, "add the search's statistics (runs, shrinking, fix checks)");
  app->add_option("--html", options->html, "write the tour as one self-contained HTML page to FILE")
      ->type_name("FILE");
  add_output_options(*app, options->output, false);
  return {app, [options] { return cmd_tour(*options); }};
}

}  // namespace locksim::cli
