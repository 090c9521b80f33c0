// The server's request reader (server/request_parser.*) as a socket feeds it: the
// same bytes read in one piece and in arbitrary pieces (sizes taken from the input)
// give the same commands and end the same way, the position never passes the bytes
// given, and the parser never crashes, hangs or trips a sanitizer. Run with a small
// query-buffer limit as well, where only the absence of crashes is checked.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "locksim/server/request_parser.hpp"

using locksim::server::ProtocolLimits;
using locksim::server::RequestParser;

namespace {
struct Outcome {
  std::vector<locksim::redis::Command> commands;
  RequestParser::Result last = RequestParser::Result::NeedMore;
  std::string error;
};

// Feeds `input` in pieces of the given sizes (cycled; 0 means all that is left), keeping
// what was not consumed, as the server's connection does with its query buffer.
Outcome feed(std::string_view input, const std::vector<size_t>& pieces, ProtocolLimits limits) {
  RequestParser parser(limits);
  Outcome out;
  std::string buffer;
  size_t given = 0;
  locksim::redis::Command argv;  // kept across reads: it holds a half-read command's arguments
  for (size_t i = 0; given < input.size(); ++i) {
    size_t n = pieces.empty() ? 0 : pieces[i % pieces.size()];
    if (n == 0 || n > input.size() - given) n = input.size() - given;
    buffer.append(input.substr(given, n));
    given += n;
    size_t pos = 0;
    for (;;) {
      const size_t before = pos;
      out.last = parser.parse(buffer, pos, argv);
      if (pos > buffer.size() || pos < before) std::abort();
      if (out.last != RequestParser::Result::Command) break;
      if (argv.empty() || pos == before) std::abort();  // a command consumes bytes and has a name
      out.commands.push_back(argv);
    }
    if (out.last == RequestParser::Result::ProtocolError || out.last == RequestParser::Result::TooBig) {
      out.error = parser.error();
      return out;
    }
    buffer.erase(0, pos);
  }
  return out;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  // The first bytes choose the piece sizes; the rest is what the client sent.
  const size_t n_sizes = 1 + data[0] % 4;
  if (size < 1 + n_sizes) return 0;
  std::vector<size_t> pieces;
  for (size_t i = 0; i < n_sizes; ++i) pieces.push_back(1 + data[1 + i] % 16);
  const std::string_view input(reinterpret_cast<const char*>(data) + 1 + n_sizes, size - 1 - n_sizes);

  // Past the inline limit, whether a line is "too big" depends on how much of it was
  // buffered when the reader looked (as in Redis), so only shorter inputs must agree.
  const Outcome whole = feed(input, {}, ProtocolLimits{});
  const Outcome split = feed(input, pieces, ProtocolLimits{});
  const bool comparable = input.size() <= ProtocolLimits{}.max_inline;
  if (comparable && (whole.commands != split.commands || whole.last != split.last || whole.error != split.error))
    std::abort();

  ProtocolLimits small;
  small.max_bulk_len = 64;
  small.max_inline = 32;
  small.max_pending_bytes = 96;
  (void)feed(input, pieces, small);
  return 0;
}
