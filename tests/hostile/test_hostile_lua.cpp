// Lua scripts that attack the interpreter: deep patterns, work hidden in C
// functions, message handlers outside the hook. Each ends with an error reply.
#include <catch2/catch.hpp>

#include <string>

#include "locksim/sim/redis/server.hpp"

using namespace locksim::redis;

namespace {

struct Lua {
  explicit Lua(ServerOptions options = small()) : server(options), conn(server.connect()) {}
  static ServerOptions small() {
    ServerOptions o;
    o.lua_instruction_budget = 2'000'000;
    return o;
  }
  std::string eval(const std::string& script) {
    return to_string(server.execute(conn, {"EVAL", script, "0"}, 1'700'000'000'000));
  }
  Server server;
  ConnectionId conn;
};

const std::string kBusy = "(error) BUSY Script exceeded the instruction budget";

}  // namespace

TEST_CASE("A pattern nested past 200 levels is 'pattern too complex', not a stack overflow") {
  Lua lua;
  const std::string reply = lua.eval("return string.find('aaaa', string.rep('a*', 100000))");
  CHECK(reply.find("pattern too complex") != std::string::npos);
  CHECK(lua.eval("return string.match('aaaa', string.rep('(', 100) .. 'a' .. string.rep(')', 100))")
            .find("too many captures") != std::string::npos);
  CHECK(lua.eval("return 1") == "(integer) 1");
}

TEST_CASE("Pattern functions keep Lua 5.1's results") {
  Lua lua;
  CHECK(lua.eval("return {string.find('hello world', 'o w')}") == "[(integer) 5, (integer) 7]");
  CHECK(lua.eval("return {string.find('a.b', '.', 1, true)}") == "[(integer) 2, (integer) 2]");
  CHECK(lua.eval("return {string.find('abc', 'b()')}") == "[(integer) 2, (integer) 2, (integer) 3]");
  CHECK(lua.eval("return {string.match('key=val', '(%w+)=(%w+)')}") == "[\"key\", \"val\"]");
  CHECK(lua.eval("return string.match('  trim  ', '^%s*(.-)%s*$')") == "\"trim\"");
  CHECK(lua.eval("return {string.gsub('hello world', '(%w+)', '<%1>')}") == "[\"<hello> <world>\", (integer) 2]");
  CHECK(lua.eval("return {string.gsub('abc', '', '-')}") == "[\"-a-b-c-\", (integer) 4]");
  CHECK(lua.eval("return string.gsub('x=1 y=2', '(%w)=(%w)', {x='X'})") == "\"X y=2\"");
  CHECK(lua.eval("return string.gsub('a b', '%a', function(c) return c:upper() end)") == "\"A B\"");
  CHECK(lua.eval("return string.gsub('THE (quick) fox', '%f[%a]%a+', 'W')") == "\"W (W) W\"");
  CHECK(lua.eval("return string.find('a(b(c)d)e', '%b()')") == "(integer) 2");
  CHECK(lua.eval("local t={} for k, v in string.gmatch('a=1, b=2', '(%w+)=(%w+)') do t[#t+1]=k..v end return t") ==
        "[\"a1\", \"b2\"]");
  CHECK(lua.eval("return string.match('abab', '(ab)%1')") == "\"ab\"");
  CHECK(lua.eval("return string.find('abc', '[b-c]+')") == "(integer) 2");
  CHECK(lua.eval("return string.find('a', '%')").find("malformed pattern (ends with '%')") != std::string::npos);
  CHECK(lua.eval("return string.find('a', '[a')").find("malformed pattern (missing ']')") != std::string::npos);
  CHECK(lua.eval("return string.gsub('a', 'a', true)").find("string/function/table expected") != std::string::npos);
}

