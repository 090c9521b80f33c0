#include "locksim/testing/generators.hpp"

#include <stdexcept>

#include "locksim/lock/registry.hpp"

namespace locksim::testing {

props::FaultModel fault_model(const std::string& algorithm, const std::string& faults) {
  if (!lock::find_algorithm(algorithm))
    throw std::invalid_argument("fault_model: unknown algorithm '" + algorithm + "'");
  std::string error;
  auto kinds = props::parse_fault_kinds(faults, &error);
  if (!kinds) throw std::invalid_argument("fault_model: " + error);
  props::FaultModel model;
  model.base.algorithm = algorithm;
  model.kinds = *kinds;
  return model;
}

props::RunResult run(const props::Scenario& scenario) { return props::run_scenario(scenario); }

}  // namespace locksim::testing
