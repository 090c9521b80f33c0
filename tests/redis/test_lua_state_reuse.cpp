// A Lua state reused from the pool (lua_state_pool.hpp) answers every script as a
// fresh one would: whatever the previous server's scripts did to it is gone.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "locksim/sim/redis/lua_state_pool.hpp"
#include "locksim/sim/redis/sha1.hpp"
#include "model_fixture.hpp"

using namespace locksim::redis;
using namespace locksim::redis::testing;

namespace {

std::string eval_with_keys(Model& m, const std::string& script, std::vector<std::string> keys = {}) {
  Command argv{"eval", script, std::to_string(keys.size())};
  argv.insert(argv.end(), keys.begin(), keys.end());
  return to_string(m.server.execute(m.conn, argv, m.now));
}

// What scripts can see of a state: ids tostring() gives, the memory count, the
// random sequence, library settings, the read-only sandbox, the script cache.
const std::vector<std::string> kProbes = {
    "return tostring({}) .. ' ' .. tostring(function() end) .. ' ' .. tostring(coroutine.create(function() end))",
    "return tostring(collectgarbage('count') * 1024)",
    "return {math.random(1000000), math.random(1000000), math.random(1, 6)}",
    "return cjson.encode({1/3, 'x', {a=true}})",
    "return tostring(cjson.encode_max_depth()) .. tostring(cjson.decode_max_depth())",
    "return struct.pack('>I2', 513) .. cmsgpack.pack({1, 'two'}) .. tostring(bit.band(6, 3))",
    "return type(planted)",
    "return tostring(rawget(_G, 'planted')) .. tostring(string.planted) .. tostring(getmetatable(_G))",
    "return redis.sha1hex('') .. tostring(#KEYS) .. tostring(KEYS[1])",
    "return tostring(collectgarbage('count') * 1024)",
};

std::vector<std::string> probe(Model& m, const std::string& dirty_sha) {
  std::vector<std::string> out;
  for (const std::string& script : kProbes) out.push_back(eval_with_keys(m, script, {"k"}));
  out.push_back(to_string(m.run({"script", "exists", dirty_sha})));
  out.push_back(to_string(m.run({"evalsha", dirty_sha, "0"})));
  return out;
}

// Scripts that try to leave something behind: globals, metatables, library fields,
// the random generator, memory (large blocks), cached scripts, coroutines, KEYS.
const std::vector<std::string> kDirty = {
    "planted = 1",
    "rawset(_G, 'planted', 1)",
    "setmetatable(_G, {__index = function() return 7 end})",
    "string.planted = 1",
    "getmetatable('').__index.planted = 1",
    "table.insert(string, 1)",
    "math.randomseed(99); return math.random(10)",
    "local t = {} for i = 1, 20000 do t[i] = tostring(i) end return #t",
    "local s = string.rep('x', 100000) return #s",
    "KEYS[1] = 'changed'; KEYS.extra = KEYS; setmetatable(KEYS, {}); return 1",
    "local co = coroutine.create(function() coroutine.yield(1) end) coroutine.resume(co) return 1",
    "return loadstring('return 1')()",
    "return tostring({}) .. tostring({})",
    "error('boom')",
};

std::vector<std::string> probe_after(bool reuse, const std::vector<std::string>& dirty, const std::string& dirty_sha) {
  set_lua_state_reuse(reuse);
  {
    Model dirtied;
    for (const std::string& script : dirty) eval_with_keys(dirtied, script, {"k"});
    dirtied.run({"script", "load", "return 'cached'"});
  }
  Model next;
  return probe(next, dirty_sha);
}

}  // namespace

