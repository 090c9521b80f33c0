#include "locksim/sim/redis/arguments.hpp"

#include <cstring>
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

bool to_lower(std::string_view text, char* buffer, size_t capacity, std::string_view& out) {
  if (text.size() > capacity) return false;
  size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {  // a word at a time, then the tail
    uint64_t word;
    std::memcpy(&word, text.data() + i, 8);
    word = ascii_lower_word(word);
    std::memcpy(buffer + i, &word, 8);
  }
  for (; i < text.size(); ++i) buffer[i] = ascii_lower(text[i]);
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

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace locksim::redis {

bool parse_long_double(std::string_view text, long double& out) {
  if (text.empty() || text.size() >= 5 * 1024) return false;
  const std::string buffer(text);
  if (std::isspace(static_cast<unsigned char>(buffer[0]))) return false;
  char* end = nullptr;
  errno = 0;
  const long double value = std::strtold(buffer.c_str(), &end);
  if (end != buffer.c_str() + buffer.size() || std::isnan(value)) return false;
  if (errno == ERANGE && (value == HUGE_VALL || value == -HUGE_VALL || std::fpclassify(value) == FP_ZERO)) return false;
  out = value;
  return true;
}

bool parse_double(std::string_view text, double& out) {
  if (text.empty() || text.size() >= 5 * 1024) return false;
  const std::string buffer(text);
  if (std::isspace(static_cast<unsigned char>(buffer[0]))) return false;
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(buffer.c_str(), &end);
  if (end != buffer.c_str() + buffer.size() || std::isnan(value)) return false;
  if (errno == ERANGE && (value == HUGE_VAL || value == -HUGE_VAL || std::fpclassify(value) == FP_ZERO)) return false;
  out = value;
  return true;
}

std::string format_double(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[64];
  const int n = std::snprintf(buf, sizeof buf, "%.17g", value);
  return std::string(buf, static_cast<size_t>(n));
}

std::string format_long_double(long double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[5 * 1024];
  int n = std::snprintf(buf, sizeof buf, "%.17Lf", value);
  if (n <= 0 || static_cast<size_t>(n) >= sizeof buf) return "0";
  std::string out(buf, static_cast<size_t>(n));
  if (out.find('.') != std::string::npos) {
    while (!out.empty() && out.back() == '0') out.pop_back();
    if (!out.empty() && out.back() == '.') out.pop_back();
  }
  if (out == "-0") out = "0";
  return out;
}

}  // namespace locksim::redis
