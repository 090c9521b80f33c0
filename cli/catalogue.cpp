// locksim catalogue: every entry of the failure catalogue, run live and
// compared with what docs/failures.md documents.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include <CLI/CLI.hpp>

#include "locksim/cli/commands.hpp"
#include "locksim/cli/entries.hpp"
#include "locksim/cli/progress.hpp"
#include "locksim/cli/subcommand.hpp"
#include "locksim/cli/verdicts.hpp"
#include "locksim/render/chrome_trace.hpp"

namespace locksim::cli {

namespace {

std::vector<std::string> split_ids(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    if (comma == std::string::npos) comma = s.size();
    std::string id = s.substr(pos, comma - pos);
    // "f07" is F07; a suffix keeps its case (F22a).
    if (!id.empty()) id[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(id[0])));
    if (!id.empty()) out.push_back(id);
    pos = comma + 1;
  }
  return out;
}

// A survival or fix check's tallies; null for an entry without one.
std::string count_or_null(const props::EntryOutcome& r, uint32_t n) {
  return r.has_fix_check() ? std::to_string(n) : "null";
}

bool passed(const TimedOutcome& t) { return t.outcome.as_expected && t.outcome.fix_as_expected; }

// Whether plain `check ALGO` finds the entry, and how fast: {"found", "run", "budget", "wall_ms"}, or null.
std::string generic_json(const props::EntryOutcome& r) {
  if (r.generic_budget == 0) return "null";
  return fmt::format("{{\"found\": {}, \"run\": {}, \"budget\": {}, \"wall_ms\": {:.1f}}}",
                     r.generic_run ? "true" : "false", r.generic_run ? std::to_string(*r.generic_run) : "null",
                     r.generic_budget, r.generic_ms);
}

std::string generic_text(const props::CatalogueEntry& e, const props::EntryOutcome& r) {
  const std::string& algorithm = e.model.base.algorithm;
  if (r.generic_run)
    return fmt::format("plain 'check {}' finds it at run {} ({:.0f} ms)", algorithm, *r.generic_run, r.generic_ms);
  return fmt::format("plain 'check {}' does not find it in {} runs ({:.0f} ms)", algorithm, r.generic_budget,
                     r.generic_ms);
}

std::vector<const props::CatalogueEntry*> select_entries(const std::string& only) {
  std::vector<const props::CatalogueEntry*> out;
  if (only.empty()) {
    for (const auto& e : props::catalogue()) out.push_back(&e);
    return out;
  }
  for (const auto& id : split_ids(only)) {
    const props::CatalogueEntry* e = props::find_entry(id);
    if (!e) {
      const auto& all = props::catalogue();
      throw UsageError(
          fmt::format("--only: no catalogue entry '{}' (entries {}..{})", id, all.front().id, all.back().id));
    }
    if (std::find(out.begin(), out.end(), e) != out.end())
      throw UsageError(fmt::format("--only: entry '{}' is named twice", id));
    out.push_back(e);
  }
  if (out.empty()) throw UsageError("--only: no entry named");
  return out;
}

}  // namespace

