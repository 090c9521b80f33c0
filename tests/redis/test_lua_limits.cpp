// The Lua limits of Redis 7.0.15 (Debian's liblua5.1: LUAI_MAXCALLS 20000 Lua calls,
// LUAI_MAXCCALLS 200 C levels, LUAI_MAXCSTACK 8000 stack slots): every expected value
// below is what redis-server 7.0.15 answered to the same script.
#include <catch2/catch.hpp>

#include "locksim/sim/redis/cli_format.hpp"
#include "locksim/sim/redis/resp.hpp"
#include "locksim/sim/redis/resp3.hpp"
#include "locksim/sim/redis/sha1.hpp"
#include "model_fixture.hpp"

using namespace locksim::redis;
using namespace locksim::redis::testing;

namespace {
Reply eval_reply(Model& m, const std::string& script, std::initializer_list<std::string> keys = {}) {
  Command argv{"eval", script, std::to_string(keys.size())};
  argv.insert(argv.end(), keys);
  return m.server.execute(m.conn, argv, m.now);
}
std::string text(Model& m, const std::string& script) { return to_string(eval_reply(m, script)); }
}  // namespace

TEST_CASE("Lua recursion stops where Redis's does", "[redis][lua]") {
  Model m;
  const std::string plain = "local function f(n) return 1 + f(n+1) end return f(1)";
  CHECK(text(m, plain) == "(error) ERR user_script:1: stack overflow" + suffix(plain));
  CHECK(text(m, "local d=0 local function f(n) d=n return 1 + f(n+1) end pcall(f,1) return d") == "(integer) 19997");
  CHECK(text(m, "local function f(n) return 1 + f(n+1) end local ok,e = pcall(f,1) return e") ==
        "\"user_script:1: stack overflow\"");
  // Each pcall, metamethod or C callback is a C level: Lua allows 200.
  CHECK(text(m, "local d=0 local function f(n) d=n return pcall(f,n+1) end f(1) return d") == "(integer) 199");
  CHECK(text(m,
             "local function f(n) local ok,e = pcall(f,n+1) if not ok then return e end return e end "
             "return f(1)") == "\"C stack overflow\"");
  CHECK(text(m,
             "local d=0 local function f(n) d=n return tostring(setmetatable({}, {__tostring=function() "
             "return f(n+1) end})) end pcall(f,1) return d") == "(integer) 198");
  CHECK(text(m,
             "local d=0 local t t=setmetatable({}, {__index=function(_,k) d=k return t[k+1] end}) "
             "pcall(function() return t[1] end) return d") == "(integer) 197");
  CHECK(text(m,
             "local d=0 local function f(n) d=n return string.gsub('a','a',function() return f(n+1) end) end "
             "pcall(f,1) return d") == "(integer) 198");
}

TEST_CASE("A reply nested deeper than the Lua stack ends in Redis's error", "[redis][lua]") {
  Model m;
  const Reply reply = eval_reply(m, "local a = {} local b = {a} a[1] = b return a");
  const Reply* level = &reply;
  size_t depth = 0;
  while (level->type == Reply::Type::Array && level->elements.size() == 1) {
    level = &level->elements[0];
    ++depth;
  }
  CHECK(depth == 7995);
  CHECK(*level == Reply::error("ERR reached lua stack limit"));
  CHECK(text(m, "local t = {} for i = 1, 7000 do t = {t} end return 1") == "(integer) 1");
}

TEST_CASE("The deepest reply Redis allows goes through every writer without overflowing the stack", "[redis][lua]") {
  Model m;
  const Reply reply = eval_reply(m, "local t={} local c=t for i=1,100000 do c[1]={} c=c[1] end return t");
  const std::string resp2 = encode_resp(reply);
  CHECK(resp2.size() == 7995 * 4 + std::string("-ERR reached lua stack limit\r\n").size());
  CHECK(resp2.starts_with("*1\r\n*1\r\n"));
  CHECK(resp2.ends_with("*1\r\n-ERR reached lua stack limit\r\n"));
  std::string resp3;
  append_reply(resp3, reply, Protocol::Resp3);
  CHECK(resp3 == resp2);
  const std::string cli = format_cli_reply(reply);  // redis-cli prints "1) " at each level
  CHECK(cli.size() == 7995 * 3 + std::string("(error) ERR reached lua stack limit\n").size());
  CHECK(cli.starts_with("1) 1) 1) "));
  CHECK(to_string(reply).starts_with("[[[["));
  CHECK(to_string(reply).size() == 7995 * 2 + std::string("(error) ERR reached lua stack limit").size());
  const Reply copy = reply;
  CHECK(copy == reply);
}

