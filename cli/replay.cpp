// locksim replay: re-run a scenario printed by check, the catalogue or the
// tour (or saved in a file, as a scenario or a regression line), with its
// trace recorded, check it, and draw it.
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "locksim/cli/commands.hpp"
#include "locksim/cli/program_name.hpp"
#include "locksim/cli/replay_real.hpp"
#include "locksim/cli/subcommand.hpp"
#include "locksim/cli/verdicts.hpp"
#include "locksim/props/cause_proof.hpp"
#include "locksim/props/defaults.hpp"
#include "locksim/props/regression.hpp"
#include "locksim/props/shrink_memo.hpp"
#include "locksim/sim/files.hpp"

namespace locksim::cli {

namespace {

struct Loaded {
  props::Scenario scenario;
  std::optional<props::Regression> expectation;  // a regression line says what must happen
  std::string origin;                            // "FILE:LINE" or "" for text
};

std::string trim(std::string_view s) {
  size_t a = s.find_first_not_of(" \t\r\n");
  if (a == std::string_view::npos) return "";
  size_t b = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(a, b - a + 1));
}

// The text as a scenario, a regression line, or a pasted replay command.
Loaded parse_text(std::string text, const std::string& where, const std::string& folder = "") {
  const std::string prefix = where.empty() ? "malformed scenario" : where;
  // A pasted replay line: ours, or locksim's (the same scenario either way).
  for (const std::string& program : {program_name(), std::string("locksim")})
    if (text.rfind(program + " replay ", 0) == 0) {
      text = trim(text.substr(program.size() + 8));
      break;
    }
  // check prints the assumptions after the scenario ('...' --assume 'words'): the
  // scenario alone is the run (the assumptions change no event of it).
  if (const size_t assume = text.rfind("' --assume '"); assume != std::string::npos && text.back() == '\'')
    text = text.substr(0, assume + 1);
  if (text.size() >= 2 && text.front() == '\'' && text.back() == '\'') text = text.substr(1, text.size() - 2);
  Loaded l;
  l.origin = where;
  std::string error;
  if (text.rfind("violates ", 0) == 0 || text.rfind("holds ", 0) == 0) {
    auto r = props::parse_regression(text, &error, folder);
    if (!r) throw UsageError(fmt::format("{}: {}", prefix, error));
    l.scenario = r->scenario;
    l.expectation = *r;
    return l;
  }
  auto s = props::parse_scenario(text, &error);
  if (!s) throw UsageError(fmt::format("{}: {}", prefix, error));
  l.scenario = *s;
  return l;
}

bool looks_like_path(const std::string& arg) {
  return arg.find(' ') == std::string::npos && (arg.find('/') != std::string::npos || arg.ends_with(".txt") ||
                                                arg.ends_with(".scenario") || arg.ends_with(".regressions"));
}

Loaded load(const std::string& arg, int wanted_line) {
  std::error_code ec;
  const bool is_file = std::filesystem::is_regular_file(arg, ec);
  if (!is_file) {
    if (std::filesystem::exists(arg, ec)) throw UsageError(fmt::format("cannot read '{}': not a regular file", arg));
    if (looks_like_path(arg)) throw UsageError(fmt::format("cannot read '{}': {}", arg, std::strerror(ENOENT)));
    return parse_text(trim(arg), "");
  }
  std::string error;
  auto text = sim::read_input_file(arg, sim::kMaxInputBytes, &error);
  if (!text) throw UsageError(error);
  std::istringstream in(*text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::string t = trim(line);
    if (wanted_line > 0 && number != wanted_line) continue;
    if (t.empty() || t[0] == '#') {
      if (wanted_line > 0) throw UsageError(fmt::format("{}:{}: no scenario on that line", arg, number));
      continue;
    }
    return parse_text(t, fmt::format("{}:{}", arg, number), std::filesystem::path(arg).parent_path().string());
  }
  if (wanted_line > 0) throw UsageError(fmt::format("{}: --line {}: the file is shorter", arg, wanted_line));
  throw UsageError(fmt::format("{}: no scenario in the file (only blank lines and # comments)", arg));
}

// Each violation's cause, proven as check proves it (props/cause_proof.hpp): a replay
// without each element of the scenario. Where the proof re-labels a cause, the violation
// takes the proven one, and the line saying how is returned ("" where none changed), so
// that replaying a line check printed tells the cause check told.
std::string prove_causes(props::Verdict& verdict, const props::Scenario& s, const props::Assumptions& assumed) {
  props::ReplayCache replays(props::CheckOptions{});
  std::string lines;
  for (props::Violation& v : verdict.violations) {
    if (v.property == props::Property::VariantError) continue;
    const props::CauseProof proof = props::prove_cause(s, v, assumed, replays);
    if (!proof.relabelled_by) continue;
    v = props::proven_violation(v, proof);
    lines += fmt::format("proof:      {}: {}\n", props::to_string(v.property), props::proof_text(proof));
  }
  return lines;
}

}  // namespace

