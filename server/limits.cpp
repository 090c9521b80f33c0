#include "locksim/server/limits.hpp"

#include <cctype>
#include <vector>

namespace locksim::server {

std::optional<uint64_t> parse_memory(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 19) return std::nullopt;
  uint64_t value = std::stoull(std::string(text.substr(0, digits)));
  std::string unit;
  for (char c : text.substr(digits)) unit += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  uint64_t mul = 1;
  if (unit.empty() || unit == "b") mul = 1;
  else if (unit == "k") mul = 1000;
  else if (unit == "kb") mul = 1024;
  else if (unit == "m") mul = 1000 * 1000;
  else if (unit == "mb") mul = 1024 * 1024;
  else if (unit == "g") mul = 1000ULL * 1000 * 1000;
  else if (unit == "gb") mul = 1024ULL * 1024 * 1024;
  else return std::nullopt;
  if (value > UINT64_MAX / mul) return std::nullopt;
  return value * mul;
}

std::string format_output_limits(const ClientLimits& limits) {
  static constexpr std::array<const char*, 3> kNames = {"normal", "slave", "pubsub"};
  std::string out;
  for (size_t i = 0; i < kNames.size(); ++i) {
    const OutputLimit& l = limits.output[i];
    if (!out.empty()) out += ' ';
    out += std::string(kNames[i]) + " " + std::to_string(l.hard) + " " + std::to_string(l.soft) + " " +
           std::to_string(l.soft_seconds);
  }
  return out;
}

bool parse_output_limits(std::string_view text, ClientLimits& limits) {
  std::vector<std::string> words;
  std::string word;
  for (char c : text) {
    if (c == ' ') {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  if (words.empty() || words.size() % 4 != 0) return false;
  ClientLimits updated = limits;
  for (size_t i = 0; i < words.size(); i += 4) {
    std::string name = words[i];
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    ClientClass cls;
    if (name == "normal") cls = ClientClass::Normal;
    else if (name == "replica" || name == "slave") cls = ClientClass::Replica;
    else if (name == "pubsub") cls = ClientClass::Pubsub;
    else return false;
    auto hard = parse_memory(words[i + 1]), soft = parse_memory(words[i + 2]);
    auto seconds = parse_memory(words[i + 3]);
    if (!hard || !soft || !seconds || words[i + 3].find_first_not_of("0123456789") != std::string::npos ||
        *seconds > static_cast<uint64_t>(INT32_MAX))
      return false;
    updated.output[static_cast<size_t>(cls)] = OutputLimit{*hard, *soft, static_cast<int64_t>(*seconds)};
  }
  limits = updated;
  return true;
}

bool output_limit_reached(const OutputLimit& limit, size_t bytes, int64_t now_ms, int64_t& soft_since_ms) {
  if (limit.hard && bytes >= limit.hard) return true;
  if (!limit.soft || bytes < limit.soft) {
    soft_since_ms = 0;
    return false;
  }
  if (soft_since_ms == 0) {
    soft_since_ms = now_ms;
    return false;
  }
  return now_ms - soft_since_ms > limit.soft_seconds * 1000;
}

}  // namespace locksim::server
