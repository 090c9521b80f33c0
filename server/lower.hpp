#pragma once
// Command, option and parameter names compared case-insensitively, as Redis does (internal).
#include <cctype>
#include <string>
#include <string_view>

namespace locksim::server {

// A lowercased copy (std::tolower in the C locale the program runs in: ASCII only).
inline std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace locksim::server
