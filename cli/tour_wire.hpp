#pragma once
// "What changed" as code a reader can compare: the commands one client of a
// lock version sends to lock, work and unlock with nothing failing, recorded
// from a run (never written down), and a line diff of two versions' lists.
// The client's token reads <token> and a timestamp value <expiry>, so two
// versions differ only where their commands do.
#include <string>
#include <vector>

#include "locksim/lock/registry.hpp"

namespace locksim::cli {

// The commands client A sends in one fault-free acquire-work-release, in order
// (resource writes left out): "SET lock <token> NX PX 1000", "DEL lock".
std::vector<std::string> wire_commands(const lock::Algorithm& algorithm);

struct DiffLine {
  char mark = ' ';  // ' ' in both, '-' only in the old, '+' only in the new
  std::string text;
};
// The shortest line diff (longest common subsequence) from `before` to `after`.
std::vector<DiffLine> diff_lines(const std::vector<std::string>& before, const std::vector<std::string>& after);

}  // namespace locksim::cli
