// The tour: the lock evolution in order. For each version: what it changes,
// then each catalogue failure of that version found LIVE by the explorer
// (props::run_entry with a fixed seed, so the tour reads the same every
// time), shrunk, re-run with its trace recorded and drawn as a timeline with
// the violation highlighted and explained, and the version that fixes it,
// checked under the same faults. It ends with a matrix of algorithms x
// properties built from what the tour itself found and checked.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <thread>

#include <CLI/CLI.hpp>

#include "locksim/cli/commands.hpp"
#include "locksim/cli/entries.hpp"
#include "locksim/cli/progress.hpp"
#include "locksim/cli/subcommand.hpp"
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

// One failure: found, shrunk, drawn, fixed.
std::string show_failure(const props::CatalogueEntry& e, const TimedOutcome& t, const TourOptions& options,
                         const Style& style, Matrix& matrix, bool& all_expected) {
  const props::EntryOutcome& r = t.outcome;
  const int width = options.output.width;
  const std::string algorithm = e.model.base.algorithm;
  std::string out = "\n" + wrap_field(style.bold(e.id) + "  ", e.title, width);
  if (!r.counterexample) {
    all_expected = false;
    out += "    " + style.red("NOT FOUND") + ": " + r.outcome + "\n";
    return out;
  }
  const props::Counterexample& ce = *r.counterexample;
  const props::Property p = ce.violation.property;
  matrix[algorithm][property_index(p)].violated.push_back(e.id);
  const uint32_t clients = ce.shrunk.workload.clients;
  out += wrap_field("    ",
                    fmt::format("The explorer broke {} in run {} of seed {} and shrank it in {} to {} and {}:",
                                props::to_string(p), ce.run, kTourSeed, plural(ce.shrink_runs, "run"),
                                plural(clients, "client"), plural(ce.shrunk.workload.iterations, "iteration")),
                    width);
  Recorded rec = run_recorded(ce.shrunk);
  std::vector<render::Highlight> highlights = highlights_of(rec.verdict, p);
  if (highlights.size() > 1) highlights.resize(1);  // the one this entry is about
  ShowOptions show;
  show.indent = "    ";
  show.story_lines = 5;
  show.legend = false;
  const std::string title;  // the Replay line below names the scenario
  ShownRun shown = show_run(*rec.sim, title, options.output, &highlights, show);
  out += shown.text;
  for (props::Property also : e.also_holds) {
    add_holds(matrix, algorithm, also);
  }
  if (!e.also_holds.empty()) out += wrap_field("    Yet: ", r.outcome.substr(r.outcome.find(';') + 2), width);
  if (!r.as_expected) {
    all_expected = false;
    out += wrap_field("    " + style.red("UNEXPECTED") + ": ", r.outcome, width);
  }
  if (!e.fix.empty()) {
    if (r.fix_as_expected)
      add_holds(matrix, e.fix, e.fix_property.value_or(e.property));
    else
      all_expected = false;
    out += wrap_field("    Fixed by ", style.bold(fix_name(e)) + ": " + fix_result(e, r), width);
  }
  out += "    Replay: " + replay_command(ce.shrunk) + "\n";
  return out;
}

// A cost or a survivor: one line.
std::string show_line(const props::CatalogueEntry& e, const TimedOutcome& t, const Style& style, int width,
                      Matrix& matrix, bool& all_expected) {
  const props::EntryOutcome& r = t.outcome;
  const std::string algorithm = e.model.base.algorithm;
  std::string text;
  if (e.expected == props::Expectation::Metric) {
    text = fmt::format("{}: a cost, not a violation; {} reached {} in {} (documented: at least {})", e.title,
                       props::to_string(e.metric), render::human_duration(props::metric_value(r.metrics, e.metric)),
                       plural(r.runs, "run"), render::human_duration(e.metric_at_least));
  } else {
    text = fmt::format("{}: {}", e.title, r.outcome);
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
    text += fmt::format("; fixed by {}: {}", fix_name(e), fix_result(e, r));
  }
  return "\n" + wrap_field(style.bold(e.id) + "  ", text, width);
}

std::string rule(const Style& style, const std::string& head, int width) {
  std::string line = "== " + head + " ";
  while (static_cast<int>(line.size()) < width) line += '=';
  return style.bold(line) + "\n";
}

