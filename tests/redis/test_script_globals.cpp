// What a compiled chunk writes (script_globals.hpp): the chunk reader's answers; a script
// that assigns no global reads the real global table, and sees the same sandbox; one
// that sets no field gets KEYS and ARGV refilled without a search, exactly as ever.
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

TEST_CASE("A chunk writes globals and fields when any of its functions holds a SETGLOBAL or a SETTABLE") {
  const auto writes = [](const std::string& source) {
    const ChunkWrites w = chunk_writes(dump_of(source));
    return std::string(w.globals ? "G" : "-") + (w.fields ? "F" : "-") + (w.table_library ? "T" : "-");
  };
  CHECK(writes("return redis.call('get', KEYS[1]) == ARGV[1]") == "---");
  CHECK(writes("local x = 1.5 local t = {true, nil, 2, {}} return t, x") == "---");  // a list: SETLIST
  CHECK(writes("return {a = 'b'}") == "-F-");  // a record's fields are SETTABLEs, even into a new table
  CHECK(writes("local function f(a) local g = function() return a end return g end") == "---");
  CHECK(writes("x = 1") == "G--");
  CHECK(writes("if false then x = 1 end return 2") == "G--");
  CHECK(writes("local t = {'s', 2.5, false} return function() return function() y = t end end") == "G--");
  CHECK(writes("function f() end") == "G--");  // a global function is an assignment
  CHECK(writes("local t = {} t.x = 1") == "-F-");
  CHECK(writes("return function() KEYS[2] = 'x' end") == "-F-");
  CHECK(writes("local t = {} t[1] = 1 z = t") == "GF-");
  CHECK(writes("table.sort(ARGV)") == "--T");  // sort and remove move values unnoted
  CHECK(writes("local g = _G return function() return g end") == "--T");
  CHECK(writes("return string.format('%s', 'table')") == "---");  // the string, not the global
  // Anything it cannot read whole is taken to write everything.
  const std::string chunk = dump_of("return 1");
  for (const std::string& bad : {std::string(), chunk.substr(0, chunk.size() - 1), chunk + "x", std::string("return 1")}) {
    const ChunkWrites w = chunk_writes(bad);
    CHECK((w.globals && w.fields && w.table_library));
  }
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

// Scripts with no SETTABLE: only the C functions that write a table they are given (and
// the error handler, and code loaded at run time) can change KEYS and ARGV, and each of
// them sends the next fill to search the tables; table.sort and table.remove do not say
// so, but a script reaches them only through the globals `table` or `_G`.
TEST_CASE("KEYS and ARGV that a field-less script changed through a C function are refilled exactly") {
  Model m;
  const auto run = [&](const std::string& script, std::initializer_list<std::string> keys_then_args, int numkeys) {
    Command argv{"EVAL", script, std::to_string(numkeys)};
    argv.insert(argv.end(), keys_then_args);
    return to_string(m.server.execute(m.conn, argv, m.now));
  };
  // No SETTABLE in `show` either: it reads the tables through next and concatenation.
  const std::string show =
      "local s = '' local k, v = next(KEYS) while k do s = s .. 'K' .. tostring(k) .. '=' .. tostring(v) .. ' ' "
      "k, v = next(KEYS, k) end k, v = next(ARGV) while k do s = s .. 'A' .. tostring(k) .. '=' .. tostring(v) .. ' ' "
      "k, v = next(ARGV, k) end return s .. tostring(getmetatable(KEYS)) .. tostring(getmetatable(ARGV))";
  REQUIRE_FALSE(chunk_writes(dump_of(show)).fields);
  CHECK(run(show, {"k1", "k2", "a1"}, 2) == "\"K1=k1 K2=k2 A1=a1 nilnil\"");
  for (const std::string writer :
       {"rawset(KEYS, 'x', 1) rawset(ARGV, 5, 'y')", "table.insert(KEYS, 'x') table.insert(ARGV, 1, 'y')",
        "local mt = {} setmetatable(KEYS, mt) setmetatable(ARGV, mt)",
        "loadstring('KEYS.x = 1 ARGV[9] = 2')()", "__redis__err__handler(KEYS) __redis__err__handler(ARGV)",
        "table.remove(KEYS) table.sort(ARGV)", "table.remove(ARGV, 1)", "local t = _G.table t.sort(ARGV)"}) {
    CAPTURE(writer);
    REQUIRE_FALSE(chunk_writes(dump_of(writer)).fields);
    CHECK(run(writer + " return 1", {"d1", "d2", "e2", "e1"}, 2) == "(integer) 1");
    // The same arguments again: nothing the writer moved may stay.
    CHECK(run(show, {"d1", "d2", "e2", "e1"}, 2) == "\"K1=d1 K2=d2 A1=e2 A2=e1 nilnil\"");
    CHECK(run(show, {"n1", "n2", "m1"}, 2) == "\"K1=n1 K2=n2 A1=m1 nilnil\"");
    CHECK(run(show, {"o1", "p1", "p2"}, 1) == "\"K1=o1 A1=p1 A2=p2 nilnil\"");
  }
  // An error raised with the table itself: the handler writes its source and line into it.
  CHECK(run("error(KEYS)", {"q1"}, 1).starts_with("(error)"));
  CHECK(run(show, {"r1"}, 1) == "\"K1=r1 nilnil\"");
  CHECK(run(show, {}, 0) == "\"nilnil\"");  // and none at all
}
