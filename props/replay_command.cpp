#include "locksim/props/replay_command.hpp"

#include "locksim/lock/registry.hpp"

namespace locksim::props {

std::string shell_quote(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

std::string variant_file(std::string_view algorithm) {
  const lock::Algorithm* a = lock::find_algorithm(algorithm);
  // A Lua variant's registry entry keeps its file where a built-in keeps its sources.
  return a && a->failures == "user variant" ? std::string(a->documents) : std::string();
}

std::string replay_command(const Scenario& s, const Assumptions& assumed, std::string_view program) {
  std::string line = std::string(program) + " replay ";
  if (std::string file = variant_file(s.algorithm); !file.empty()) line += "--variant " + shell_quote(file) + " ";
  line += shell_quote(to_string(s));
  // The assumptions last, as `check` prints them: the scenario stays the second word.
  std::string words;
  for (const std::string& w : assumption_words(assumed)) words += (words.empty() ? "" : ",") + w;
  if (!words.empty()) line += " --assume " + shell_quote(words);
  return line;
}

}  // namespace locksim::props
