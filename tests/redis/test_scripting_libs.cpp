// cjson, bit, struct, cmsgpack, shebang flags and EVAL_RO, with values redis-server 7.0.15 gives.
#include <catch2/catch.hpp>

#include "model_fixture.hpp"

using namespace locksim::redis;
using namespace locksim::redis::testing;

namespace {
std::string run_eval(Model& m, const std::string& script, const std::string& command = "eval") {
  return to_string(m.server.execute(m.conn, {command, script, "0"}, m.now));
}
const std::string kHex = " return (s:gsub('.', function(c) return string.format('%02x', c:byte()) end))";
}  // namespace

TEST_CASE("cjson and bit are Redis's (Debian's lua-cjson and lua-bitop) and read-only") {
  Model m;
  CHECK(run_eval(m, "return cjson.encode({1,2,{a=1}})") == "\"[1,2,{\\\"a\\\":1}]\"");
  CHECK(run_eval(m, "return cjson.decode('[1,2,\"x\"]')") == "[(integer) 1, (integer) 2, \"x\"]");
  CHECK(run_eval(m, "return bit.band(7,3)") == "(integer) 3");
  CHECK(run_eval(m, "return bit.tohex(255)") == "\"000000ff\"");
  CHECK(run_eval(m, "cjson.x = 1").find("Attempt to modify a readonly table") != std::string::npos);
}

TEST_CASE("struct packs and unpacks as Redis's struct library") {
  Model m;
  CHECK(run_eval(m, "local s = struct.pack('>I2i4s', 258, -2, 'ab')" + kHex) == "\"0102fffffffe616200\"");
  CHECK(run_eval(m, "return {struct.unpack('<hBc2', struct.pack('<hBc2', -3, 250, 'zz'))}") ==
        "[(integer) -3, (integer) 250, \"zz\", (integer) 6]");
  CHECK(run_eval(m, "return struct.size('>iId')") == "(integer) 16");
  CHECK(run_eval(m, "return struct.size('s')").find("option 's' has no fixed size") != std::string::npos);
}

TEST_CASE("cmsgpack packs and unpacks as Redis's lua-cmsgpack") {
  Model m;
  CHECK(run_eval(m, "local s = cmsgpack.pack({1,2,3}, 'abc', -1, 1.5, {a=1}, true)" + kHex) ==
        "\"93010203a3616263ffca3fc0000081a16101c3\"");
  CHECK(run_eval(m, "return {cmsgpack.unpack(cmsgpack.pack({1,2,{3,'x'}}, -200, 70000, 3.25))}") ==
        "[[(integer) 1, (integer) 2, [(integer) 3, \"x\"]], (integer) -200, (integer) 70000, (integer) 3]");
  CHECK(run_eval(m, "return {cmsgpack.unpack_one(cmsgpack.pack(1,2), 0)}") == "[(integer) 1, (integer) 1]");
  CHECK(run_eval(m, "return cmsgpack.unpack(string.char(0x92, 1))").find("Missing bytes in input.") !=
        std::string::npos);
}

TEST_CASE("shebang flags and EVAL_RO refuse writes with Redis's texts") {
  Model m;
  CHECK(run_eval(m, "return redis.call('set','x','1')", "eval_ro") ==
        "(error) ERR Write commands are not allowed from read-only scripts. script: "
        "8b2ae6dd76cda7fc3e27f97431ae27d7b08a221d, on @user_script:1.");
  CHECK(run_eval(m, "#!lua flags=no-writes\nreturn redis.call('set','x','1')")
            .find("Write commands are not allowed from read-only scripts. script: ") != std::string::npos);
  CHECK(run_eval(m, "#!lua flags=bogus\nreturn 1") == "(error) ERR Unexpected flag in script shebang: bogus");
  CHECK(run_eval(m, "#!lua name=x\nreturn 1") == "(error) ERR Unknown lua shebang option: name=x");
  CHECK(run_eval(m, "#!luajit\nreturn 1") == "(error) ERR Unexpected engine in script shebang: #!luajit");
  CHECK(run_eval(m, "#!lua") == "(error) ERR Invalid script shebang");
  CHECK(run_eval(m, "#!lua\nreturn 1", "eval_ro") ==
        "(error) ERR Can not execute a script with write flag using *_ro command.");
  CHECK(run_eval(m, "#!lua flags=no-writes,allow-oom\nreturn redis.call('get', 'nokey')", "eval_ro") == "(nil)");
  CHECK(run_eval(m, "#!lua flags=no-writes\nerror('x')").find("on @user_script:2.") != std::string::npos);
}

