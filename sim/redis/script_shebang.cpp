#include "locksim/sim/redis/script_shebang.hpp"

#include <vector>

namespace locksim::redis {

namespace {
std::vector<std::string_view> split(std::string_view text, char by) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(by, start);
    if (end == std::string_view::npos) end = text.size();
    if (by != ' ' || end > start) parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}
}  // namespace

std::optional<Reply> parse_shebang(std::string_view body, ScriptFlags& flags, std::string& lua_body) {
  flags = ScriptFlags{};
  if (!body.starts_with("#!")) {
    lua_body.assign(body);
    return std::nullopt;
  }
  const size_t newline = body.find('\n');
  if (newline == std::string_view::npos) return Reply::error("ERR Invalid script shebang");
  const std::string_view line = body.substr(0, newline);
  auto words = split(line, ' ');
  if (words.empty() || words[0] != "#!lua")
    return Reply::error("ERR Unexpected engine in script shebang: " + std::string(words.empty() ? line : words[0]));
  flags.shebang = true;
  for (size_t i = 1; i < words.size(); ++i) {
    if (!words[i].starts_with("flags="))
      return Reply::error("ERR Unknown lua shebang option: " + std::string(words[i]));
    for (std::string_view flag : split(words[i].substr(6), ',')) {
      if (flag.empty()) continue;
      if (flag == "no-writes")
        flags.no_writes = true;
      else if (flag == "allow-oom")
        flags.allow_oom = true;
      else if (flag != "allow-stale" && flag != "no-cluster" && flag != "allow-cross-slot-keys")
        return Reply::error("ERR Unexpected flag in script shebang: " + std::string(flag));
    }
  }
  lua_body.assign(body.substr(newline));  // keeps the newline: errors name the same lines
  return std::nullopt;
}

}  // namespace locksim::redis