using ByEntry = std::map<const props::CatalogueEntry*, const TimedOutcome*>;

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

// The posts place the database locks first, before Redis: so does the tour.
std::vector<const lock::Algorithm*> tour_order() {
  std::vector<const lock::Algorithm*> algos;
  for (const auto& a : lock::algorithms())
    if (a.uses_database) algos.push_back(&a);
  for (const auto& a : lock::algorithms())
    if (!a.uses_database) algos.push_back(&a);
  return algos;
}

constexpr std::string_view kDatabaseChapter =
    "The first post locks in a relational database: a row in a lock table whose unique key admits one "
    "inserter, or an exclusive row lock taken with SELECT ... FOR UPDATE inside a transaction. The 'db:lock' "
    "lane shows whose row (or row lock) the database holds; letters are SQL statements (P INSERT, Z DELETE, "
    "Q SELECT, F SELECT ... FOR UPDATE, U UPDATE, B BEGIN, C COMMIT, K ROLLBACK). A statement that waits for "
    "a row lock is answered when the database grants it.";
constexpr std::string_view kRedisChapter =
    "Then the lock moves to Redis, for speed: a key set if absent, its expiry, its owner's token, and what "
    "production locks add.";

std::string chapter(bool database, const Style& style, int width) {
  return "\n" + style.bold(database ? "Before Redis: the lock kept in a database" : "Redis: the lock kept in a key") +
         "\n" + wrap_field("", database ? kDatabaseChapter : kRedisChapter, width);
}

std::string introduction(const Style& style, int width) {
  std::string out = style.bold("The Redis lock evolution, one failure at a time") + "\n\n";
  out += wrap_field("",
                    "Each version of the lock fixes a failure of the one before and has failures of its own. "
                    "For each, the explorer draws random runs with faults (crashes, pauses, slow work, clock "
                    "skew...) in the deterministic simulator until a property breaks, then shrinks that run to "
                    "a minimal one, drawn below over true time.",
                    width);
  out += "\n";
  out += wrap_field("",
                    "Lanes: # holding the lock, - waiting, ~ paused, x crashed. Letters under a lane are that "
                    "client's Redis commands (S SET, N SETNX, T GETSET, G GET, D DEL, E EXPIRE, L Lua script, "
                    "R resource write; capital: it changed the key). The 'lock' lane shows whose key is in "
                    "Redis (small letter: no expiry); ^^^ marks the violation.",
                    width);
  return out;
}

// One algorithm's chapter: what it does, what it fixes, its failures and costs (or, with none of its own,
// the failures it fixes).
std::string show_algorithm(const lock::Algorithm& a, const std::string& head,
                           const std::vector<const props::CatalogueEntry*>& entries, const ByEntry& by_entry,
                           const TourOptions& options, const Style& style, Matrix& matrix, bool& all_expected) {
  const int width = options.output.width;
  const std::string id(a.id);
  std::string out = "\n" + rule(style, head, width);
  out += wrap_field("What it does: ", a.summary, width);
  out += wrap_field("Described in:  ", lock::source_titles(a.documents), width);
  std::string fixes;
  for (const props::CatalogueEntry* e : entries)
    if (e->fix == id) fixes += fmt::format("{}{} ({})", fixes.empty() ? "" : ", ", e->id, e->model.base.algorithm);
  if (!fixes.empty()) out += wrap_field("Fixes:         ", fixes, width);
  bool any = false;
  for (const props::CatalogueEntry* e : entries) {
    if (e->model.base.algorithm != id) continue;
    any = true;
    const TimedOutcome& t = *by_entry.at(e);
    if (e->expected == props::Expectation::Violated || e->expected == props::Expectation::ViolatedYetHolds)
      out += show_failure(*e, t, options, style, matrix, all_expected);
  }
  for (const props::CatalogueEntry* e : entries) {
    if (e->model.base.algorithm != id) continue;
    if (e->expected == props::Expectation::Metric || e->expected == props::Expectation::Survives)
      out += show_line(*e, *by_entry.at(e), style, width, matrix, all_expected);
  }
  if (!any) {
    // No failure of its own in the catalogue: what it fixes, checked.
    for (const props::CatalogueEntry* e : entries) {
      if (e->fix != id) continue;
      const props::EntryOutcome& r = by_entry.at(e)->outcome;
      out += "\n" + wrap_field(style.bold(e->id) + "  ",
                               fmt::format("in {}: {}. Here: {}", e->model.base.algorithm, e->title,
                                           r.fix_outcome.empty() ? "not checked" : r.fix_outcome),
                               width);
    }
    out += "\nNo catalogue failure of its own yet.\n";
  }
  return out;
}

