#include "locksim/testing/lock_check.hpp"

#include <fmt/format.h>

#include "locksim/props/scenario.hpp"
#include "locksim/testing/generators.hpp"

namespace locksim::testing {

namespace {

props::FaultModel model_for(const std::string& algorithm, const CheckSettings& s) {
  props::FaultModel model = fault_model(algorithm, s.faults);
  model.min_clients = s.min_clients;
  model.max_clients = s.max_clients;
  model.max_iterations = s.max_iterations;
  return model;
}

}  // namespace

CheckReport check_lock(const std::string& algorithm, const CheckSettings& settings) {
  props::ExploreOptions options;
  options.seed = settings.seed;
  options.runs = settings.runs;
  options.target = settings.property;
  options.shrink = settings.shrink;
  props::ExploreResult result = props::explore(model_for(algorithm, settings), options);
  CheckReport report{algorithm, settings.seed, result.runs, {}};
  if (const auto& found = result.found) {
    std::string line = props::to_string(found->shrunk);
    report.failures.push_back(Failure{found->violation.property, found->violation.sentence, found->run, line,
                                      "locksim replay '" + line + "'"});
  }
  return report;
}

std::string describe(const CheckReport& report) {
  std::string out =
      fmt::format("{}: {} run{}, seed {}: ", report.algorithm, report.runs, report.runs == 1 ? "" : "s", report.seed);
  if (report.ok()) return out + "no failure";
  out += fmt::format("{} failure{}", report.failures.size(), report.failures.size() == 1 ? "" : "s");
  for (const Failure& f : report.failures)
    out += fmt::format("\n  {} (first at run {}): {}\n    replay: {}", props::to_string(f.property), f.first_run,
                       f.explanation, f.replay);
  return out;
}

}  // namespace locksim::testing
