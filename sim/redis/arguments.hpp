#pragma once
// Argument parsing and the error texts Redis 7.0 uses for them (internal).
#include <cstdint>
#include <string>
#include <string_view>

#include "locksim/sim/redis/reply.hpp"

namespace locksim::redis {

inline constexpr std::string_view kSyntaxError = "ERR syntax error";
inline constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";
// The longest string value Redis 7.0 builds (proto-max-bulk-len, 512 MB): APPEND, SETRANGE, SETBIT.
inline constexpr int64_t kMaxStringLength = 512LL * 1024 * 1024;
inline constexpr std::string_view kWrongType = "WRONGTYPE Operation against a key holding the wrong kind of value";

// Redis string2ll: optional '-', no '+', no spaces, no leading zeros, no "-0".
bool parse_int64(std::string_view text, int64_t& out);

inline char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// 'A'..'Z' -> 'a'..'z' in each byte of a word, every other byte as it was (eight
// bytes at once: a command name, a 40-byte sha).
constexpr uint64_t ascii_lower_word(uint64_t word) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  const uint64_t low7 = word & ~kHigh;
  const uint64_t above_z = low7 + kOnes * (0x7F - 'Z');  // high bit: byte > 'Z'
  const uint64_t from_a = low7 + kOnes * (0x80 - 'A');   // high bit: byte >= 'A'
  const uint64_t upper = from_a & ~above_z & ~word & kHigh;
  return word | (upper >> 2);
}

// Case-insensitive comparison against an ASCII lowercase literal (inline: every
// command name and option goes through it).
inline bool equals_lower(std::string_view text, std::string_view lower) {
  if (text.size() != lower.size()) return false;
  for (size_t i = 0; i < text.size(); ++i)
    if (ascii_lower(text[i]) != lower[i]) return false;
  return true;
}

// Lowercases into a caller buffer; false if the text does not fit.
bool to_lower(std::string_view text, char* buffer, size_t capacity, std::string_view& out);

inline Reply error_reply(std::string_view text) { return Reply::error(std::string(text)); }

// SRANDMEMBER / HRANDFIELD / ZRANDMEMBER with a negative count repeat elements: Redis
// streams any number of them, the model builds the reply, so it answers at most this
// many (docs/limits.md) and refuses more with kRandomCountTooBig.
inline constexpr uint64_t kMaxRepeatedRandomCount = 1'000'000;
inline constexpr std::string_view kRandomCountTooBig =
    "ERR value is out of range: the model answers at most 1000000 repeated random elements";
Reply arity_error(std::string_view command_name);
Reply invalid_expire_error(std::string_view command_name);

}  // namespace locksim::redis

namespace locksim::redis {
// Redis string2ld / string2d: the whole text is a float (strtold / strtod), no
// spaces, not NaN; "inf" and "-inf" are accepted.
bool parse_long_double(std::string_view text, long double& out);
bool parse_double(std::string_view text, double& out);
// Redis's %.17g rendering of a double reply (inf, -inf as Redis writes them).
std::string format_double(double value);
// Redis addReplyHumanLongDouble / INCRBYFLOAT: %.17Lf with trailing zeros removed.
std::string format_long_double(long double value);
}  // namespace locksim::redis
