#include "locksim/props/regression.hpp"

#include <fmt/format.h>

#include <sys/stat.h>

#include <filesystem>
#include <sstream>

#include "locksim/props/replay_command.hpp"
#include "locksim/props/variant_file.hpp"
#include "locksim/sim/files.hpp"

namespace locksim::props {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kExpected = "expected 'violates PROPERTY: SCENARIO' or 'holds PROPERTY: SCENARIO'";

// One word as shell_quote writes it ('...' runs and \' escapes), or bare;
// it ends at a space or a colon outside quotes. Advances `at` past it.
std::optional<std::string> read_word(std::string_view s, size_t& at) {
  std::string out;
  while (at < s.size() && s[at] != ' ' && s[at] != ':') {
    if (s[at] == '\'') {
      size_t close = s.find('\'', at + 1);
      if (close == std::string_view::npos) return std::nullopt;
      out += s.substr(at + 1, close - at - 1);
      at = close + 1;
    } else if (s[at] == '\\' && at + 1 < s.size()) {
      out += s[at + 1];
      at += 2;
    } else {
      out += s[at++];
    }
  }
  return out;
}

bool is_sha1(std::string_view s) {
  return s.size() == 40 && s.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

// The variant's file as the regression file should name it: relative to its folder.
std::string relative_to_folder_of(const std::string& regression_file, const std::string& variant) {
  std::error_code ec;
  const fs::path folder = fs::absolute(fs::path(regression_file), ec).parent_path();
  const fs::path target = fs::absolute(fs::path(variant), ec);
  if (ec) return variant;
  const fs::path relative = target.lexically_relative(folder);
  return relative.empty() ? variant : relative.generic_string();
}

}  // namespace

std::string format_regression(const Regression& r) {
  std::string variant;
  if (!r.variant.empty()) variant = fmt::format(" variant={} sha1={}", shell_quote(r.variant), r.variant_sha1);
  return fmt::format("{} {}{}: {}", r.violates ? "violates" : "holds", to_string(r.property), variant,
                     to_string(r.scenario));
}

std::optional<Regression> parse_regression(std::string_view line, std::string* error, const std::string& folder) {
  auto fail = [&](std::string why) -> std::optional<Regression> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  Regression r;
  size_t space = line.find(' ');
  size_t colon = line.find(':');
  if (space == std::string_view::npos || colon == std::string_view::npos || colon < space)
    return fail(std::string(kExpected));
  std::string_view verdict = line.substr(0, space);
  if (verdict == "violates")
    r.violates = true;
  else if (verdict == "holds")
    r.violates = false;
  else
    return fail(fmt::format("'{}' is neither 'violates' nor 'holds'", verdict));
  size_t at = line.find_first_of(" :", space + 1);
  std::string_view property = line.substr(space + 1, at - space - 1);
  auto p = parse_property(property);
  if (!p) return fail(fmt::format("unknown property '{}'", property));
  r.property = *p;
  if (line.substr(at).starts_with(" variant=")) {
    at += 9;
    auto file = read_word(line, at);
    if (!file || file->empty()) return fail("variant=: expected the variant's file, quoted as 'FILE'");
    r.variant = *file;
    if (!line.substr(at).starts_with(" sha1=")) return fail("variant=: expected sha1=HASH after the file");
    at += 6;
    size_t end = line.find(':', at);
    std::string_view hash = line.substr(at, end - at);
    if (!is_sha1(hash)) return fail(fmt::format("sha1={}: expected 40 lowercase hex digits", hash));
    r.variant_sha1 = std::string(hash);
    at = end;
  }
  if (at >= line.size() || line[at] != ':') return fail(std::string(kExpected));
  std::string variant_name;
  if (!r.variant.empty()) {
    // The variant's name is the scenario's algorithm: load it before the scenario is read.
    fs::path path(r.variant);
    if (path.is_relative() && !folder.empty()) path = fs::path(folder) / path;
    r.variant_path = path.lexically_normal().string();
    std::string why;
    auto now = file_sha1(r.variant_path, &why);
    if (!now) return fail(fmt::format("variant={}: {}", r.variant, why));
    r.variant_sha1_now = *now;
    const lock::Algorithm* a = use_variant_file(r.variant_path, &why);
    if (!a) return fail(why);
    variant_name = std::string(a->id);
  }
  std::string why;
  auto s = parse_scenario(line.substr(at + 1), &why);
  if (!s) return fail(why);
  r.scenario = *s;
  if (!r.variant.empty() && r.scenario.algorithm != variant_name)
    return fail(
        fmt::format("variant={}: the scenario's algorithm '{}' is not that variant", r.variant, r.scenario.algorithm));
  return r;
}

std::optional<std::vector<Regression>> load_regressions(const std::string& path, std::string* error) {
  auto text = sim::read_input_file(path, sim::kMaxInputBytes, error);
  if (!text) return std::nullopt;
  const std::string folder = fs::path(path).parent_path().string();
  std::istringstream in(*text);
  std::vector<Regression> out;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string::npos || line[start] == '#') continue;
    std::string why;
    auto r = parse_regression(std::string_view(line).substr(start), &why, folder);
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
bool append_regression(const std::string& path, const Regression& given, std::string* error) {
  Regression r = given;
  if (const std::string file = variant_file(r.scenario.algorithm); !file.empty() && r.variant.empty()) {
    auto hash = file_sha1(file, error);
    if (!hash) return false;
    r.variant = relative_to_folder_of(path, file);
    r.variant_sha1 = *hash;
  }
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