// The matrix: per algorithm and property, the catalogue failures found, ok, or not checked; then its legend.
std::string show_matrix(Matrix& matrix, const std::vector<std::string>& shown_algorithms, const Style& style,
                        int width) {
  std::string out = "\n" + rule(style, "what the tour found", width);
  std::array<size_t, std::size(props::kAllProperties)> col{};
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
  for (size_t p = 0; p < col.size(); ++p) head += fmt::format("  {:<{}}", kShort[p], col[p]);
  while (!head.empty() && head.back() == ' ') head.pop_back();
  out += head + "\n";
  for (const auto& id : shown_algorithms) {
    const auto& cells = matrix[id];
    std::string row = fmt::format("{:<{}}", id, first);
    for (size_t p = 0; p < col.size(); ++p) {
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
      "Fxx: the explorer found that catalogue failure on that version. ok: held in every run of a "
      "survive or fix check (under that entry's faults). \xc2\xb7: not checked. Columns: ";
  for (size_t p = 0; p < col.size(); ++p)
    legend += fmt::format("{}{} = {}", p ? ", " : "", kShort[p], props::to_string(props::kAllProperties[p]));
  legend += ".";
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

int cmd_tour(const TourOptions& options) {
  if (!options.only.empty()) check_algorithm(options.only);
  Style style{options.output.use_colour()};
  const int width = options.output.width;

  // Every modelled entry, run live: in parallel, but printed in order.
  const std::vector<const props::CatalogueEntry*> entries = tour_entries(options);
  props::EntryOptions eo;
  eo.seed = kTourSeed;
  eo.budget = kTourBudget;
  eo.check_fix = true;
  std::vector<TimedOutcome> results;
  {
    Progress progress("tour: exploring", entries.size());
    results = run_entries(entries, eo, std::max(1u, std::min(2u, std::thread::hardware_concurrency())));
    progress.finish();
  }
  ByEntry by_entry;
  for (size_t i = 0; i < entries.size(); ++i) by_entry[entries[i]] = &results[i];

  std::string out;
  if (options.only.empty()) out += introduction(style, width);
  Matrix matrix;
  bool all_expected = true;
  const std::vector<const lock::Algorithm*> algos = tour_order();
  std::vector<std::string> shown_algorithms;
  size_t number = 0;
  for (const lock::Algorithm* algorithm : algos) {
    const lock::Algorithm& a = *algorithm;
    ++number;
    const std::string id(a.id);
    if (!options.only.empty() && id != options.only) continue;
    if (options.only.empty() && (number == 1 || a.uses_database != algos[number - 2]->uses_database))
      out += chapter(a.uses_database, style, width);
    shown_algorithms.push_back(id);
    matrix[id];
    const std::string head = fmt::format("{}/{}  {}", number, algos.size(), id);
    out += show_algorithm(a, head, entries, by_entry, options, style, matrix, all_expected);
  }
  out += show_matrix(matrix, shown_algorithms, style, width);
  if (options.only.empty()) out += not_modelled(width);
  if (!all_expected)
    out +=
        "\n" + style.red("Some entries did not come out as documented (marked above): run 'locksim catalogue'.") + "\n";
  out += "\nMore: locksim check ALGORITHM, locksim catalogue, locksim replay SCENARIO\n";
  std::cout << out;
  return all_expected ? 0 : 1;
}

}  // namespace locksim::cli

namespace locksim::cli {

Subcommand add_tour_command(CLI::App& parent) {
  auto options = std::make_shared<TourOptions>();
  auto* app = parent.add_subcommand("tour", "walk the lock evolution: each version, the failure found in it, the fix");
  app->add_option("--only", options->only, "show one algorithm only");
  add_output_options(*app, options->output, false);
  return {app, [options] { return cmd_tour(*options); }};
}

}  // namespace locksim::cli
