#include "locksim/cli/tour_wire.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "locksim/cli/verdicts.hpp"
#include "locksim/props/defaults.hpp"
#include "locksim/props/scenario.hpp"
#include "locksim/render/timeline.hpp"

namespace locksim::cli {

namespace {

// A long script reads as its first line and its length: the diff shows that it changed.
std::string compact(std::string text) {
  for (char& c : text)
    if (c == '\t') c = ' ';
  const size_t newline = text.find('\n');
  if (newline == std::string::npos) return text.size() <= 120 ? text : text.substr(0, 117) + "...";
  const size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  return fmt::format("{} ... ({} lines)", text.substr(0, std::min<size_t>(newline, 100)), lines);
}

// A's token (lock::Lock::new_token: "A:" and 16 hex digits) reads <token>, wherever
// it appears (a SET, a script's arguments, a row).
std::string with_token_named(std::string text) {
  constexpr size_t kLength = 2 + 16;
  for (size_t at = text.find("A:"); at != std::string::npos; at = text.find("A:", at + 1)) {
    if (at + kLength > text.size()) break;
    const std::string_view digits = std::string_view(text).substr(at + 2, 16);
    if (digits.find_first_not_of("0123456789abcdef") == std::string_view::npos) text.replace(at, kLength, "<token>");
  }
  return text;
}

// The expiry timestamp a timestamp lock writes as its value ("SETNX lock 1001"), or "":
// the word after the key of the first SETNX, when it is a number of 4 digits or more.
std::string expiry_value(const std::vector<render::Command>& commands) {
  for (const render::Command& c : commands) {
    if (!c.text.starts_with("SETNX ")) continue;
    const size_t key_end = c.text.find(' ', 6);
    if (key_end == std::string::npos) return {};
    const std::string value = c.text.substr(key_end + 1, c.text.find(' ', key_end + 1) - key_end - 1);
    const bool number = value.find_first_not_of("0123456789") == std::string::npos;
    return number && value.size() >= 4 ? value : std::string{};
  }
  return {};
}

std::string with_expiry_named(std::string text, const std::string& expiry) {
  if (expiry.empty()) return text;
  for (size_t at = text.find(expiry); at != std::string::npos; at = text.find(expiry, at + 8))
    text.replace(at, expiry.size(), "<expiry>");
  return text;
}

}  // namespace

std::vector<std::string> wire_commands(const lock::Algorithm& algorithm) {
  // The deployment check explores by default (Redlock: three masters); work long enough for a renewal.
  const uint32_t masters = props::default_model(algorithm.id).base.masters;
  const std::string line = fmt::format("{} clients=1 iterations=1 spread=0s work=500ms..500ms{}",
                                       std::string(algorithm.id), masters > 1 ? fmt::format(" masters={}", masters) : "");
  const auto scenario = props::parse_scenario(line);
  if (!scenario) return {};
  Recorded run;
  try {
    run = run_recorded(*scenario);
  } catch (const std::invalid_argument&) {
    return {};
  }
  render::TimelineOptions options;
  const render::Timeline timeline = render::build_timeline(run.sim->history(), &run.sim->world().trace(), options);
  if (timeline.clients.empty()) return {};
  const std::vector<render::Command>& commands = timeline.clients.front().commands;
  const std::string expiry = expiry_value(commands);
  std::vector<std::string> out;
  for (const render::Command& c : commands) {
    if (c.letter == 'R' || c.letter == 'r' || c.text.empty()) continue;  // the protected resource, not the lock
    out.push_back(with_expiry_named(with_token_named(compact(c.text)), expiry));
  }
  return out;
}

std::vector<DiffLine> diff_lines(const std::vector<std::string>& before, const std::vector<std::string>& after) {
  const size_t n = before.size(), m = after.size();
  // common[i][j]: the longest common subsequence of before[i..] and after[j..].
  std::vector<std::vector<size_t>> common(n + 1, std::vector<size_t>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      common[i][j] = before[i] == after[j] ? common[i + 1][j + 1] + 1 : std::max(common[i + 1][j], common[i][j + 1]);
  std::vector<DiffLine> out;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && before[i] == after[j]) {
      out.push_back({' ', before[i]});
      ++i, ++j;
    } else if (i < n && (j == m || common[i + 1][j] >= common[i][j + 1])) {
      out.push_back({'-', before[i++]});  // what went, before what came in its place
    } else {
      out.push_back({'+', after[j++]});
    }
  }
  return out;
}

}  // namespace locksim::cli
