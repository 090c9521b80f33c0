#include "locksim/server/request_parser.hpp"

#include <algorithm>
#include <cstring>

#include "locksim/sim/redis/arguments.hpp"
#include "locksim/sim/redis/cli_split.hpp"

namespace locksim::server {

namespace {
// Redis string2ll over the bytes between pos and the CR: no sign but '-', no leading
// zero, no space, at most 20 characters ("$03" and "$+3" are invalid bulk lengths).
bool parse_ll(std::string_view text, int64_t& out) {
  // The usual header, 1 to 9 digits without a leading zero, read here; every other form as string2ll.
  if (text.empty() || text.size() > 9 || text[0] < '1' || text[0] > '9') return redis::parse_int64(text, out);
  int64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  out = value;
  return true;
}

// Redis looks for a line's end with strchr on its NUL-terminated query buffer, so a NUL
// byte before the terminator hides it: the line is not complete yet (and, past 64 KB,
// too big). The offset of `terminator`, or npos.
size_t find_line_end(std::string_view input, size_t pos, char terminator) {
  // A header line ("*3", "$16") is a few bytes: a plain loop finds its end sooner than
  // two memchr calls; a longer line (inline) goes on with memchr.
  const size_t quick_end = std::min(input.size(), pos + 16);
  for (; pos < quick_end; ++pos) {
    if (input[pos] == terminator) return pos;
    if (input[pos] == '\0') return std::string_view::npos;
  }
  if (pos == input.size()) return std::string_view::npos;
  const char* start = input.data() + pos;
  const size_t left = input.size() - pos;
  const auto* end = static_cast<const char*>(std::memchr(start, terminator, left));
  if (!end) return std::string_view::npos;
  if (std::memchr(start, '\0', static_cast<size_t>(end - start))) return std::string_view::npos;
  return pos + static_cast<size_t>(end - start);
}

// A header line as clients write it - the marker, 1 to 9 digits without a leading zero
// (or a lone 0), CR LF - read in one pass into `value`; pos is then past it. False for
// anything else, which the general path reads (with Redis's texts for what is wrong).
bool read_plain_header(std::string_view input, size_t& pos, char marker, int64_t& value) {
  const char* p = input.data() + pos;
  const char* const end = input.data() + input.size();
  if (end - p < 4 || *p != marker) return false;
  const char* const digits = ++p;
  const char* const last = std::min(end - 2, digits + 9);  // at most 9 digits, with room for CR LF after
  int64_t n = 0;
  for (unsigned d; p < last && (d = static_cast<unsigned char>(*p) - unsigned{'0'}) <= 9; ++p) n = n * 10 + d;
  const auto count = p - digits;  // (p <= end - 2: p[0] and p[1] are in the input)
  if (count == 0 || (count > 1 && *digits == '0') || p[0] != '\r' || p[1] != '\n') return false;
  value = n;
  pos = static_cast<size_t>(p + 2 - input.data());
  return true;
}

// Grows argv to hold index i and sets it, reusing the capacity of strings already there
// (clear and append: assign's general replace costs more for these short copies).
void set_arg(redis::Command& argv, size_t i, std::string_view value) {
  if (argv.size() <= i) argv.resize(i + 1);
  std::string& arg = argv[i];
  arg.clear();
  arg.append(value.data(), value.size());
}
}  // namespace

void RequestParser::reset() {
  kind_ = Kind::Unknown;
  multibulk_left_ = 0;
  bulk_len_ = -1;
  argc_ = 0;
  pending_bytes_ = 0;
}

RequestParser::Result RequestParser::fail(std::string text) {
  error_ = std::move(text);
  reset();
  return Result::ProtocolError;
}

RequestParser::Result RequestParser::parse(std::string_view input, size_t& pos, redis::Command& argv) {
  while (pos < input.size()) {
    if (kind_ == Kind::Unknown) kind_ = input[pos] == '*' ? Kind::Multibulk : Kind::Inline;
    Result r = kind_ == Kind::Inline ? parse_inline(input, pos, argv) : parse_multibulk(input, pos, argv);
    if (r != Result::Command) return r;
    if (!argv.empty()) return r;  // an empty line or "*0" is skipped, as Redis does
  }
  return Result::NeedMore;
}

RequestParser::Result RequestParser::parse_inline(std::string_view input, size_t& pos, redis::Command& argv) {
  const char* start = input.data() + pos;
  const size_t left = input.size() - pos;
  const size_t newline = find_line_end(input, pos, '\n');
  if (newline == std::string_view::npos) {
    if (left > limits_.max_inline) return fail("ERR Protocol error: too big inline request");
    return Result::NeedMore;
  }
  size_t line_len = newline - pos;
  const size_t consumed = line_len + 1;
  if (line_len > 0 && start[line_len - 1] == '\r') --line_len;
  auto args = redis::split_cli_line(std::string_view(start, line_len));
  if (!args) return fail("ERR Protocol error: unbalanced quotes in request");
  pos += consumed;
  argv.resize(args->size());
  for (size_t i = 0; i < args->size(); ++i) argv[i] = std::move((*args)[i]);
  reset();
  return Result::Command;
}

RequestParser::Result RequestParser::parse_multibulk(std::string_view input, size_t& pos, redis::Command& argv) {
  if (multibulk_left_ == 0) {
    const size_t start = pos;
    int64_t plain_count = 0;
    if (read_plain_header(input, pos, '*', plain_count)) {
      if (plain_count > 0 && (plain_count <= 10 || !unauthenticated_)) {
        multibulk_left_ = plain_count;
        argc_ = 0;
      } else {
        pos = start;  // "*0", or refused below with Redis's text
      }
    }
  }
  if (multibulk_left_ == 0) {
    const size_t cr = find_line_end(input, pos, '\r');
    if (cr == std::string_view::npos) {
      if (input.size() - pos > limits_.max_inline) return fail("ERR Protocol error: too big mbulk count string");
      return Result::NeedMore;
    }
    if (cr + 1 >= input.size()) return Result::NeedMore;  // the LF is not there yet
    int64_t count = 0;
    if (!parse_ll(input.substr(pos + 1, cr - pos - 1), count) || count > INT32_MAX)
      return fail("ERR Protocol error: invalid multibulk length");
    if (count > 10 && unauthenticated_) return fail("ERR Protocol error: unauthenticated multibulk length");
    pos = cr + 2;
    if (count <= 0) {
      argv.clear();
      reset();
      return Result::Command;  // skipped by parse()
    }
    multibulk_left_ = count;
    argc_ = 0;
  }
  while (multibulk_left_ > 0) {
    if (bulk_len_ == -1) {
      const size_t start = pos;
      int64_t plain_len = 0;
      if (read_plain_header(input, pos, '$', plain_len)) {
        if (plain_len <= limits_.max_bulk_len && (plain_len <= 16384 || !unauthenticated_))
          bulk_len_ = plain_len;
        else
          pos = start;  // refused below, with Redis's text
      }
    }
    if (bulk_len_ == -1) {
      const size_t cr = find_line_end(input, pos, '\r');
      if (cr == std::string_view::npos) {
        if (input.size() - pos > limits_.max_inline) return fail("ERR Protocol error: too big bulk count string");
        return Result::NeedMore;
      }
      if (cr + 1 >= input.size()) return Result::NeedMore;
      if (input[pos] != '$') return fail(std::string("ERR Protocol error: expected '$', got '") + input[pos] + "'");
      int64_t len = 0;
      if (!parse_ll(input.substr(pos + 1, cr - pos - 1), len) || len < 0 || len > limits_.max_bulk_len)
        return fail("ERR Protocol error: invalid bulk length");
      if (len > 16384 && unauthenticated_) return fail("ERR Protocol error: unauthenticated bulk length");
      pos = cr + 2;
      bulk_len_ = len;
    }
    const auto need = static_cast<size_t>(bulk_len_) + 2;
    if (input.size() - pos < need) {
      if (pending_bytes_ + need > limits_.max_pending_bytes) return Result::TooBig;
      return Result::NeedMore;
    }
    set_arg(argv, argc_++, input.substr(pos, static_cast<size_t>(bulk_len_)));
    pending_bytes_ += static_cast<size_t>(bulk_len_) + sizeof(std::string);
    if (pending_bytes_ > limits_.max_pending_bytes) return Result::TooBig;
    pos += need;
    bulk_len_ = -1;
    --multibulk_left_;
  }
  argv.resize(argc_);
  reset();
  return Result::Command;
}

}  // namespace locksim::server
