#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include "locksim/sim/redis/resp.hpp"

using namespace locksim::redis;

TEST_CASE("to_string gives the compact one-line form") {
  CHECK(to_string(Reply::ok()) == "OK");
  CHECK(to_string(Reply::nil()) == "(nil)");
  CHECK(to_string(Reply::integer_(-3)) == "(integer) -3");
  CHECK(to_string(Reply::bulk("a\"b\n\x01")) == "\"a\\\"b\\n\\x01\"");
  CHECK(to_string(Reply::error("ERR x")) == "(error) ERR x");
  CHECK(to_string(Reply::array({Reply::bulk("a"), Reply::array({}), Reply::nil_array()})) ==
        "[\"a\", [], (nil array)]");
  CHECK(Reply::nil().is_nil());
  CHECK(Reply::nil_array().is_nil());
  CHECK_FALSE(Reply::bulk("").is_nil());
  CHECK(Reply::error("x").is_error());
}

TEST_CASE("RESP2 encoding of every reply type") {
  CHECK(encode_resp(Reply::ok()) == "+OK\r\n");
  CHECK(encode_resp(Reply::error("ERR no")) == "-ERR no\r\n");
  CHECK(encode_resp(Reply::integer_(-12)) == ":-12\r\n");
  CHECK(encode_resp(Reply::bulk("hi")) == "$2\r\nhi\r\n");
  CHECK(encode_resp(Reply::bulk("")) == "$0\r\n\r\n");
  CHECK(encode_resp(Reply::nil()) == "$-1\r\n");
  CHECK(encode_resp(Reply::nil_array()) == "*-1\r\n");
  CHECK(encode_resp(Reply::array({Reply::integer_(1), Reply::bulk("x")})) == "*2\r\n:1\r\n$1\r\nx\r\n");
  CHECK(encode_resp(Command{"SET", "k", "v"}) == "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n");
}

TEST_CASE("RESP2 decoding: complete, incomplete and malformed input") {
  auto d = decode_resp("*2\r\n$1\r\na\r\n:5\r\nrest");
  REQUIRE(d);
  CHECK(d->consumed == 15);
  CHECK(d->reply == Reply::array({Reply::bulk("a"), Reply::integer_(5)}));
  CHECK_FALSE(decode_resp("*2\r\n$1\r\na\r\n"));
  CHECK_FALSE(decode_resp("$5\r\nab"));
  CHECK_FALSE(decode_resp("+OK\r"));
  CHECK_FALSE(decode_resp(""));
  CHECK_THROWS_AS(decode_resp("?x\r\n"), RespError);
  CHECK_THROWS_AS(decode_resp(":12a\r\n"), RespError);
  CHECK_THROWS_AS(decode_resp("$1\r\nab\r\n"), RespError);
  CHECK_THROWS_AS(decode_resp("+OK\rX"), RespError);
  auto c = decode_command("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n");
  REQUIRE(c);
  CHECK(c->command == Command{"GET", "k"});
  CHECK_THROWS_AS(decode_command(":1\r\n"), RespError);
  CHECK_THROWS_AS(decode_command("*1\r\n:1\r\n"), RespError);
  // Lengths are read as Redis's string2ll reads them (networking.c refuses the rest).
  for (const char* bad : {"*1\r\n$0000003\r\nfoo\r\n", "*1\r\n$+3\r\nfoo\r\n", "*01\r\n$3\r\nfoo\r\n",
                          "*1\r\n$ 3\r\nfoo\r\n", "*1\r\n$-0\r\n"})
    CHECK_THROWS_AS(decode_command(bad), RespError);
}

namespace {
rc::Gen<Reply> gen_line_reply(Reply (*make)(std::string)) {
  return rc::gen::map(rc::gen::string<std::string>(), [make](std::string s) {
    std::erase(s, '\r');  // simple strings cannot hold CR or LF
    std::erase(s, '\n');
    return make(s);
  });
}

rc::Gen<Reply> gen_reply(int depth) {
  auto nested =
      depth < 3 ? rc::gen::map(
                      rc::gen::container<std::vector<Reply>>(rc::gen::lazy([depth] { return gen_reply(depth + 1); })),
                      Reply::array)
                : rc::gen::just(Reply::array({}));
  return rc::gen::weightedOneOf<Reply>({
      {1, gen_line_reply(Reply::status)},
      {1, gen_line_reply(Reply::error)},
      {1, rc::gen::map(rc::gen::arbitrary<int64_t>(), Reply::integer_)},
      {2, rc::gen::map(rc::gen::string<std::string>(), Reply::bulk)},
      {1, rc::gen::just(Reply::nil())},
      {1, rc::gen::just(Reply::nil_array())},
      {1, nested},
  });
}
}  // namespace

TEST_CASE("RESP2 round trip") {
  rc::prop("decode(encode(r)) == r, consuming every byte", [] {
    Reply r = *gen_reply(0);
    std::string wire = encode_resp(r);
    auto d = decode_resp(wire);
    RC_ASSERT(d.has_value());
    RC_ASSERT(d->consumed == wire.size());
    RC_ASSERT(d->reply == r);
    // Any strict prefix is incomplete, never an error.
    if (!wire.empty()) RC_ASSERT(!decode_resp(std::string_view(wire).substr(0, wire.size() - 1)).has_value());
  });
}