TEST_CASE("Redis 7 functions: FUNCTION LOAD / LIST / DELETE / FLUSH, FCALL, FCALL_RO") {
  Model m;
  CHECK(m.text({"function", "load", "return 1"}) == "(error) ERR Missing library metadata");
  CHECK(m.text({"function", "load", "#!lua\nreturn 1"}) == "(error) ERR Library name was not given");
  CHECK(m.text({"function", "load", "#!lua name=lib1\nreturn 1"}) == "(error) ERR No functions registered");
  const std::string lib1 =
      "#!lua name=lib1\nredis.register_function('f1', function(keys, args) return {keys[1], args[1]} end)";
  CHECK(m.text({"function", "load", lib1}) == "\"lib1\"");
  CHECK(m.text({"function", "load", lib1}) == "(error) ERR Library 'lib1' already exists");
  CHECK(m.text({"fcall", "f1", "1", "k", "a"}) == "[\"k\", \"a\"]");
  CHECK(m.text({"fcall", "nof", "0"}) == "(error) ERR Function not found");
  CHECK(m.text({"fcall", "f1", "x"}) == "(error) ERR Bad number of keys provided");
  CHECK(m.text({"fcall_ro", "f1", "0"}) == "(error) ERR Can not execute a script with write flag using *_ro command.");
  CHECK(m.text({"function", "load",
                "#!lua name=lib2\nredis.register_function{function_name='f2', callback=function() return "
                "redis.call('set','x','y') end, flags={'no-writes'}, description='d'}"}) == "\"lib2\"");
  CHECK(m.text({"fcall", "f2", "0"}) ==
        "(error) ERR Write commands are not allowed from read-only scripts. script: f2, on @user_function:2.");
  CHECK(m.text({"function", "list", "libraryname", "lib2"}) ==
        "[[\"library_name\", \"lib2\", \"engine\", \"LUA\", \"functions\", [[\"name\", \"f2\", \"description\", "
        "\"d\", \"flags\", [no-writes]]]]]");
  CHECK(m.text({"function", "load", "#!lua name=e1\nerror('boom')"}) ==
        "(error) ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent "
        "global variable 'error'");
  CHECK(m.text({"function", "load", "#!lua name=e9\nredis.register_function('f9', function(k, a) return KEYS end)"}) ==
        "\"e9\"");
  CHECK(m.text({"fcall", "f9", "0"}).find("nonexistent global variable 'KEYS' script: f9") != std::string::npos);
  CHECK(m.text({"script", "flush"}) == "OK");  // functions survive it
  CHECK(m.text({"fcall", "f1", "1", "k", "a"}) == "[\"k\", \"a\"]");
  CHECK(m.text({"function", "delete", "nolib"}) == "(error) ERR Library not found");
  CHECK(m.text({"function", "delete", "lib1"}) == "OK");
  CHECK(m.text({"fcall", "f1", "0"}) == "(error) ERR Function not found");
  CHECK(m.text({"function", "load", "#!lua name=loop\nwhile true do end"}).find("Error registering functions") !=
        std::string::npos);
  CHECK(m.text({"function", "flush"}) == "OK");
  CHECK(m.text({"function", "list"}) == "[]");
}