int cmd_catalogue(const CatalogueOptions& o) {
  const auto entries = select_entries(o.only);
  props::EntryOptions eo;
  eo.seed = o.seed;
  eo.budget = o.budget;
  eo.check_fix = !o.no_fix;
  eo.generic_budget = o.generic;
  std::vector<TimedOutcome> results;
  {
    Progress progress("catalogue", entries.size());
    results = run_entries(entries, eo, o.jobs);
    progress.finish();
  }
  bool all_passed = true;
  for (const auto& r : results) all_passed = all_passed && passed(r);

  std::string out;
  if (o.json) {
    out += "[\n";
    for (size_t i = 0; i < results.size(); ++i) {
      const auto& r = results[i].outcome;
      const auto& e = *entries[i];
      out += fmt::format(
          "  {{\"id\": {}, \"algorithm\": {}, \"property\": {}, \"expected\": {}, \"outcome\": {}, \"as_expected\": "
          "{}, "
          "\"runs\": {}, \"wall_ms\": {:.1f}, \"replay\": {}, \"fix\": {}, \"fix_outcome\": {}, \"fix_as_expected\": "
          "{}, "
          "\"fix_runs\": {}, \"fix_bites\": {}, \"fix_held\": {}, \"cause_found\": {}, \"generic\": {}}}{}\n",
          render::json_string(e.id), render::json_string(e.model.base.algorithm),
          render::json_string(props::to_string(e.property)), render::json_string(props::to_string(e.expected)),
          render::json_string(r.outcome), r.as_expected ? "true" : "false", r.runs, results[i].wall_ms,
          r.counterexample ? render::json_string(replay_command(r.counterexample->shrunk)) : "null",
          e.fix.empty() ? "null" : render::json_string(e.fix),
          r.fix_outcome.empty() ? "null" : render::json_string(r.fix_outcome), r.fix_as_expected ? "true" : "false",
          count_or_null(r, r.fix_runs), count_or_null(r, r.fix_bites), count_or_null(r, r.fix_held),
          r.cause_found ? "true" : "false", generic_json(r), i + 1 < results.size() ? "," : "");
    }
    out += "]\n";
    std::cout << out;
    return all_passed ? 0 : 1;
  }

  const bool colour = o.output.use_colour();
  auto paint = [&](const std::string& s, const char* code) {
    return colour ? fmt::format("\x1b[{}m{}\x1b[0m", code, s) : s;
  };
  out += fmt::format("{:<4} {:<15} {:<18} {:<18} {:<3} {:>5} {:>7}\n", "id", "algorithm", "property", "expected", "ok?",
                     "runs", "wall ms");
  size_t passes = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i].outcome;
    const auto& e = *entries[i];
    const bool ok = passed(results[i]);
    passes += ok;
    std::string result = fmt::format("{:<3}", ok ? "yes" : "NO");
    out += fmt::format("{:<4} {:<15} {:<18} {:<18} {} {:>5} {:>7.0f}\n", e.id, e.model.base.algorithm,
                       props::to_string(e.property), props::to_string(e.expected), paint(result, ok ? "32" : "1;31"),
                       r.runs, results[i].wall_ms);
    out += fmt::format("     {}\n", r.outcome);
    if (!r.fix_outcome.empty())
      out += fmt::format("     fixed by {}{}: {}\n", e.fix, e.fix_params.empty() ? "" : " with " + e.fix_params,
                         r.fix_outcome);
    if (r.counterexample) out += fmt::format("     replay: {}\n", replay_command(r.counterexample->shrunk));
    if (r.generic_budget > 0) out += fmt::format("     {}\n", generic_text(e, r));
  }
  out += fmt::format("\n{} of {} entries as documented (a failure counts only with its documented cause){}\n", passes,
                     results.size(), all_passed ? "" : " (the others are marked NO)");
  std::cout << out;
  return all_passed ? 0 : 1;
}

}  // namespace locksim::cli

namespace locksim::cli {

Subcommand add_catalogue_command(CLI::App& parent) {
  auto o = std::make_shared<CatalogueOptions>();
  auto* app = parent.add_subcommand(
      "catalogue", "run every catalogue entry (F01...F23) live and compare with its documented verdict");
  app->footer(
      "Exit status 0 only when every entry (and its fix) came out as documented. An entry counts as found "
      "only when the run's classified cause is the one the catalogue documents (e.g. F13: the lease expired "
      "while the holder was paused); --generic N also says whether plain 'check ALGO' finds it.");
  app->add_flag("--json", o->json,
                "print a JSON array of objects (id, algorithm, property, expected, outcome, as_expected, runs, "
                "wall_ms, replay, fix, fix_outcome, fix_as_expected, fix_runs, fix_bites: runs of the survival or fix "
                "check and those of them in which the pre-fix version fails, fix_held: runs that acquired, "
                "cause_found, generic)");
  app->add_option("--only", o->only, "only these entries, e.g. F07,F10")
      ->check(CLI::Validator([](const std::string& v) { return v.empty() ? "no entry named" : ""; }, "IDS"));
  app->add_option("--seed", o->seed, "the explorer's seed (default 1)")->check(seed_validator());
  app->add_option("--budget", o->budget, "most runs to look for each violation (default 2000)")
      ->check(CLI::Range(1, 100'000'000));
  app->add_flag("--no-fix", o->no_fix, "do not check that each fix survives the same faults");
  app->add_option("--generic", o->generic,
                  "also look for each entry with plain 'check ALGO' (no tuning) for up to this many runs, and say at "
                  "which run it shows (default 0: do not)")
      ->check(CLI::Range(0, 100'000'000));
  app->add_option("--jobs", o->jobs, "entries run at once (their wall times then overlap)")->check(CLI::Range(1, 256));
  add_output_options(*app, o->output, false);
  return {app, [o] { return cmd_catalogue(*o); }};
}

}  // namespace locksim::cli
