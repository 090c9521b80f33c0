#include "locksim/sim/redis/cli_split.hpp"

namespace locksim::redis {

namespace {
bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\v' || c == '\f'; }
bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}
}  // namespace

std::optional<std::vector<std::string>> split_cli_line(std::string_view line) {
  std::vector<std::string> args;
  size_t i = 0;
  const size_t n = line.size();
  auto at = [&](size_t k) { return k < n ? line[k] : '\0'; };
  while (true) {
    while (i < n && is_space(line[i])) ++i;
    if (i >= n) return args;
    std::string current;
    bool in_double = false, in_single = false, done = false;
    while (!done) {
      const char c = at(i);
      if (in_double) {
        if (c == '\\' && at(i + 1) == 'x' && is_hex(at(i + 2)) && is_hex(at(i + 3))) {
          current += static_cast<char>(hex_value(at(i + 2)) * 16 + hex_value(at(i + 3)));
          i += 3;
        } else if (c == '\\' && i + 1 < n) {
          ++i;
          switch (line[i]) {
            case 'n': current += '\n'; break;
            case 'r': current += '\r'; break;
            case 't': current += '\t'; break;
            case 'b': current += '\b'; break;
            case 'a': current += '\a'; break;
            default: current += line[i]; break;
          }
        } else if (c == '"') {
          if (i + 1 < n && !is_space(line[i + 1])) return std::nullopt;  // closing quote must end the token
          done = true;
        } else if (i >= n) {
          return std::nullopt;  // unterminated "
        } else {
          current += c;
        }
      } else if (in_single) {
        if (c == '\\' && at(i + 1) == '\'') {
          ++i;
          current += '\'';
        } else if (c == '\'') {
          if (i + 1 < n && !is_space(line[i + 1])) return std::nullopt;
          done = true;
        } else if (i >= n) {
          return std::nullopt;  // unterminated '
        } else {
          current += c;
        }
      } else {
        switch (c) {
          case ' ':
          case '\n':
          case '\r':
          case '\t': done = true; break;
          case '\0':
            if (i >= n)
              done = true;
            else
              current += c;
            break;
          case '"': in_double = true; break;
          case '\'': in_single = true; break;
          default: current += c; break;
        }
      }
      if (i < n) ++i;
    }
    args.push_back(std::move(current));
  }
}

}  // namespace locksim::redis
