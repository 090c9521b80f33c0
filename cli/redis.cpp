// locksim redis: the Redis model's console.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include <unistd.h>

#include "locksim/cli/commands.hpp"
#include "locksim/cli/subcommand.hpp"
#include "locksim/sim/redis/console.hpp"

namespace locksim::cli {

int cmd_redis(bool fail_on_error) {
  redis::ConsoleOptions options;
  options.fail_on_error = fail_on_error;
  options.prompt = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);  // a person types: prompt them
  return redis::run_console(std::cin, std::cout, std::cerr, options);
}

Subcommand add_redis_command(CLI::App& parent) {
  auto* app = parent.add_subcommand("redis", "the Redis model's console: type commands, read replies (HELP: .advance, LOCKSIM.*)");
  auto fail_on_error = std::make_shared<bool>(false);
  app->add_flag("--fail-on-error", *fail_on_error,
                "exit 1 at the end if any reply was an error or any line was bad (for piped scripts)");
  return {app, [fail_on_error] { return cmd_redis(*fail_on_error); }};
}

}  // namespace locksim::cli
