#include "locksim/testing/lock_check.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "locksim/props/defaults.hpp"
#include "locksim/props/inventory.hpp"
#include "locksim/props/regression.hpp"
#include "locksim/props/replay_command.hpp"
#include "locksim/props/search.hpp"
#include "locksim/props/variant_file.hpp"

namespace locksim::testing {

namespace {

// Whether the inventory counts a failure as the lock's own (of a claimed property,
// inside the assumptions): props::own_failure, the one place the kit reads that
// split; NoOwnFailures() follows whatever it becomes.
bool counts_as_own(const props::Failure& f) { return props::own_failure(f); }

std::string join(const std::vector<std::string>& words, std::string_view sep) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : std::string(sep)) + w;
  return out;
}

void load_variant(const std::string& algorithm, const std::string& file) {
  std::string error;
  const lock::Algorithm* a = props::use_variant_file(file, &error);
  if (!a) throw std::invalid_argument("check_lock: " + error);
  if (a->id != algorithm)
    throw std::invalid_argument(
        fmt::format("check_lock: {} declares the variant '{}', not '{}'", file, a->id, algorithm));
}

Failure failure_of(const props::Failure& f, const props::Assumptions& assumed, const std::string& program) {
  Failure out;
  out.property = f.property;
  out.cause = f.cause;
  out.cause_text = std::string(props::describe(f.cause));
  out.explanation = f.example.violation.sentence;
  out.catalogue = f.catalogue;
  out.needs = f.needs;
  out.runs = f.runs;
  out.first_run = f.first_run;
  out.own = counts_as_own(f);
  out.outside = props::outside_assumptions(f);
  out.shrunk = f.example.shrunk;
  out.scenario = props::to_string(f.example.shrunk);
  // A failure outside the assumptions replays without them (replay refuses a scenario that breaks them).
  out.replay = props::replay_command(f.example.shrunk, props::outside_assumptions(f) ? props::Assumptions{} : assumed, program);
  return out;
}

}  // namespace

CheckReport check_lock(const std::string& algorithm, const CheckSettings& s) {
  if (!s.variant.empty()) load_variant(algorithm, s.variant);
  // The model and the inventory `locksim check` makes, from the same settings.
  const props::FaultModel model = props::search_model({algorithm, s.faults, s.clients, s.clients_max, s.iterations,
                                                       s.masters, s.replica, s.nested, s.lock_params, s.assume});
  const props::Assumptions& assumed = model.assumed;  // the algorithm's defaults and s.assume, as check prints
  if (s.runs == 0) throw std::invalid_argument("check_lock: runs must be at least 1");
  props::InventoryOptions options;
  options.seed = s.seed;
  options.runs = s.runs;
  options.target = s.property;
  options.shrink = s.shrink;
  const props::Inventory inventory = props::take_inventory(model, options, std::max(1u, s.jobs));
  CheckReport report;
  report.algorithm = algorithm;
  report.variant = props::variant_file(algorithm);
  report.seed = s.seed;
  report.runs = inventory.runs;
  report.assumptions = join(props::assumption_words(assumed), ",");
  for (const props::Failure& f : inventory.failures) report.failures.push_back(failure_of(f, assumed, s.program));
  return report;
}

bool FailureFilter::matches(const Failure& f) const {
  // A property named is judged whether or not the lock claims it (as check --property P).
  const bool own = property ? !f.outside : f.own;
  return (!property || f.property == *property) && (!own_only || own);
}

std::string FailureFilter::describe() const {
  std::string what = own_only ? "no failure of its own" : "no failure";
  if (property) what += fmt::format(" of {}", props::to_string(*property));
  return what;
}

std::vector<const Failure*> failures_matching(const CheckReport& report, const FailureFilter& filter) {
  std::vector<const Failure*> out;
  for (const Failure& f : report.failures)
    if (filter.matches(f)) out.push_back(&f);
  return out;
}

std::string summary(const CheckReport& report) {
  std::string out =
      fmt::format("{}{}: {} run{}, seed {}{}: ", report.algorithm,
                  report.variant.empty() ? "" : " (" + report.variant + ")", report.runs, report.runs == 1 ? "" : "s",
                  report.seed, report.assumptions.empty() ? "" : ", assuming " + report.assumptions);
  if (report.ok()) return out + "no failure";
  size_t own = 0;
  for (const Failure& f : report.failures) own += f.own ? 1 : 0;
  return out + fmt::format("{} failure{} ({} of its own)", report.failures.size(),
                           report.failures.size() == 1 ? "" : "s", own);
}

std::string describe(const Failure& f) {
  std::string out = fmt::format("{} by {}{}{}\n", props::to_string(f.property), props::to_string(f.cause),
                                f.catalogue.empty() ? "" : " (" + f.catalogue + ")", f.own ? "" : ", inherent");
  out += fmt::format("  cause:  {}\n", f.cause_text);
  out += fmt::format("  why:    {}\n", f.explanation);
  out += fmt::format("  runs:   {}, first run {}\n", f.runs, f.first_run);
  out += fmt::format("  replay: {}\n", f.replay);
  return out;
}

std::string describe(const CheckReport& report) {
  std::string out = summary(report);
  for (const Failure& f : report.failures) out += "\n" + describe(f);
  return out;
}

void save_failures(const CheckReport& report, const std::string& path) {
  for (const Failure& f : report.failures) {
    props::Regression r;
    r.violates = true;
    r.property = f.property;
    r.scenario = f.shrunk;
    std::string error;
    if (!props::append_regression(path, r, &error)) throw std::runtime_error("save_failures: " + error);
  }
}

}  // namespace locksim::testing
