// A script that assigns no global reads the real global table (script_globals.hpp): the
// chunk reader's answers, and the sandbox as a script sees it either way.
#include <catch2/catch.hpp>

#include <lua.hpp>

#include <memory>
#include <string>

#include "locksim/sim/redis/script_globals.hpp"
#include "model_fixture.hpp"

using namespace locksim::redis;
using namespace locksim::redis::testing;

namespace {

int append_dump(lua_State*, const void* data, size_t size, void* out) {
  static_cast<std::string*>(out)->append(static_cast<const char*>(data), size);
  return 0;
}

std::string dump_of(const std::string& source) {
  std::unique_ptr<lua_State, decltype(&lua_close)> L(luaL_newstate(), &lua_close);
  REQUIRE(luaL_loadbuffer(L.get(), source.data(), source.size(), "@t") == 0);
  std::string chunk;
  lua_dump(L.get(), append_dump, &chunk);
  return chunk;
}

std::string eval(Model& m, const std::string& script) { return to_string(m.run({"EVAL", script, "0"})); }

}  // namespace

TEST_CASE("A chunk writes globals when any of its functions holds a SETGLOBAL") {
  CHECK_FALSE(chunk_writes_globals(dump_of("return redis.call('get', KEYS[1]) == ARGV[1]")));
  CHECK_FALSE(chunk_writes_globals(dump_of("local x = 1.5 local t = {a = 'b', true, nil} t.y = x return t")));
  CHECK_FALSE(chunk_writes_globals(dump_of("local function f(a) local g = function() return a end return g end")));
  CHECK(chunk_writes_globals(dump_of("x = 1")));
  CHECK(chunk_writes_globals(dump_of("if false then x = 1 end return 2")));
  CHECK(chunk_writes_globals(dump_of("local t = {'s', 2.5, false} return function() return function() y = t end end")));
  CHECK(chunk_writes_globals(dump_of("function f() end")));  // a global function is an assignment
  // Anything it cannot read whole is taken to write.
  const std::string chunk = dump_of("return 1");
  CHECK(chunk_writes_globals(""));
  CHECK(chunk_writes_globals(chunk.substr(0, chunk.size() - 1)));
  CHECK(chunk_writes_globals(chunk + "x"));
  CHECK(chunk_writes_globals("return 1"));
}

TEST_CASE("A script that writes no global sees the same protected globals") {
  Model m;
  // Missing globals raise, and every other way to a global meets the read-only proxy.
  CHECK(eval(m, "return x") ==
        "(error) ERR user_script:1: Script attempted to access nonexistent global variable 'x'" + suffix("return x"));
  const std::string via_g = "local g = _G g.a = 1 return 1";
  CHECK(eval(m, via_g) == "(error) ERR user_script:1: Attempt to modify a readonly table" + suffix(via_g));
  const std::string loaded = "return loadstring('b = 1')()";
  CHECK(eval(m, loaded) == "(error) ERR [string \"b = 1\"]:1: Attempt to modify a readonly table script: " +
                                  sha1_hex(loaded) + ", on b = 1:1.");
  const std::string raw = "rawset(_G, 'c', 1) return 1";
  CHECK(eval(m, raw) == "(error) ERR Attempt to modify a readonly table" + suffix(raw));
  CHECK(eval(m, "return rawget(_G, 'a') == nil and rawget(_G, 'b') == nil and rawget(_G, 'c') == nil") ==
        "(integer) 1");
  CHECK(eval(m, "return type(_G) .. type(redis.call) .. #KEYS") == "\"tablefunction0\"");
  // One that assigns a global only on a branch not taken runs, and raises when it is taken.
  CHECK(eval(m, "if false then z = 1 end return 2") == "(integer) 2");
  const std::string taken = "if true then z = 1 end return 2";
  CHECK(eval(m, taken) == "(error) ERR user_script:1: Attempt to modify a readonly table" + suffix(taken));
  // A body past the size whose parse is kept per thread takes the same way.
  const std::string large = "local s = '" + std::string(5000, 'a') + "' return #s + #KEYS";
  CHECK(eval(m, large) == "(integer) 5000");
  const std::string large_missing = "local s = '" + std::string(5000, 'a') + "' return q";
  CHECK(eval(m, large_missing).starts_with(
      "(error) ERR user_script:1: Script attempted to access nonexistent global variable 'q'"));
}
