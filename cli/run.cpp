#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include <CLI/CLI.hpp>

#include "locksim/cli/commands.hpp"
#include "locksim/cli/subcommand.hpp"
#include "locksim/cli/verdicts.hpp"
#include "locksim/lock/sources.hpp"
#include "locksim/props/claims.hpp"
#include "locksim/render/chrome_trace.hpp"
#include "locksim/render/sequence.hpp"
#include "locksim/render/svg.hpp"
#include "locksim/render/text.hpp"
#include "locksim/sim/files.hpp"

namespace locksim::cli {

void write_file(const std::string& path, const std::string& text) {
  std::string error;
  if (!sim::write_file_atomically(path, text, false, &error)) throw UsageError(error);
}

void check_output_paths(const OutputOptions& output, const std::string& save) {
  namespace fs = std::filesystem;
  std::vector<std::pair<std::string, fs::path>> seen;
  for (const auto& [flag, path] : {std::pair<std::string, std::string>{"--trace-json", output.trace_json},
                                   {"--svg", output.svg},
                                   {"--save", save}}) {
    if (path.empty()) continue;
    if (auto problem = sim::output_path_problem(path)) throw UsageError(fmt::format("{}: {}", flag, *problem));
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(path, ec);
    for (const auto& [other_flag, other] : seen)
      if (!ec && canonical == other)
        throw UsageError(
            fmt::format("{}: '{}' is also given to {}; each output needs its own file", flag, path, other_flag));
    seen.emplace_back(flag, canonical);
  }
}

void write_outputs(const ShownRun& shown, std::ostream& out) {
  for (const auto& [path, content] : shown.files) {
    write_file(path, content);
    out << fmt::format("wrote {}{}\n", path, path.ends_with(".svg") ? "" : " (open it in https://ui.perfetto.dev)");
    out.flush();
  }
}

ShownRun show_run(lock::Simulation& sim, const std::string& title, const OutputOptions& output,
                  const std::vector<render::Highlight>* highlights, const ShowOptions& show) {
  const std::vector<render::Highlight> drawn = highlights ? *highlights : highlights_of(check_simulation(sim));
  RunRecord record{sim.history(), sim.world().trace(), sim.config().lock.key, sim.trace_hash(), sim.config().replica};
  return show_run(record, title, output, drawn, show);
}

ShownRun show_run(const RunRecord& run, const std::string& title, const OutputOptions& output,
                  const std::vector<render::Highlight>& highlights, const ShowOptions& show) {
  const std::string& indent = show.indent;
  render::TimelineOptions topt;
  topt.title = title;
  topt.key = run.key;
  topt.replica = run.replica;
  const sim::Trace* trace = &run.trace;
  render::Timeline t = render::build_timeline(run.history, trace, topt);
  t.highlights = highlights;
  // The drawing ends a little after the last violation or event, so the picture stays readable.
  if (!t.highlights.empty()) {
    // Up to the end of the involved clients' holds that overlap the first violation, plus a margin.
    const render::Highlight& h = t.highlights.front();
    sim::Instant last = h.to;
    for (uint32_t c : h.clients) {
      if (c >= t.clients.size()) continue;
      bool in = false;
      for (const auto& s : t.clients[c].spans) {
        bool held = s.state == render::State::Holding || (s.state == render::State::Paused && s.holding);
        if (held && s.from <= h.to && h.from <= s.to)
          in = true;
        else if (!held && in && s.from >= h.to)
          break;
        if (in && held) last = std::max(last, s.to);
      }
    }
    sim::Instant end = last + (last - sim::Instant{}) / 8;
    // A run that ends with its violation (a crash leaving the key forever)
    // gets the same margin, so the crash and the orphaned key show.
    if (end < t.end || last >= t.end) {
      topt.end = end;
      topt.highlights = t.highlights;
      t = render::build_timeline(run.history, trace, topt);
    }
  }
  ShownRun shown;
  shown.highlights = t.highlights;
  shown.trace_hash = run.trace_hash;
  render::TextOptions text;
  text.width = output.width - static_cast<int>(indent.size());
  text.colour = output.use_colour();
  text.legend = show.legend;
  text.story = show.story_lines > 0;
  text.story_lines = show.story_lines;
  std::string body = render::render_text(t, text);
  if (!indent.empty()) {
    std::string indented;
    size_t pos = 0;
    while (pos < body.size()) {
      size_t nl = body.find('\n', pos);
      indented += indent + body.substr(pos, nl - pos + 1);
      pos = nl == std::string::npos ? body.size() : nl + 1;
    }
    body = indented;
  }
  shown.text = body;

  if (!output.trace_json.empty() || !output.svg.empty()) {
    // Files show the whole run.
    render::TimelineOptions whole;
    whole.title = title;
    whole.key = topt.key;
    whole.replica = topt.replica;
    whole.highlights = t.highlights;
    render::Timeline all = render::build_timeline(run.history, trace, whole);
    if (!output.trace_json.empty()) shown.files.emplace_back(output.trace_json, render::render_chrome_trace(all));
    if (!output.svg.empty()) shown.files.emplace_back(output.svg, render::render_sequence_svg(all));
  }
  return shown;
}

int cmd_run(const ScenarioOptions& scenario, const OutputOptions& output) {
  lock::SimulationConfig config = make_config(scenario);
  check_output_paths(output);
  std::unique_ptr<lock::Simulation> sim;
  try {
    sim = std::make_unique<lock::Simulation>(config);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  sim->run();
  std::string params = lock::to_string(config.lock);
  std::string title =
      fmt::format("{}: seed {}, {} client{}, {} iteration{}{}{}", config.algorithm, config.seed,
                  config.workload.clients, config.workload.clients == 1 ? "" : "s", config.workload.iterations,
                  config.workload.iterations == 1 ? "" : "s", params.empty() ? "" : ", ", params);
  ShownRun shown = show_run(*sim, title, output);
  std::string out = shown.text;
  if (!config.faults.empty()) out += fmt::format("faults: {}\n", sim::to_string(config.faults));
  if (shown.highlights.empty()) {
    out += "summary: every property held in this run (";
    bool first = true;
    for (props::Property p : props::kAllProperties) {
      out += (first ? "" : ", ") + std::string(props::to_string(p));
      first = false;
    }
    out += ")\n";
  } else {
    std::string which;
    for (const auto& h : shown.highlights) which += (which.empty() ? "" : ", ") + h.property;
    out += fmt::format("summary: violated in this run: {}\n", which);
  }
  out += fmt::format("trace hash: {:016x}\n", shown.trace_hash);
  out += fmt::format("replay: {}\n", run_command(config));
  if (output.raw_trace) out += "\n" + sim->world().trace().render();
  std::cout << out << std::flush;
  write_outputs(shown, std::cout);
  for (const auto& h : shown.highlights)
    if (h.property == props::to_string(props::Property::VariantError)) return 2;  // the variant's file needs fixing
  return 0;
}

int cmd_list(const OutputOptions& output) {
  const bool colour = output.use_colour();
  std::string out = "The lock algorithms, in the order the posts evolve them (docs/failures.md#algorithms):\n\n";
  int i = 0;
  for (const auto& a : lock::algorithms()) {
    ++i;
    out += colour ? fmt::format("\x1b[1m{:2}. {}\x1b[0m\n", i, a.id) : fmt::format("{:2}. {}\n", i, a.id);
    out += fmt::format("    {}\n", a.summary);
    out += fmt::format("    described in: {}\n    catalogue: {}\n", lock::source_titles(a.documents), a.failures);
    std::string params;  // its own defaults: a variant's `params` table sets them
    for (auto name : a.params) {
      if (name == "param") continue;  // a variant's own: listed below
      const lock::ParamInfo* p = lock::find_lock_param(name);
      params += fmt::format(" --{} {}", name, p ? p->get(a.defaults) : "?");
    }
    out += fmt::format("    parameters:{}\n", params);
    std::string claims;  // what check judges it on (docs/failures.md#claims), in check's order
    try {
      claims = props::claims_text(props::claimed_properties(a.id));
    } catch (const std::invalid_argument&) {  // a variant's claim that is no property: as written (check refuses it)
      for (auto id : lock::claims_of(a)) claims += (claims.empty() ? "" : ", ") + std::string(id);
    }
    out += fmt::format("    claims: {}\n", claims.empty() ? "nothing" : claims);
    if (a.masters > 1 || a.replica)
      out += fmt::format("    deployment: {}\n", a.replica ? "a master with an asynchronous replica"
                                                            : fmt::format("{} independent masters", a.masters));
    for (const auto& p : a.own_params)  // a variant's own: --param NAME=VALUE, param("NAME")
      out += fmt::format("    --param {}={}{}{}\n", p.name, p.default_value,
                         p.min ? fmt::format("  (check draws {}..{})", lock::drawn_value(p, 0), lock::drawn_value(p, 1))
                               : "",
                         p.help.empty() ? "" : "  " + p.help);
  }
  out += "\nEvery parameter, with its default:\n";
  static const lock::LockParams defaults;
  for (const auto& p : lock::lock_param_table())
    out += fmt::format("  --{:<22} {:<8} {}\n", p.name, p.get(defaults), p.help);
  std::cout << out;
  return 0;
}

}  // namespace locksim::cli

namespace locksim::cli {

Subcommand add_list_command(CLI::App& parent) {
  auto output = std::make_shared<OutputOptions>();
  auto* app = parent.add_subcommand(
      "list", "the algorithms in evolution order: the posts that describe them, their parameters");
  add_output_options(*app, *output, false);
  return {app, [output] { return cmd_list(*output); }};
}

Subcommand add_run_command(CLI::App& parent) {
  struct State {
    ScenarioOptions scenario;
    std::vector<std::string> params;
    OutputOptions output;
  };
  auto state = std::make_shared<State>();
  auto* app = parent.add_subcommand("run", "run one simulation of an algorithm and show its timeline");
  app->add_option("ALGORITHM", state->scenario.algorithm, "an algorithm id (see 'locksim list')")->required();
  add_scenario_options(*app, state->scenario, state->params);
  add_output_options(*app, state->output);
  return {app, [state, app] {
            collect_lock_params(*app, state->scenario, state->params);
            return cmd_run(state->scenario, state->output);
          }};
}

}  // namespace locksim::cli
