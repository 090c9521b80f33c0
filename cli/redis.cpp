// locksim redis: the Redis model's console.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/commands.hpp"
#include "cli/subcommand.hpp"
#include "sim/redis/console.hpp"

namespace locksim::cli {

int cmd_redis() { return redis::run_console(std::cin, std::cout, std::cerr); }

Subcommand add_redis_command(CLI::App& parent) {
  auto* app = parent.add_subcommand("redis", "the Redis model's console: type commands, read replies");
  return {app, [] { return cmd_redis(); }};
}

}  // namespace locksim::cli
