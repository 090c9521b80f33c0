#pragma once
// The command that replays a scenario, as check, the test kit and saved
// regressions print it: the program, `replay`, the stated assumptions, the
// variant file the scenario's algorithm comes from (a Lua variant replays
// only with its file loaded again), and the scenario, each word quoted for a
// POSIX shell.
#include <string>
#include <string_view>

#include "locksim/props/defaults.hpp"
#include "locksim/props/scenario.hpp"

namespace locksim::props {

// A word safe for a POSIX shell: 'as is' in single quotes.
std::string shell_quote(std::string_view text);

// The file of the Lua variant registered under `algorithm`, or "" for a
// built-in or a registered C++ lock.
std::string variant_file(std::string_view algorithm);

// "locksim replay [--assume '...'] [--variant 'FILE'] 'SCENARIO'"
std::string replay_command(const Scenario& s, const Assumptions& assumed = {}, std::string_view program = "locksim");

}  // namespace locksim::props
