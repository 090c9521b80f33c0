#include "locksim/cli/verdicts.hpp"

#include "locksim/cli/program_name.hpp"
#include "locksim/lock/registry.hpp"
#include "locksim/props/replay_command.hpp"

#include <algorithm>

namespace locksim::cli {

namespace {

render::Highlight highlight_of(const props::Violation& v) {
  render::Highlight h;
  h.clients = v.clients;
  h.from = v.from;
  h.to = v.to;
  h.property = std::string(props::to_string(v.property));
  h.sentence = v.sentence;
  // The renderers add the full stop.
  while (!h.sentence.empty() && (h.sentence.back() == '.' || h.sentence.back() == ' ')) h.sentence.pop_back();
  return h;
}

}  // namespace

std::vector<render::Highlight> highlights_of(const props::Verdict& verdict) {
  std::vector<render::Highlight> out;
  for (const auto& v : verdict.violations) out.push_back(highlight_of(v));
  return out;
}

std::vector<render::Highlight> highlights_of(const props::Verdict& verdict, props::Property first) {
  std::vector<render::Highlight> out;
  if (const props::Violation* v = verdict.find(first)) out.push_back(highlight_of(*v));
  for (const auto& v : verdict.violations)
    if (v.property != first) out.push_back(highlight_of(v));
  return out;
}

props::Verdict check_simulation(lock::Simulation& sim) {
  return props::check(sim.history(), sim.config(), props::run_end(sim));
}

Recorded run_recorded(const props::Scenario& scenario) {
  props::Scenario s = scenario;
  s.record_trace = true;
  Recorded r;
  r.sim = std::make_unique<lock::Simulation>(s);
  r.sim->run();
  r.verdict = check_simulation(*r.sim);
  r.trace_hash = r.sim->trace_hash();
  return r;
}

std::string shell_quote(std::string_view text) { return props::shell_quote(text); }

std::string replay_command(const props::Scenario& scenario) {
  return props::replay_command(scenario, {}, program_name());
}

}  // namespace locksim::cli
