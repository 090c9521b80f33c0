// locksim: the lock evolution tour, checks, replays, timelines and the Redis
// model's console. Usage errors exit 2 with one line naming the problem.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <exception>
#include <iostream>

#include "cli/commands.hpp"
#include "lock/variant_file.hpp"

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
  auto* check_cmd = app.add_subcommand(
      "check", "explore one algorithm over many drawn scenarios; exit 1 with a shrunk counterexample if a property is violated");
  check_cmd->footer(
      "Note: check's --faults names fault KINDS the explorer may draw (e.g. --faults crash,pause,slow-work), while "
      "run's --faults takes a fault PLAN (concrete faults at given times). Kinds: crash, restart, pause, slow-work, "
      "delay, cut, reset, skew, drift, jump, redis-restart, crash-at-call, pause-at-call, master-crash; or all, none.\n"
      "The output does not depend on --jobs; --shard I/N runs the run indices i < --runs with i % N == I, so N "
      "machines with shards 0/N..N-1/N together cover every run once.");
  check_cmd->add_option("ALGORITHM", check.algorithm, "an algorithm id (see 'locksim list')")->required();
  check_cmd->add_option("--runs", check.runs, "how many scenarios to draw and run (default 1000)")
      ->check(CLI::Range(1, 100'000'000));
  check_cmd->add_option("--seed", check.seed, "the exploration's seed (default 1)")->check(CLI::NonNegativeNumber);
  check_cmd->add_option("--faults", check.faults, "fault KINDS the explorer may draw, comma-separated, or all/none (default all)");
  check_cmd->add_option("--property", check.property,
                        "look for this property only: mutual-exclusion, no-deadlock, owner-only-release, fenced-writes, "
                        "reentrancy, bounded-wait (default any)");
  check_cmd->add_option("--clients", check.clients, "exactly this many clients per run (default 2 to 3)")->check(CLI::Range(1, 26));
  check_cmd->add_option("--clients-max", check.clients_max, "at most this many clients per run (default 3)")
      ->check(CLI::Range(1, 26));
  check_cmd->add_option("--iterations", check.iterations, "at most this many critical sections per client (default 3)")
      ->check(CLI::Range(1, 1000));
  check_cmd->add_option("--masters", check.masters, "independent Redis masters, for redlock (default 1)")
      ->check(CLI::Range(1, 9));
  check_cmd->add_flag("--replica", check.replica,
                      "one master with an asynchronous replica, promoted when the master dies (F17)");
  check_cmd->add_option("--jobs", check.jobs, "parallel simulations (the result is the same as with one)")
      ->check(CLI::Range(1, 256));
  check_cmd->add_option("--shard", check.shard, "I/N: run only the I-th (from 0) of N interleaved slices of the runs");
  check_cmd->add_option("--save", check.save, "append the counterexample to this regression file");
  check_cmd->add_flag("--no-shrink", check.no_shrink, "show the counterexample as found, unshrunk");
  check_cmd->add_flag("--timing", check.timing, "print the wall time to standard error");
  check_cmd->add_flag("--list-runs", check.list_runs, "print the run indices this shard would run, and stop")->group("");
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
  auto* catalogue_cmd =
      app.add_subcommand("catalogue", "run every catalogue entry (F01...F23) live and compare with its documented verdict");
  catalogue_cmd->footer("Exit status 0 only when every entry (and its fix) came out as documented.");
  catalogue_cmd->add_flag("--json", catalogue.json,
                          "print a JSON array of objects (id, algorithm, property, expected, outcome, as_expected, runs, "
                          "wall_ms, replay, fix, fix_outcome, fix_as_expected)");
  catalogue_cmd->add_option("--only", catalogue.only, "only these entries, e.g. F07,F10");
  catalogue_cmd->add_option("--seed", catalogue.seed, "the explorer's seed (default 1)")->check(CLI::NonNegativeNumber);
  catalogue_cmd->add_option("--budget", catalogue.budget, "most runs to look for each violation (default 2000)")
      ->check(CLI::Range(1, 100'000'000));
  catalogue_cmd->add_flag("--no-fix", catalogue.no_fix, "do not check that each fix survives the same faults");
  catalogue_cmd->add_option("--jobs", catalogue.jobs, "entries run at once (their wall times then overlap)")
      ->check(CLI::Range(1, 256));
  add_output_options(*catalogue_cmd, catalogue.output, false);

  // replay
  ReplayOptions replay;
  auto* replay_cmd = app.add_subcommand("replay", "re-run a printed or saved scenario, check it and show its timeline");
  replay_cmd->add_option("SCENARIO", replay.scenario,
                         "the scenario text as printed (quote it), or a file holding one: its first line that is not "
                         "blank or a # comment, a scenario or a regression line 'violates PROPERTY: SCENARIO'")
      ->required();
  add_output_options(*replay_cmd, replay.output);

  // redis
  auto* redis_cmd = app.add_subcommand("redis", "the Redis model's console: type commands, read replies");

  // Lock variants written as data (see examples/watchdog.variant), loaded
  // before the command runs so their names work like built-in algorithms.
  std::vector<std::string> variants;
  for (CLI::App* sub : {list_cmd, run_cmd, check_cmd, replay_cmd})
    sub->add_option("--variant", variants, "load a lock variant file (repeatable); its name is then an algorithm id");

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
    for (const std::string& path : variants) {
      std::string error;
      auto spec = locksim::lock::load_variant_file(path, &error);
      if (!spec || !locksim::lock::register_variant(std::move(*spec), &error)) return usage_error(error, command);
    }
    if (tour_cmd->parsed()) return cmd_tour(tour);
    if (list_cmd->parsed()) return cmd_list(list_output);
    if (run_cmd->parsed()) {
      collect_lock_params(*run_cmd, run, run_params);
      return cmd_run(run, run_output);
    }
    if (check_cmd->parsed()) {
      ScenarioOptions given;
      collect_lock_params(*check_cmd, given, check_params);
      check.lock_params = given.lock_params;
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
