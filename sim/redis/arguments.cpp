#include "sim/redis/arguments.hpp"

#include <limits>

namespace locksim::redis {

bool parse_int64(std::string_view s, int64_t& out) {
  if (s.empty() || s.size() > 20) return false;
  if (s.size() == 1 && s[0] == '0') {
    out = 0;
    return true;
  }
  size_t i = 0;
  bool negative = false;
  if (s[0] == '-') {
    negative = true;
    i = 1;
    if (s.size() == 1) return false;
  }
  if (s[i] < '1' || s[i] > '9') return false;
  uint64_t magnitude = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    uint64_t digit = static_cast<uint64_t>(s[i] - '0');
    if (magnitude > (std::numeric_limits<uint64_t>::max() - digit) / 10) return false;
    magnitude = magnitude * 10 + digit;
  }
  constexpr uint64_t max_positive = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (negative) {
    if (magnitude > max_positive + 1) return false;
    out = magnitude == max_positive + 1 ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(magnitude);
  } else {
    if (magnitude > max_positive) return false;
    out = static_cast<int64_t>(magnitude);
  }
  return true;
}

bool equals_lower(std::string_view text, std::string_view lower) {
  if (text.size() != lower.size()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower[i]) return false;
  }
  return true;
}

bool to_lower(std::string_view text, char* buffer, size_t capacity, std::string_view& out) {
  if (text.size() > capacity) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    buffer[i] = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  out = std::string_view(buffer, text.size());
  return true;
}

Reply arity_error(std::string_view command_name) {
  return Reply::error("ERR wrong number of arguments for '" + std::string(command_name) + "' command");
}

Reply invalid_expire_error(std::string_view command_name) {
  return Reply::error("ERR invalid expire time in '" + std::string(command_name) + "' command");
}

}  // namespace locksim::redis
