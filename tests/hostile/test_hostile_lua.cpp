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
