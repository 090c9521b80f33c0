#pragma once
// The name the printed replay and run lines give this program. A user's own
// binary that hands over to locksim::cli::main (app.hpp) prints its own name,
// so the line it prints runs that binary, with its own locks registered.
#include <string>
#include <string_view>

namespace locksim::cli {

// By default the base name of argv[0] as cli::main received it ("locksim"
// when unknown). A name set here first wins over argv[0].
void set_program_name(std::string name);
const std::string& program_name();
// Called by cli::main: argv[0]'s base name, unless set_program_name came first.
void default_program_name(std::string_view argv0);

}  // namespace locksim::cli
