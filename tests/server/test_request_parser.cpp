// The request parser against Redis 7.0.15's networking.c (processMultibulkBuffer,
// processInlineBuffer, string2ll), input by input: what Redis refuses, what it waits
// for, and what it runs. Each expectation was checked against a real redis-server 7.0.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "locksim/server/request_parser.hpp"

using locksim::server::RequestParser;
using Result = RequestParser::Result;

namespace {
struct Parsed {
  Result result;
  std::vector<std::string> argv;  // the first command, when one was read
  std::string error;
  size_t consumed = 0;
};

Parsed parse(const std::string& input, bool unauthenticated = false) {
  RequestParser parser;
  parser.set_unauthenticated(unauthenticated);
  size_t pos = 0;
  locksim::redis::Command argv;
  Parsed out{parser.parse(input, pos, argv), {}, {}, 0};
  if (out.result == Result::Command) out.argv = argv;
  if (out.result == Result::ProtocolError) out.error = parser.error();
  out.consumed = pos;
  return out;
}

void check_error(const std::string& input, const std::string& error) {
  INFO("input: " << input.substr(0, 60));
  const Parsed p = parse(input);
  CHECK(p.result == Result::ProtocolError);
  CHECK(p.error == "ERR Protocol error: " + error);
}

void check_waits(const std::string& input) {
  INFO("input: " << input.substr(0, 60));
  CHECK(parse(input).result == Result::NeedMore);
}
}  // namespace

TEST_CASE("request parser: lengths are read as string2ll reads them", "[server]") {
  // No leading zeros, no '+', no spaces, nothing after the digits (issue 19: "$0000003").
  for (const char* bulk : {"0000003", "03", "+3", " 3", "3 ", "-0", "3a", "", "-", "99999999999999999999"})
    check_error(std::string("*1\r\n$") + bulk + "\r\nfoo\r\n", "invalid bulk length");
  for (const char* count : {"01", "+1", " 1", "1 ", "-0", "1x", "", "-", "2147483648", "99999999999999999999"})
    check_error(std::string("*") + count + "\r\n$4\r\nPING\r\n", "invalid multibulk length");
  check_error("*1\r\n$536870913\r\n", "invalid bulk length");  // proto-max-bulk-len
  check_error("*1\r\n$-1\r\n", "invalid bulk length");
  // The canonical forms are read.
  CHECK(parse("*1\r\n$0\r\n\r\n").argv == std::vector<std::string>{""});
  CHECK(parse("*2147483647\r\n").result == Result::NeedMore);
  // A count of zero or less is an empty command: skipped, the next one is read.
  const Parsed skipped = parse("*0\r\n*-5\r\n*1\r\n$4\r\nPING\r\n");
  CHECK(skipped.argv == std::vector<std::string>{"PING"});
  CHECK(skipped.consumed == 23);
}

TEST_CASE("request parser: a NUL before the line's end hides it, as strchr does in Redis", "[server]") {
  check_waits(std::string("*1\0\r\n$4\r\nPING\r\n", 16));
  check_waits(std::string("*1\r\n$4\0\r\nPING\r\n", 16));
  check_waits(std::string("PI\0NG\r\n", 7));
  // ... until the unparsed input is over 64 KB.
  check_error(std::string("*1\0\r\n", 5) + std::string(70 * 1024, 'x'), "too big mbulk count string");
  check_error(std::string("PING\0\n", 6) + std::string(70 * 1024, 'x'), "too big inline request");
  // A NUL inside a bulk is data.
  CHECK(parse(std::string("*2\r\n$4\r\nECHO\r\n$3\r\na\0b\r\n", 23)).argv ==
        std::vector<std::string>{"ECHO", std::string("a\0b", 3)});
}

TEST_CASE("request parser: the terminators Redis does not check", "[server]") {
  // Redis skips the two bytes after a length's CR and after a bulk without looking at them.
  CHECK(parse("*1\rX$4\rXPINGXY").argv == std::vector<std::string>{"PING"});
  // A length's CR must be followed by one more byte before it is read.
  check_waits("*1\r");
  check_waits("*1\r\n$4\r");
  check_waits("*1\r\n$4\r\nPING\r");
  check_error("*1\r\nPING\r\n", "expected '$', got 'P'");
}