TEST_CASE("Time inside C functions counts against the budget") {
  Lua lua;
  CHECK(lua.eval("return string.find(string.rep('a', 3000), '.-.-.-.-b')").starts_with(kBusy));
  CHECK(lua.eval("for i = 1, 10 do string.rep('', 2147483647) end") == "(nil)");
  CHECK(lua.eval("local s = string.rep('x', 1000000) for i = 1, 100000 do s:upper() end").starts_with(kBusy));
  CHECK(lua.eval("local t = {} for i = 1, 100000 do t[i] = i end while true do table.concat(t, ',') end")
            .starts_with(kBusy));
  CHECK(lua.eval("return 'still ' .. 'working'") == "\"still working\"");
  // Charging a reply leaves it as it is: a number stays a number.
  CHECK(lua.eval("return redis.call('incr', 'n')") == "(integer) 1");
  CHECK(lua.eval("local n = redis.call('incr', 'n') return type(n)") == "\"number\"");
}

TEST_CASE("string.rep refuses a result beyond the Lua memory cap before allocating it") {
  Lua lua;
  CHECK(lua.eval("return string.rep('ab', 100000000)").starts_with("(error) OOM"));
  CHECK(lua.eval("return string.rep('ab', 3)") == "\"ababab\"");
}

TEST_CASE("An xpcall message handler cannot escape the instruction budget") {
  Lua lua;
  CHECK(
      lua.eval("return xpcall(function() while true do end end, function() while true do end end)").starts_with(kBusy));
  CHECK(lua.eval("return {xpcall(function() error('x') end, function(e) return 'h:' .. e end)}") ==
        "[(nil), \"h:user_script:1: x\"]");
  CHECK(lua.eval("return {xpcall(function() return 1, 2 end, function(e) return e end)}") ==
        "[(integer) 1, (integer) 1, (integer) 2]");
  CHECK(lua.eval("return {xpcall(function() error('x') end, function(e) error('again') end)}") ==
        "[(nil), \"error in error handling\"]");
}

TEST_CASE("A server's run budget stops every later script at once") {
  ServerOptions options;
  options.lua_instruction_budget = 300'000;
  options.lua_run_budget = 1'000'000;
  Lua lua(options);
  for (int i = 0; i < 4; ++i) CHECK(lua.eval("while true do end").starts_with("(error) BUSY"));
  CHECK(lua.eval("return 1").starts_with("(error) BUSY this run's Lua budget of 1000000 instructions is spent"));
}