TEST_CASE("A reused Lua state answers every script as a fresh state does", "[redis][scripting]") {
  const std::string dirty_sha = sha1_hex("return 'cached'");
  const std::vector<std::string> fresh = probe_after(false, kDirty, dirty_sha);
  const size_t before = lua_states_reused();
  const size_t restored = lua_states_restored();
  const std::vector<std::string> reused = probe_after(true, kDirty, dirty_sha);
  CHECK(lua_states_reused() == before + 1);      // the probe ran on the dirtied server's state,
  CHECK(lua_states_restored() == restored + 1);  // put back by its image
  CHECK(reused == fresh);
  CHECK(fresh[0] == "\"table: 0x00000001 function: 0x00000002 thread: 0x00000003\"");
  CHECK(fresh[6].find("nonexistent global variable 'planted'") != std::string::npos);
  CHECK(fresh[10] == "[(integer) 0]");
  CHECK(fresh[11] == "(error) NOSCRIPT No matching script. Please use EVAL.");
}

TEST_CASE("A reused Lua state has lua-cjson's settings and buffers as built", "[redis][scripting]") {
  // These change memory lua-cjson keeps outside the state: that state is rebuilt, not restored.
  const std::vector<std::string> cjson_dirty = {
      "cjson.encode_number_precision(3); cjson.encode_max_depth(2); return 1",
      "return #cjson.encode(string.rep('y', 50000))",
      "local c = cjson.new() return c.encode({1})",
  };
  const std::string dirty_sha = sha1_hex("return 'cached'");
  for (const std::string& script : cjson_dirty) {
    CAPTURE(script);
    const std::vector<std::string> fresh = probe_after(false, {script}, dirty_sha);
    const size_t rebuilt = lua_states_rebuilt();
    const std::vector<std::string> reused = probe_after(true, {script}, dirty_sha);
    CHECK(lua_states_rebuilt() == rebuilt + 2);  // the dirtied state, and the probe's (it encodes too)
    CHECK(reused == fresh);
    CHECK(fresh[3] == "\"[0.33333333333333,\\\"x\\\",{\\\"a\\\":true}]\"");
  }
}

TEST_CASE("SCRIPT FLUSH gives back the state as built but keeps the random sequence", "[redis][scripting]") {
  set_lua_state_reuse(true);
  Model m;
  const std::string first = eval_with_keys(m, "return math.random(1000000)");
  const std::string before_flush = eval_with_keys(m, "return tostring({})");
  m.run({"script", "flush"});
  CHECK(eval_with_keys(m, "return tostring({})") == before_flush);  // ids start over with the state
  Model fresh;
  eval_with_keys(fresh, "return math.random(1000000)");
  CHECK(eval_with_keys(m, "return math.random(1000000)") == eval_with_keys(fresh, "return math.random(1000000)"));
  CHECK(first != eval_with_keys(m, "return math.random(1000000)"));
}

TEST_CASE("A Lua state no script touched goes back to the pool as it is, and stays as built", "[redis][scripting]") {
  set_lua_state_reuse(true);
  drop_pooled_lua_states();  // a pool left full by earlier tests would close the states given back
  const std::string dirty_sha = sha1_hex("return 'cached'");
  const std::vector<std::string> fresh = probe_after(true, {}, dirty_sha);  // a state as built, probed
  {
    Model untouched;  // scripting commands, but no script, SCRIPT LOAD or FUNCTION: Lua never runs
    untouched.run({"set", "k", "v"});
    untouched.run({"script", "exists", dirty_sha});
    untouched.run({"info", "memory"});
  }
  const size_t untouched_before = lua_states_untouched();
  const size_t restored_before = lua_states_restored();
  {
    Model again;  // the engine (made on first use) takes a state; no Lua runs in it
    again.run({"script", "exists", dirty_sha});
  }
  CHECK(lua_states_untouched() == untouched_before + 1);
  CHECK(lua_states_restored() == restored_before);
  // A state that ran a script is still written back, and the next server cannot tell.
  {
    Model dirtied;
    eval_with_keys(dirtied, "planted = 1");
    eval_with_keys(dirtied, "local t = {} for i = 1, 5000 do t[i] = tostring(i) end return #t");
  }
  CHECK(lua_states_restored() == restored_before + 1);
  Model next;
  CHECK(probe(next, dirty_sha) == fresh);
}
