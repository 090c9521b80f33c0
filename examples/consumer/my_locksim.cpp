// The locksim program with "my-lock" registered: `my_locksim check my-lock`,
// `my_locksim replay '...'` and the timelines work on it as on a built-in.
#include <locksim/cli/app.hpp>

#include "my_lock.hpp"

int main(int argc, char** argv) {
  my::register_my_lock();
  return locksim::cli::main(argc, argv);
}
