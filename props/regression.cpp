#include "locksim/props/regression.hpp"

#include <fmt/format.h>

#include <sys/stat.h>

#include <sstream>

#include "locksim/sim/files.hpp"

namespace locksim::props {

std::string format_regression(const Regression& r) {
  return fmt::format("{} {}: {}", r.violates ? "violates" : "holds", to_string(r.property), to_string(r.scenario));
}

std::optional<Regression> parse_regression(std::string_view line, std::string* error) {
  auto fail = [&](std::string why) -> std::optional<Regression> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  Regression r;
  size_t space = line.find(' ');
  size_t colon = line.find(':');
  if (space == std::string_view::npos || colon == std::string_view::npos || colon < space)
    return fail("expected 'violates PROPERTY: SCENARIO' or 'holds PROPERTY: SCENARIO'");
  std::string_view verdict = line.substr(0, space);
  if (verdict == "violates")
    r.violates = true;
  else if (verdict == "holds")
    r.violates = false;
  else
    return fail(fmt::format("'{}' is neither 'violates' nor 'holds'", verdict));
  std::string_view property = line.substr(space + 1, colon - space - 1);
  auto p = parse_property(property);
  if (!p) return fail(fmt::format("unknown property '{}'", property));
  r.property = *p;
  std::string why;
  auto s = parse_scenario(line.substr(colon + 1), &why);
  if (!s) return fail(why);
  r.scenario = *s;
  return r;
}

std::optional<std::vector<Regression>> load_regressions(const std::string& path, std::string* error) {
  auto text = sim::read_input_file(path, sim::kMaxInputBytes, error);
  if (!text) return std::nullopt;
  std::istringstream in(*text);
  std::vector<Regression> out;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string::npos || line[start] == '#') continue;
    std::string why;
    auto r = parse_regression(std::string_view(line).substr(start), &why);
    if (!r) {
      if (error) *error = fmt::format("{}:{}: {}", path, number, why);
      return std::nullopt;
    }
    r->line = number;
    out.push_back(std::move(*r));
  }
  return out;
}

// The file is rewritten whole (a temporary file renamed over it, synced to disk),
// so a failed save leaves it as it was and a successful one is durable.
bool append_regression(const std::string& path, const Regression& r, std::string* error) {
  std::string text;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    auto existing = sim::read_input_file(path, sim::kMaxInputBytes, error);
    if (!existing) return false;
    text = std::move(*existing);
  }
  if (!text.empty() && text.back() != '\n') text += '\n';  // a last line without its newline
  text += format_regression(r) + '\n';
  return sim::write_file_atomically(path, text, true, error);
}

}  // namespace locksim::props
