// The run options as the command line gives them: NUL-separated arguments parsed
// by CLI11 and turned into a configuration, or refused with a usage error. An
// accepted configuration prints as a `locksim run` command.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "locksim/cli/options.hpp"

using namespace locksim::cli;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args;
  std::string current;
  for (size_t i = 0; i < size && args.size() < 64; ++i) {
    if (data[i] == 0) {
      args.push_back(current);
      current.clear();
    } else {
      current += static_cast<char>(data[i]);
    }
  }
  args.push_back(current);
  std::reverse(args.begin(), args.end());  // CLI11 takes them in reverse order

  CLI::App app{"fuzz"};
  ScenarioOptions options;
  OutputOptions output;
  std::vector<std::string> values;
  app.add_option("ALGORITHM", options.algorithm)->required();
  add_scenario_options(app, options, values);
  add_output_options(app, output);
  try {
    app.parse(args);
    collect_lock_params(app, options, values);
    const locksim::lock::SimulationConfig config = make_config(options);
    (void)run_command(config);
  } catch (const CLI::ParseError&) {
  } catch (const UsageError&) {}
  return 0;
}
