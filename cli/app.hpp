#pragma once
// The whole `locksim` program as a function, so that a user's own binary can
// register its C++ locks (lock::register_algorithm) and then hand over to
// the same subcommands — check, replay, run, the timelines — unchanged:
//
//   int main(int argc, char** argv) {
//     register_my_lock();
//     return locksim::cli::main(argc, argv);
//   }
//
// Exit status: 0 fine, 1 a violation was found, 2 usage error, 4 internal error.
namespace locksim::cli {

// The printed replay and run lines name argv[0]'s base name (program_name.hpp).
int main(int argc, char** argv);

}  // namespace locksim::cli