TEST_CASE("A flood of SCRIPT LOAD fills the cache and is then refused") {
  ServerOptions options;
  options.lua_memory_limit_bytes = 1024 * 1024;
  Server server(options);
  const ConnectionId conn = server.connect();
  int refused = 0;
  for (int i = 0; i < 20'000; ++i) {
    const Reply r = server.execute(conn, {"SCRIPT", "LOAD", "return " + std::to_string(i)}, 0);
    if (r.is_error()) {
      CHECK(r.str.find("not enough memory") != std::string::npos);
      ++refused;
    }
  }
  CHECK(refused > 10'000);
  CHECK(to_string(server.execute(conn, {"SCRIPT", "FLUSH"}, 0)) == "OK");
  CHECK(to_string(server.execute(conn, {"EVAL", "return 7", "0"}, 0)) == "(integer) 7");
}

// ---- The fixes Redis made to its copies of the Lua libraries (issue 33) -----------
// Debian's lua-bitop 1.0.2 and lua-cjson 2.1.0 lack them; our struct and cmsgpack
// are written for the model. Each case crashed, hung or was undefined before.

TEST_CASE("CVE-2024-31449: bit.tohex with -2^31 digits answers eight upper-case digits, no SIGSEGV") {
  Lua lua;
  CHECK(lua.eval("return bit.tohex(65535, -2147483648)") == "\"0000FFFF\"");
  CHECK(lua.eval("return bit.tohex(65535, 2^31)") == "\"0000FFFF\"");  // the same int32 to lua-bitop
  CHECK(lua.eval("return bit.tohex(65535, '-2147483648')") == "\"0000FFFF\"");
  CHECK(lua.eval("return bit.tohex(65535, -2)") == "\"FF\"");
  CHECK(lua.eval("return bit.tohex(65535)") == "\"0000ffff\"");
  CHECK(lua.eval("return bit.tohex(-1, 100)") == "\"ffffffff\"");
  CHECK(lua.eval("return bit.tohex()").find("bad argument #1 to 'tohex' (number expected, got no value)") !=
        std::string::npos);
  CHECK(lua.eval("return bit.tohex(1, {})").find("bad argument #2 to 'tohex' (number expected, got table)") !=
        std::string::npos);
}

TEST_CASE("CVE-2022-24834: cjson.encode of a string whose escaped form passes the memory cap is an OOM") {
  ServerOptions options;
  options.lua_memory_limit_bytes = 16 * 1024 * 1024;
  Lua lua(options);
  // 3 MB of control bytes fit the cap; escaped as \u0001 they would be 18 MB.
  CHECK(lua.eval("local s = string.rep('\\1', 3000000) collectgarbage() return #cjson.encode(s)")
            .starts_with("(error) OOM"));
  CHECK(lua.eval("local s = string.rep('a', 3000000) collectgarbage() return #cjson.encode(s)") == "(integer) 3000002");
  CHECK(lua.eval("return cjson.encode({1, 'a/b', {k = true}, cjson.null})") == "\"[1,\\\"a\\\\/b\\\",{\\\"k\\\":true},null]\"");
}

TEST_CASE("CVE-2022-24834: a string lua-cjson would reserve past 2^30 bytes for is refused before it runs") {
  ServerOptions options;
  options.lua_memory_limit_bytes = size_t{8} << 30;  // the cap is not what stops it
  Lua lua(options);
  // 180 MB: lua-cjson 2.1.0 reserves 6 bytes a byte in an int-sized buffer.
  CHECK(to_string(lua.server.execute(lua.conn, {"SETRANGE", "big", "188743679", "x"}, 0)) == "(integer) 188743680");
  CHECK(lua.eval("return #cjson.encode(redis.call('GET', 'big'))").starts_with("(error) OOM"));
  CHECK(lua.eval("return 1") == "(integer) 1");
}

TEST_CASE("cjson.encode of an array made sparse on purpose is an OOM, not a loop in C") {
  // lua-cjson's settings last as long as the Lua state: a fresh server for each.
  CHECK(Lua().eval("cjson.encode_sparse_array(true, 0) return cjson.encode({[2^31-1] = 1})").starts_with("(error) OOM"));
  CHECK(Lua().eval("local c = cjson.new() c.encode_sparse_array(true, 0) return c.encode({[2^31-1] = 1})")
            .starts_with("(error) OOM"));
  // With the default settings lua-cjson refuses it itself; converted, it is an object.
  CHECK(Lua().eval("return cjson.encode({[2^31-1] = 1})").find("excessively sparse array") != std::string::npos);
  CHECK(Lua().eval("cjson.encode_sparse_array(true) return cjson.encode({[2^31-1] = 1})") ==
        "\"{\\\"2147483647\\\":1}\"");
  CHECK(Lua().eval("return cjson.encode({[4] = 1, [1] = 2})") == "\"[2,null,null,1]\"");
}

TEST_CASE("cjson.encode of a table reachable along many paths ends in the budget") {
  Lua lua;
  CHECK(lua.eval("local t = {} t[1] = t t[2] = t cjson.encode_max_depth(1000) return cjson.encode(t)")
            .starts_with(kBusy));
  CHECK(lua.eval("local t = {} t[1] = t return cjson.encode(t)").find("excessive nesting") != std::string::npos);
  CHECK(lua.eval("local t = {} for i = 1, 200 do t = {t} end cjson.encode_max_depth(2^31-1) return #cjson.encode(t)") ==
        "(integer) 402");
}

TEST_CASE("cjson.decode of deep or long input is bounded by the Lua stack and the budget") {
  Lua lua;
  CHECK(lua.eval("cjson.decode_max_depth(2^31-1) return cjson.decode(string.rep('[', 100000))")
            .find("(error)") == 0);
  CHECK(lua.eval("local s = '[' .. string.rep('1,', 1000000) .. '1]' for i = 1, 1000 do cjson.decode(s) end")
            .starts_with(kBusy));
  CHECK(lua.eval("return cjson.decode('{\"a\":[1,2]}').a[2]") == "(integer) 2");
}

TEST_CASE("CVE-2018-11218: cmsgpack nesting, arguments and offsets end in errors, work in the budget") {
  Lua lua;
  CHECK(lua.eval("return cmsgpack.unpack(string.rep('\\145', 100000) .. '\\1')").find("(error)") == 0);
  CHECK(lua.eval("local t = {} for i = 1, 8 do t[i] = t end return #cmsgpack.pack(t)").starts_with(kBusy));
  CHECK(lua.eval("return #cmsgpack.pack(unpack((function() local t = {} for i = 1, 7000 do t[i] = i end return t end)()))")
            .starts_with("(integer)"));
  CHECK(lua.eval("return cmsgpack.unpack_one('\\1', 1e30)").find("Invalid request to unpack") != std::string::npos);
  CHECK(lua.eval("return cmsgpack.unpack_limit('\\1', 0/0)").find("Invalid request to unpack") != std::string::npos);
  CHECK(lua.eval("local t = cmsgpack.unpack(cmsgpack.pack({1, 'x', {a = 2}})) return {t[1], t[2], t[3].a}") ==
        "[(integer) 1, \"x\", (integer) 2]");
  CHECK(lua.eval("return #cmsgpack.unpack(string.rep('\\1', 100000))").find("(error)") == 0);
}

TEST_CASE("CVE-2018-11219 and CVE-2020-14147: struct sizes cannot overflow their bounds checks") {
  Lua lua;
  CHECK(lua.eval("return struct.pack('i2147483648', 1)").find("integral size overflow") != std::string::npos);
  CHECK(lua.eval("return struct.pack('c99999999999', 'a')").find("integral size overflow") != std::string::npos);
  CHECK(lua.eval("return struct.unpack('c2147483647', 'x')").find("data string too short") != std::string::npos);
  CHECK(lua.eval("return struct.unpack('i16', 'x')").find("data string too short") != std::string::npos);
  CHECK(lua.eval("return struct.unpack('I4', 'abcd', 4)").find("data string too short") != std::string::npos);
  // 'c0' takes its size from the value before it: a negative or huge one is no size.
  CHECK(lua.eval("return struct.unpack('bc0', '\\255abc')").find("data string too short") != std::string::npos);
  CHECK(lua.eval("return struct.unpack('dc0', struct.pack('d', 1e300) .. 'abc')").find("data string too short") !=
        std::string::npos);
  CHECK(lua.eval("return {struct.unpack('Bc0', '\\3abcd')}") == "[\"abc\", (integer) 5]");
  // Found by fuzz_lua_libs: a number beyond an integer's range packs without undefined behaviour.
  CHECK(lua.eval("return struct.unpack('<i8', struct.pack('<i8', -2.1e25))") == "(integer) -9223372036854775808");
  CHECK(lua.eval("return #struct.pack('>I8', 1e30) .. #struct.pack('i', 0/0)") == "\"84\"");
  // Found by fuzz_lua_libs: a signed integer of size 0 has no sign bit to extend.
  CHECK(lua.eval("return {struct.unpack('i0', 'x')}") == "[(integer) 0, (integer) 1]");
  CHECK(lua.eval("return {struct.unpack('<i0>i0', '')}") == "[(integer) 0, (integer) 0, (integer) 1]");
  CHECK(lua.eval("local f = string.rep('x', 1000000) for i = 1, 1000 do struct.pack(f) end").starts_with(kBusy));
}
