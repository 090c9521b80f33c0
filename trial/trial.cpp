#include "locksim/trial/trial.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace locksim::trial {

FaultModel default_fault_model() {
  FaultModel m;
  m.kinds = parse_fault_kinds("pause,cut,delay,lose,skew");
  if (find_libfaketime().empty()) std::erase(m.kinds, FaultKind::Skew);
  return m;
}

std::string TrialReport::summary() const {
  if (!violated()) return fmt::format("no violation in {} run{} ({} critical sections)", runs, runs == 1 ? "" : "s", holds);
  const Finding& f = judgement.findings.front();
  std::string faults;
  for (const AppliedFault& a : f.in_force) faults += (faults.empty() ? "" : "; ") + describe(a.fault);
  return fmt::format("{} violated{} in run {}: {}; faults in force: {}; replay: --replay '{}'",
                     props::to_string(f.violation.property), f.resource.empty() ? "" : " on " + f.resource, runs,
                     f.violation.sentence, faults.empty() ? "none" : faults,
                     failed ? to_text(failed->schedule) : std::string());
}

TrialReport put_on_trial(const std::vector<std::string>& command, const TrialSettings& settings) {
  if (command.empty()) throw std::invalid_argument("no client program to put on trial");
  if (settings.clients < 1 || settings.servers < 1 || settings.runs < 1)
    throw std::invalid_argument("a trial needs at least one client, one server and one run");
  RunSetup setup;
  setup.command = command;
  setup.grace = settings.grace;
  TrialReport report;
  for (uint32_t r = 0; r < settings.runs; ++r) {
    const Schedule schedule = draw(settings.seed, r, settings.clients, settings.servers, settings.duration, settings.faults);
    RunRecord run = run_trial(schedule, setup);
    ++report.runs;
    report.judgement = judge(run, settings.judge);
    report.holds += report.judgement.holds;
    // No critical section in any run so far: nothing was judged (a misconfigured client, or
    // one locked out from its start), which is not a verdict either way.
    if (report.holds == 0 && (report.violated() || r + 1 == settings.runs))
      throw std::invalid_argument("the clients sent no LOCKSIM.ENTER in " + std::to_string(r + 1) +
                                  " run(s): nothing to judge (docs/trial.md)");
    if (report.violated()) {
      report.failed = std::move(run);
      break;
    }
  }
  return report;
}

}  // namespace locksim::trial
