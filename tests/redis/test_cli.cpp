#include <catch2/catch.hpp>

#include <sstream>

#include "locksim/sim/redis/cli_format.hpp"
#include "locksim/sim/redis/cli_split.hpp"
#include "locksim/sim/redis/console.hpp"

using namespace locksim::redis;

TEST_CASE("redis-cli --no-raw formatting") {
  CHECK(format_cli_reply(Reply::ok()) == "OK\n");
  CHECK(format_cli_reply(Reply::nil()) == "(nil)\n");
  CHECK(format_cli_reply(Reply::nil_array()) == "(nil)\n");
  CHECK(format_cli_reply(Reply::integer_(-1)) == "(integer) -1\n");
  CHECK(format_cli_reply(Reply::error("ERR x")) == "(error) ERR x\n");
  CHECK(format_cli_reply(Reply::bulk("a\"b\\c\n\r\t\x01\xff")) == "\"a\\\"b\\\\c\\n\\r\\t\\x01\\xff\"\n");
  CHECK(format_cli_reply(Reply::array({})) == "(empty array)\n");
  Reply nested = Reply::array({Reply::integer_(1),
                               Reply::array({Reply::integer_(2), Reply::array({Reply::integer_(3), Reply::bulk("x")})}),
                               Reply::array({}), Reply::bulk("\x01")});
  CHECK(format_cli_reply(nested) ==
        "1) (integer) 1\n"
        "2) 1) (integer) 2\n"
        "   2) 1) (integer) 3\n"
        "      2) \"x\"\n"
        "3) (empty array)\n"
        "4) \"\\x01\"\n");
  std::vector<Reply> eleven(11, Reply::bulk("v"));
  eleven[10] = Reply::array({Reply::nil(), Reply::nil()});
  std::string text = format_cli_reply(Reply::array(eleven));
  CHECK(text.starts_with(" 1) \"v\"\n 2) \"v\"\n"));
  CHECK(text.ends_with("10) \"v\"\n11) 1) (nil)\n    2) (nil)\n"));
}

TEST_CASE("redis-cli argument splitting") {
  using V = std::vector<std::string>;
  CHECK(split_cli_line("set a b") == V{"set", "a", "b"});
  CHECK(split_cli_line("  set   a\tb  ") == V{"set", "a", "b"});
  CHECK(split_cli_line("") == V{});
  CHECK(split_cli_line("   ") == V{});
  CHECK(split_cli_line("set a \"x\\ny\"") == V{"set", "a", "x\ny"});
  CHECK(split_cli_line("set a \"\\x41\\xe2\\x82\\xac\\q\"") == V{"set", "a",
                                                                 "A\xe2\x82\xac"
                                                                 "q"});
  CHECK(split_cli_line("set a 'x\\ny'") == V{"set", "a", "x\\ny"});
  CHECK(split_cli_line("set a 'it\\'s'") == V{"set", "a", "it's"});
  CHECK(split_cli_line("set a \"\"") == V{"set", "a", ""});
  CHECK(split_cli_line("ab\"cd\" e") == V{"abcd", "e"});
  CHECK_FALSE(split_cli_line("set \"abc"));
  CHECK_FALSE(split_cli_line("set 'abc"));
  CHECK_FALSE(split_cli_line("set \"a\"b"));
  CHECK_FALSE(split_cli_line("set 'a'b"));
  CHECK_FALSE(split_cli_line("set abc\"d e"));
}

TEST_CASE("Console: replies, clock directive, bad input") {
  std::istringstream in(
      "set k v px 1500\n"
      "\n"
      "get k\n"
      "pttl k\n"
      ".advance 1000\n"
      "pttl k\n"
      ".advance 501\n"
      "get k\n"
      "set \"unterminated\n"
      ".advance x\n"
      ".bogus\n"
      "time\n"
      "hset h f v g w\n"
      "hgetall h\n"
      "quit\n"
      "get k\n");
  std::ostringstream out, err;
  CHECK(run_console(in, out, err) == 0);
  CHECK(out.str() ==
        "OK\n"
        "\"v\"\n"
        "(integer) 1500\n"
        "(integer) 500\n"
        "(nil)\n"
        "1) \"1700000001\"\n"
        "2) \"501000\"\n"
        "(integer) 2\n"
        "1) \"f\"\n"
        "2) \"v\"\n"
        "3) \"g\"\n"
        "4) \"w\"\n");
  const std::string messages = err.str();
  CHECK(messages.find("line 9: invalid argument(s)") != std::string::npos);
  CHECK(messages.find("line 10: usage: .advance") != std::string::npos);
  CHECK(messages.find("line 11: unknown directive '.bogus'") != std::string::npos);
}

TEST_CASE("Console: a prompt and a greeting only for a person, HELP, LOCKSIM commands") {
  std::istringstream in("HELP\nSET k v PX 1000\nLOCKSIM.ADVANCE 1500\nGET k\nLOCKSIM.TIME\nLOCKSIM.JUMP -500\n"
                        "SET k v\nLOCKSIM.RESTART\nGET k\nLOCKSIM.NOPE\nLOCKSIM.ADVANCE -1\n");
  std::ostringstream out, err;
  ConsoleOptions options;
  options.prompt = true;
  options.fail_on_error = true;
  CHECK(run_console(in, out, err, options) == 1);  // the two bad LOCKSIM lines
  const std::string text = out.str();
  CHECK(text.rfind("locksim redis:", 0) == 0);
  CHECK(text.find(kConsoleHelp) != std::string::npos);
  for (const char* documented : {".advance", "LOCKSIM.ADVANCE", "LOCKSIM.TIME", "LOCKSIM.JUMP", "LOCKSIM.RESTART"})
    CHECK(std::string(kConsoleHelp).find(documented) != std::string::npos);
  const int64_t later = kConsoleStartMs + 1500;
  CHECK(text.find("locksim> (integer) " + std::to_string(later) + "\n") != std::string::npos);
  CHECK(text.find("locksim> (nil)\n") != std::string::npos);  // expired, then forgotten by the restart
  CHECK(text.find("(integer) " + std::to_string(later - 500)) != std::string::npos);
  CHECK(text.find("ERR unknown LOCKSIM command") != std::string::npos);
  CHECK(text.find("ERR usage: LOCKSIM.ADVANCE") != std::string::npos);
  size_t prompts = 0;
  for (size_t at = text.find("locksim> "); at != std::string::npos; at = text.find("locksim> ", at + 1)) ++prompts;
  CHECK(prompts == 12);  // before each of the 11 lines, and at the end of input

  std::istringstream piped("GET k\n");
  std::ostringstream piped_out, piped_err;
  CHECK(run_console(piped, piped_out, piped_err) == 0);
  CHECK(piped_out.str() == "(nil)\n");  // a script's output: replies only
}
