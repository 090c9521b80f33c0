#include "locksim/sim/redis/glob.hpp"

namespace locksim::redis {

namespace {
// Mirrors the semantics of Redis util.c stringmatchlen (case-sensitive),
// written recursively over string_views, with Redis 7.0.9's bounds (the fix of
// CVE-2022-36021): a nesting limit, and once the rest of the pattern after a '*'
// matches no suffix at all, no earlier '*' tries a longer match either, since
// that could only leave a shorter suffix. Worst case: O(pattern x text).
bool match_from(std::string_view p, std::string_view s, int depth, bool& skip_longer) {
  if (depth > 1000) return false;   // Redis's nesting limit
  if (s.empty()) return p.empty();  // Redis's loop needs text left to consume
  while (!p.empty()) {
    switch (p[0]) {
      case '*': {
        while (p.size() > 1 && p[1] == '*') p.remove_prefix(1);
        if (p.size() == 1) return true;
        for (size_t i = 0; i < s.size(); ++i) {
          if (match_from(p.substr(1), s.substr(i), depth + 1, skip_longer)) return true;
          if (skip_longer) return false;
        }
        skip_longer = true;
        return false;
      }
      case '?':
        if (s.empty()) return false;
        s.remove_prefix(1);
        break;
      case '[': {
        p.remove_prefix(1);
        bool negate = !p.empty() && p[0] == '^';
        if (negate) p.remove_prefix(1);
        bool matched = false;
        if (s.empty()) return false;
        const unsigned char c = static_cast<unsigned char>(s[0]);
        while (true) {
          if (p.empty()) break;  // unterminated class: Redis treats the end as closing it
          if (p[0] == '\\' && p.size() >= 2) {
            p.remove_prefix(1);
            if (static_cast<unsigned char>(p[0]) == c) matched = true;
          } else if (p[0] == ']') {
            break;
          } else if (p.size() >= 3 && p[1] == '-') {
            unsigned char start = static_cast<unsigned char>(p[0]);
            unsigned char end = static_cast<unsigned char>(p[2]);
            if (start > end) std::swap(start, end);
            p.remove_prefix(2);
            if (c >= start && c <= end) matched = true;
          } else if (static_cast<unsigned char>(p[0]) == c) {
            matched = true;
          }
          p.remove_prefix(1);
        }
        if (negate) matched = !matched;
        if (!matched) return false;
        s.remove_prefix(1);
        if (p.empty()) return s.empty();  // pattern ended inside the class
        break;
      }
      case '\\':
        if (p.size() >= 2) p.remove_prefix(1);
        [[fallthrough]];
      default:
        if (s.empty() || p[0] != s[0]) return false;
        s.remove_prefix(1);
        break;
    }
    p.remove_prefix(1);
    if (s.empty()) {
      while (!p.empty() && p[0] == '*') p.remove_prefix(1);
      return p.empty();
    }
  }
  return s.empty();
}
}  // namespace

bool glob_match(std::string_view pattern, std::string_view text) {
  bool skip_longer = false;
  return match_from(pattern, text, 0, skip_longer);
}

}  // namespace locksim::redis
