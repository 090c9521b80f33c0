// The locksim program: everything is in locksim::cli::main (cli/app.cpp), so
// that users' own binaries can reuse it after registering their locks.
#include "locksim/cli/app.hpp"

int main(int argc, char** argv) { return locksim::cli::main(argc, argv); }