TEST_CASE("unpack passes 7999 arguments to redis.call as in Redis", "[redis][lua]") {
  Model m;
  const std::string script = "local a = {} for i=1,7999 do a[i] = 1 end return redis.call('lpush', KEYS[1], unpack(a))";
  CHECK(to_string(eval_reply(m, script, {"l"})) == "(integer) 7999");
  CHECK(text(m, "local a = {} for i=1,8000 do a[i] = 1 end return #{unpack(a)}") ==
        "(error) ERR user_script:1: too many results to unpack" +
            suffix("local a = {} for i=1,8000 do a[i] = 1 end return #{unpack(a)}"));
}

TEST_CASE("FUNCTION LOAD reads every argument before the code as an option", "[redis][lua]") {
  Model m;
  const std::string code = "#!lua name=lib\nredis.register_function('f', function() return 1 end)";
  CHECK(m.text({"function", "load", "replace", code, "1"}) ==
        "(error) ERR Unknown option given: #!lua name=lib redis.register_function('f', function() return 1 end)");
  CHECK(m.text({"function", "load", "bogus", code}) == "(error) ERR Unknown option given: bogus");
  CHECK(m.text({"function", "load", "replace", "REPLACE", code}) == "\"lib\"");
  CHECK(m.text({"function", "load", "replace"}) == "(error) ERR Missing library metadata");
}

TEST_CASE("FUNCTION LIST shows an unknown argument with its line ends as spaces", "[redis][lua]") {
  Model m;
  CHECK(m.text({"function", "list", "withcode", "a\r\nb"}) == "(error) ERR Unknown argument a  b");
}

TEST_CASE("FUNCTION FLUSH with two arguments is a subcommand syntax error", "[redis][lua]") {
  Model m;
  CHECK(m.text({"function", "FLUSH", "lib", "1"}) ==
        "(error) ERR unknown subcommand or wrong number of arguments for 'FLUSH'. Try FUNCTION HELP.");
  CHECK(m.text({"function", "flush", "lib"}) == "(error) ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
}

// tonumber of a plain decimal string is answered without strtod (lua_metered.cpp): the
// same numbers as Lua 5.1's own, and everything else still goes to Lua's.
TEST_CASE("tonumber answers as Lua 5.1's, plain decimals and the rest", "[redis][lua]") {
  Model m;
  CHECK(text(m, "return {tonumber('12'), tonumber('-7'), tonumber('007'), tonumber('123456789012345'), "
                "tonumber('-999999999999999'), tonumber('1234567890123456'), tonumber('1e3'), tonumber(' 5 '), "
                "tonumber('0x10'), tonumber('10', 16), tonumber(42)}") ==
        "[(integer) 12, (integer) -7, (integer) 7, (integer) 123456789012345, (integer) -999999999999999, "
        "(integer) 1234567890123456, (integer) 1000, (integer) 5, (integer) 16, (integer) 16, (integer) 42]");
  CHECK(text(m, "return tostring(1 / tonumber('-0')) .. tostring(1 / tonumber('0')) .. tostring(tonumber('2.5'))") ==
        "\"-infinf2.5\"");
  CHECK(text(m, "return {type(tonumber('')), type(tonumber('-')), type(tonumber('12a')), type(tonumber('1 2')), "
                "type(tonumber('--1')), type(tonumber({}))}") ==
        "[\"nil\", \"nil\", \"nil\", \"nil\", \"nil\", \"nil\"]");
  CHECK(text(m, "return tonumber()").find("bad argument #1") != std::string::npos);
}
