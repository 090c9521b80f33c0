// locksim redis: the Redis model's console, when this build has it.
#include <iostream>

#include "cli/commands.hpp"

#if __has_include("sim/redis/console.hpp")
#include "sim/redis/console.hpp"
#define LOCKSIM_HAVE_CONSOLE 1
#endif

namespace locksim::cli {

int cmd_redis() {
#ifdef LOCKSIM_HAVE_CONSOLE
  return redis::run_console(std::cin, std::cout, std::cerr);
#else
  std::cerr << "locksim: 'redis' is not available in this build (it needs sim/redis)\n";
  return kNotYetAvailable;
#endif
}

}  // namespace locksim::cli