int cmd_replay(const ReplayOptions& options) {
  check_output_paths(options.output);
  if (options.line > 0 && !std::filesystem::is_regular_file(options.scenario))
    throw UsageError(fmt::format("--line {} needs a file, and '{}' is not one", options.line, options.scenario));
  Loaded l = load(options.scenario, options.line);
  std::string why;
  const auto assumed = props::parse_assumptions(options.assume, &why);
  if (!assumed) throw UsageError("--assume: " + why);
  if (auto broken = props::breaks_assumptions(l.scenario, *assumed))
    throw UsageError(fmt::format("the scenario breaks an assumption: {}", *broken));
  if (options.real) return cmd_replay_real(l.scenario, options);
  Recorded rec;
  try {
    rec = run_recorded(l.scenario);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("{}: {}", l.origin.empty() ? "scenario" : l.origin, e.what()));
  }
  const std::string proofs = prove_causes(rec.verdict, l.scenario, *assumed);
  const lock::SimulationConfig& c = l.scenario;
  std::vector<render::Highlight> highlights =
      l.expectation ? highlights_of(rec.verdict, l.expectation->property) : highlights_of(rec.verdict);
  std::string title =
      fmt::format("{}: seed {}, {} client{}, {} iteration{}", c.algorithm, c.seed, c.workload.clients,
                  c.workload.clients == 1 ? "" : "s", c.workload.iterations, c.workload.iterations == 1 ? "" : "s");
  ShownRun shown = show_run(*rec.sim, title, options.output, &highlights);
  std::string out = shown.text + "\n";
  out += fmt::format("scenario:   {}\n", props::to_string(l.scenario));
  if (l.expectation && !l.expectation->variant.empty()) {
    const props::Regression& r = *l.expectation;
    out += fmt::format("variant:    {}{}\n", r.variant_path,
                       r.variant_changed() ? fmt::format(" (changed since the line was saved: sha1 {} then, {} now)",
                                                         r.variant_sha1.substr(0, 12), r.variant_sha1_now.substr(0, 12))
                                           : "");
  }
  if (rec.verdict.violations.empty()) {
    out += "verdict:    every property held\n";
  } else {
    std::string which;
    for (const auto& v : rec.verdict.violations)
      which += (which.empty() ? "" : ", ") + std::string(props::to_string(v.property));
    out += fmt::format("verdict:    violated: {}\n", which);
    for (const auto& v : rec.verdict.violations)
      out += fmt::format("cause:      {}: {}\n", props::to_string(v.property), props::to_string(v.cause));
    out += proofs;
  }
  int status = 0;
  if (l.expectation) {
    const bool violated = !rec.verdict.holds(l.expectation->property);
    const bool kept = violated == l.expectation->violates;
    out += fmt::format("expected:   {} {}: {}\n", l.expectation->violates ? "violates" : "holds",
                       props::to_string(l.expectation->property), kept ? "as expected" : "NOT as expected");
    if (!kept) status = 1;
  }
  out += fmt::format("trace hash: {:016x}\n", rec.trace_hash);
  if (options.output.raw_trace) out += "\n" + rec.sim->world().trace().render();
  std::cout << out << std::flush;
  write_outputs(shown, std::cout);
  if (!rec.verdict.holds(props::Property::VariantError) && status == 0) status = 2;  // the variant's file needs fixing
  return status;
}

}  // namespace locksim::cli

namespace locksim::cli {

Subcommand add_replay_command(CLI::App& parent) {
  auto options = std::make_shared<ReplayOptions>();
  auto* app = parent.add_subcommand("replay", "re-run a printed or saved scenario, check it and show its timeline");
  app->add_option("SCENARIO", options->scenario,
                  "the scenario text as printed (quote it), or a file holding one: its first line that is not "
                  "blank or a # comment, a scenario or a regression line 'violates PROPERTY: SCENARIO'")
      ->required();
  app->add_option("--line", options->line, "with a file: replay its line N (a scenario or a regression line)")
      ->check(CLI::PositiveNumber);
  app->add_option("--assume", options->assume,
                  "the assumptions the scenario was found under (as check's --assume): the scenario must keep them");
  add_output_options(*app, options->output);
  app->add_flag("--real", options->real,
                "also run the scenario against real redis-server processes in real time, with real faults, and "
                "compare (exit 0 when the real run agrees with the simulation, 1 when not, 3 when a fault cannot be "
                "injected for real)");
  app->add_option("--time-scale", options->time_scale, "--real: stretch every duration this many times")
      ->capture_default_str();
  app->add_option("--redis-server", options->redis_server, "--real: the redis-server binary (default: PATH)");
  app->add_option("--attempts", options->attempts, "--real: real runs tried before 'not reproduced'")
      ->capture_default_str();
  return {app, [options] { return cmd_replay(*options); }};
}

}  // namespace locksim::cli
