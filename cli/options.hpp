#pragma once
// What the command line says about one simulated run, and how it becomes a
// lock::SimulationConfig. Every problem with the input is a UsageError whose
// message names the option and what is wrong with it (exit status 2).
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "locksim/lock/simulation.hpp"

namespace CLI {
class App;
class Validator;
}  // namespace CLI

namespace locksim::cli {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// How results are shown: width of the terminal timeline, colour, files.
struct OutputOptions {
  int width = 80;
  std::string colour = "auto";  // auto | always | never
  std::string trace_json;       // write Chrome Trace Event JSON here
  std::string svg;              // write the SVG timeline here
  bool raw_trace = false;       // also print the simulator's trace, one event per line
  bool use_colour() const;
};

struct ScenarioOptions {
  std::string algorithm;
  uint64_t seed = 1;
  uint32_t clients = 3;
  uint32_t iterations = 3;
  std::string faults;                      // a fault plan: "crash A @1s; pause B @2s for 1.5s"
  std::vector<std::string> slow_work;      // "A:0:1500ms"
  std::vector<std::string> call_faults;    // "A:2:crash", "A:3:pause:1.5s"
  std::vector<std::string> clock_offsets;  // "B:+2s"
  std::vector<std::string> drifts;         // "B:100" (ppm)
  std::string work_min, work_max, think_min, think_max, start_spread, horizon;
  uint32_t nested = 0;
  bool stop_when_lost = false;
  bool no_resource_writes = false;
  bool persistent_redis = false;
  std::map<std::string, std::string> lock_params;  // --lease 1s ... (only those given)
};

// Adds the scenario options (all but the algorithm) to a subcommand.
void add_scenario_options(CLI::App& app, ScenarioOptions& options, std::vector<std::string>& lock_param_values);
// Adds --width, --colour, --trace-json, --svg, --trace.
// --lease, --retry, ...: one option per lock parameter (lock::lock_param_table), read back with collect_lock_params.
void add_lock_param_options(CLI::App& app, std::vector<std::string>& lock_param_values);
void add_output_options(CLI::App& app, OutputOptions& options, bool files = true);
// After parsing: copies the lock parameters that were given into options.lock_params.
void collect_lock_params(const CLI::App& app, ScenarioOptions& options,
                         const std::vector<std::string>& lock_param_values);

// Throws UsageError naming the problem.
lock::SimulationConfig make_config(const ScenarioOptions& options);
// The `locksim run ...` command that reproduces config (only what differs from the defaults).
std::string run_command(const lock::SimulationConfig& config);

// --seed: a whole number in [0, 2^64-1], with a short message otherwise.
CLI::Validator seed_validator();
// Refuses an empty (or blank) value: `--faults ''` is a mistake, not "no faults".
CLI::Validator non_empty_validator(const std::string& what);

// "A" -> 0, ..., "Z" -> 25, "C26" -> 26; throws UsageError naming `what`.
uint32_t parse_client(const std::string& text, uint32_t clients, const std::string& what);
sim::Duration parse_duration_arg(const std::string& text, const std::string& what);
// Checks an algorithm id against the registry; throws UsageError listing the known ones.
void check_algorithm(const std::string& id);

}  // namespace locksim::cli
