// locksim: the lock evolution tour, checks, replays, timelines and the Redis
// model's console. Usage errors exit 2 with one line naming the problem.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <exception>
#include <iostream>

#include "cli/commands.hpp"

namespace {

constexpr const char* kVersion = "locksim 0.1.0";

int usage_error(const std::string& message, const std::string& command) {
  std::cerr << "locksim: error: " << message << "\n"
            << "Run 'locksim " << (command.empty() ? "" : command + " ") << "--help' for usage.\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace locksim::cli;
  CLI::App app{"locksim: Redis distributed-lock algorithms in a deterministic simulator, each documented failure "
               "found, shrunk and shown as a replayable timeline.",
               "locksim"};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);
  app.footer("Start with 'locksim tour'. Exit status: 0 ok, 1 violation found (check), 2 usage error.");

  // tour
  TourOptions tour;
  auto* tour_cmd = app.add_subcommand("tour", "walk the lock evolution: each version, the failure found in it, the fix");
  tour_cmd->add_option("--only", tour.only, "show one algorithm only");
  add_output_options(*tour_cmd, tour.output, false);

  // list
  OutputOptions list_output;
  auto* list_cmd = app.add_subcommand("list", "the algorithms in evolution order, with their documents and parameters");
  add_output_options(*list_cmd, list_output, false);

  // run
  ScenarioOptions run;
  std::vector<std::string> run_params;
  OutputOptions run_output;
  auto* run_cmd = app.add_subcommand("run", "run one simulation of an algorithm and show its timeline");
  run_cmd->add_option("ALGORITHM", run.algorithm, "an algorithm id (see 'locksim list')")->required();
  add_scenario_options(*run_cmd, run, run_params);
  add_output_options(*run_cmd, run_output);

  // check
  CheckOptions check;
  std::vector<std::string> check_params;
  auto* check_cmd = app.add_subcommand("check", "explore one algorithm over many seeds; exit 1 if a property is violated");
  check_cmd->add_option("ALGORITHM", check.scenario.algorithm, "an algorithm id (see 'locksim list')")->required();
  check_cmd->add_option("--runs", check.runs, "how many runs to explore (default 1000)")->check(CLI::Range(1, 100'000'000));
  check_cmd->add_option("--seed", check.scenario.seed, "the first seed (default 1)")->check(CLI::NonNegativeNumber);
  check_cmd->add_option("--fault-kinds", check.fault_kinds,
                        "fault kinds the explorer may draw: crash, pause, jump, cut, reset, slow (default all)")
      ->delimiter(',');
  check_cmd->add_option("--clients", check.scenario.clients, "clients per run")->check(CLI::Range(1, 26));
  check_cmd->add_option("--iterations", check.scenario.iterations, "critical sections per client")->check(CLI::Range(1, 1000));
  check_cmd->add_option("--jobs", check.jobs, "parallel simulations (the result is the same as with one)")
      ->check(CLI::Range(1, 256));
  check_cmd->add_option("--shard", check.shard, "I/N: run only the I-th of N slices of the seeds");
  {
    const auto& table = locksim::lock::lock_param_table();
    check_params.assign(table.size(), std::string());
    static const locksim::lock::LockParams defaults;
    for (size_t i = 0; i < table.size(); ++i)
      check_cmd->add_option("--" + std::string(table[i].name), check_params[i],
                            fmt::format("lock: {} (default {})", table[i].help, table[i].get(defaults)))
          ->group("Lock parameters");
  }
  add_output_options(*check_cmd, check.output);

  // catalogue
  CatalogueOptions catalogue;
  auto* catalogue_cmd = app.add_subcommand("catalogue", "run every catalogue entry (F01...F23) and compare with its expected verdict");
  catalogue_cmd->add_flag("--json", catalogue.json, "print a JSON array of objects instead of a table");
  catalogue_cmd->add_option("--only", catalogue.only, "one entry, e.g. F07");
  catalogue_cmd->add_option("--jobs", catalogue.jobs, "parallel simulations")->check(CLI::Range(1, 256));
  add_output_options(*catalogue_cmd, catalogue.output, false);

  // replay
  ReplayOptions replay;
  auto* replay_cmd = app.add_subcommand("replay", "re-run a saved or printed scenario and show its timeline");
  replay_cmd->add_option("SCENARIO", replay.scenario, "a scenario file, or the scenario text as printed")->required();
  add_output_options(*replay_cmd, replay.output);

  // redis
  auto* redis_cmd = app.add_subcommand("redis", "the Redis model's console: type commands, read replies");

  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    for (auto* sub : app.get_subcommands({})) known = known || sub->get_name() == argv[1];
    if (!known)
      return usage_error(fmt::format("unknown command '{}' (tour, list, run, check, catalogue, replay, redis)", argv[1]), "");
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::string command;
    for (auto* sub : app.get_subcommands()) command = sub->get_name();
    return usage_error(e.what(), command);
  }

  std::string command = app.get_subcommands().empty() ? std::string() : app.get_subcommands().front()->get_name();
  try {
    if (tour_cmd->parsed()) return cmd_tour(tour);
    if (list_cmd->parsed()) return cmd_list(list_output);
    if (run_cmd->parsed()) {
      collect_lock_params(*run_cmd, run, run_params);
      return cmd_run(run, run_output);
    }
    if (check_cmd->parsed()) {
      collect_lock_params(*check_cmd, check.scenario, check_params);
      return cmd_check(check);
    }
    if (catalogue_cmd->parsed()) return cmd_catalogue(catalogue);
    if (replay_cmd->parsed()) return cmd_replay(replay);
    if (redis_cmd->parsed()) return cmd_redis();
  } catch (const UsageError& e) {
    return usage_error(e.what(), command);
  } catch (const std::invalid_argument& e) {
    return usage_error(e.what(), command);
  } catch (const std::exception& e) {
    std::cerr << "locksim: internal error: " << e.what() << "\n";
    return 4;
  }
  return usage_error("no command given", "");
}