TEST_CASE("request parser: inline commands", "[server]") {
  CHECK(parse("SET k \"a\\x41 b\" 'c d'\r\n").argv == std::vector<std::string>{"SET", "k", "aA b", "c d"});
  CHECK(parse("PING\n").argv == std::vector<std::string>{"PING"});  // a bare LF ends the line too
  const Parsed blank = parse("\r\n   \r\n\nPING\r\n");
  CHECK(blank.argv == std::vector<std::string>{"PING"});
  check_error("SET k \"open\r\n", "unbalanced quotes in request");
  check_error("SET k \"closed\"x\r\n", "unbalanced quotes in request");  // a quote must end the argument
  check_waits(std::string(60 * 1024, 'a'));
  check_error(std::string(70 * 1024, 'a'), "too big inline request");
}

TEST_CASE("request parser: limits before AUTH", "[server]") {
  const Parsed many = parse("*11\r\n", true);
  CHECK(many.result == Result::ProtocolError);
  CHECK(many.error == "ERR Protocol error: unauthenticated multibulk length");
  const Parsed big = parse("*1\r\n$16385\r\n", true);
  CHECK(big.result == Result::ProtocolError);
  CHECK(big.error == "ERR Protocol error: unauthenticated bulk length");
  CHECK(parse("*10\r\n", true).result == Result::NeedMore);
  CHECK(parse("*1\r\n$16384\r\n", true).result == Result::NeedMore);
}

TEST_CASE("request parser: a command read in two parts, split anywhere, reads as it does whole", "[server]") {
  // The buffer grows between calls, as a connection's does between reads; the parser
  // keeps its place. Headers of every length the quick path reads (1 to 9 digits) and
  // the ones it leaves to the general path (10 digits, a leading zero, a lone CR).
  const std::vector<std::string> inputs = {
      "*3\r\n$3\r\nSET\r\n$16\r\nkey:000000000042\r\n$3\r\nxyz\r\n",
      "*2\r\n$4\r\nECHO\r\n$0\r\n\r\n",
      "*1\r\n$123456789\r\n",              // waits for its bytes
      "*1\r\n$1234567890\r\nPING\r\n",     // 10 digits: over proto-max-bulk-len
      "*1\r\n$04\r\nPING\r\n",             // a leading zero
      "*1\rX$4\rXPINGXY",                  // terminators Redis does not check
      "*12\r\n$4\r\nPING\r\n",             // more than 10 arguments (refused before AUTH)
      "*1\r\n$16385\r\n",                  // a bulk over 16 KB (refused before AUTH)
      "*0\r\n*1\r\n$4\r\nPING\r\n",
  };
  for (const bool unauthenticated : {false, true}) {
    for (const std::string& input : inputs) {
      const Parsed whole = parse(input, unauthenticated);
      for (size_t split = 0; split <= input.size(); ++split) {
        INFO("input: " << input << " split at " << split << (unauthenticated ? " before AUTH" : ""));
        RequestParser parser;
        parser.set_unauthenticated(unauthenticated);
        locksim::redis::Command argv;
        size_t pos = 0;
        Result result = parser.parse(std::string_view(input).substr(0, split), pos, argv);
        if (result == Result::NeedMore) result = parser.parse(input, pos, argv);
        CHECK(result == whole.result);
        if (result == Result::Command) CHECK(argv == whole.argv);
        if (result == Result::ProtocolError) CHECK(parser.error() == whole.error);
        if (result != Result::NeedMore) CHECK(pos == whole.consumed);
      }
    }
  }
  // What the whole inputs read: the quick path and the general one agree with Redis.
  CHECK(parse(inputs[0]).argv == std::vector<std::string>{"SET", "key:000000000042", "xyz"});
  CHECK(parse(inputs[1]).argv == std::vector<std::string>{"ECHO", ""});
  CHECK(parse(inputs[2]).result == Result::NeedMore);
  CHECK(parse(inputs[3]).error == "ERR Protocol error: invalid bulk length");
  CHECK(parse(inputs[4]).error == "ERR Protocol error: invalid bulk length");
  CHECK(parse(inputs[5]).argv == std::vector<std::string>{"PING"});
  CHECK(parse(inputs[6], true).error == "ERR Protocol error: unauthenticated multibulk length");
  CHECK(parse(inputs[7], true).error == "ERR Protocol error: unauthenticated bulk length");
  CHECK(parse(inputs[8]).argv == std::vector<std::string>{"PING"});
}
