#pragma once
// One subcommand of `locksim`: it adds itself (options and help) to the
// program's CLI11 app before parsing, and `run` is called after parsing when
// it is the subcommand the user named. Each subcommand's options live in the
// closure of its `run`, so a new subcommand is one add_*_command function in
// its own file plus one line in cli/app.cpp.
#include <functional>
#include <memory>

namespace CLI {
class App;
}

namespace locksim::cli {

struct Subcommand {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Subcommand add_tour_command(CLI::App& parent);
Subcommand add_list_command(CLI::App& parent);
Subcommand add_run_command(CLI::App& parent);
Subcommand add_check_command(CLI::App& parent);
Subcommand add_catalogue_command(CLI::App& parent);
Subcommand add_replay_command(CLI::App& parent);
Subcommand add_redis_command(CLI::App& parent);
Subcommand add_merge_command(CLI::App& parent);
Subcommand add_serve_command(CLI::App& parent);
Subcommand add_trial_command(CLI::App& parent);

}  // namespace locksim::cli
