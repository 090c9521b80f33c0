// Lua variants: the contract of docs/variants.md (what a variant file may set,
// the functions it is given and how replies reach it), the errors (each names
// the file and line), the sandbox and budgets, and determinism.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "helpers.hpp"
#include "locksim/lock/lua_variant.hpp"
#include "locksim/sim/files.hpp"

using namespace locktest;

namespace {

std::string load_error(const std::string& text, const std::string& path = "t/v.lua") {
  std::string error;
  auto v = load_lua_variant_text(text, path, &error);
  return v ? "(loaded)" : error;
}

// Registers the text under `name` once (the registry is process-wide).
const Algorithm& variant(const std::string& name, const std::string& body) {
  if (const Algorithm* a = find_algorithm(name)) return *a;
  std::string error;
  auto v = load_lua_variant_text("name = '" + name + "'\n" + body, "t/" + name + ".lua", &error);
  INFO(error);
  REQUIRE(v);
  const Algorithm* a = register_lua_variant(v, &error);
  INFO(error);
  REQUIRE(a);
  return *a;
}

// Loads and registers a shipped example once; its algorithm name.
std::string example_variant(const std::string& file) {
  std::string error;
  auto v = load_lua_variant(LOCKSIM_EXAMPLES_DIR "/" + file, &error);
  INFO(error);
  REQUIRE(v);
  if (!find_algorithm(v->name)) REQUIRE(register_lua_variant(v, &error));
  return v->name;
}

std::vector<std::string> logs(const History& h, uint32_t client = kNoClient) {
  std::vector<std::string> out;
  for (const auto& e : steps(h, Step::Log, client)) out.push_back(e.text);
  return out;
}

std::string variant_error(const History& h) {
  auto errors = steps(h, Step::VariantError);
  return errors.empty() ? "" : errors.front().text;
}

SimulationConfig one_client(const std::string& algorithm) {
  SimulationConfig c;
  c.algorithm = algorithm;
  c.workload.clients = 1;
  c.workload.iterations = 1;
  return c;
}

const std::string kSimpleRelease = "function release() return true end\n";

}  // namespace

TEST_CASE("lua variant: the shipped examples load with their declarations") {
  for (const char* file :
       {"watchdog.lua", "token_lua.lua", "redisson.lua", "redis_py.lua", "redlock.lua", "fenced.lua"}) {
    std::string error;
    auto v = load_lua_variant(std::string(LOCKSIM_EXAMPLES_DIR "/") + file, &error);
    INFO(file << ": " << error);
    REQUIRE(v);
    CHECK_FALSE(v->summary.empty());
  }
  auto redisson = load_lua_variant(LOCKSIM_EXAMPLES_DIR "/redisson.lua");
  REQUIRE(redisson);
  CHECK(redisson->name == "redisson");
  CHECK(redisson->reentrant);
  CHECK(redisson->has_still_held);
  auto fenced = load_lua_variant(LOCKSIM_EXAMPLES_DIR "/fenced.lua");
  REQUIRE(fenced);
  CHECK(fenced->has_fence);
  auto short_lease = load_lua_variant(LOCKSIM_EXAMPLES_DIR "/buggy/short_lease.lua");
  REQUIRE(short_lease);
  CHECK(short_lease->defaults.lease == 100_ms);
  CHECK(short_lease->defaults.retry == LockParams{}.retry);
}

TEST_CASE("lua variant: the name defaults to the file's base name") {
  std::string error;
  auto v = load_lua_variant_text("function acquire() return true end\n" + kSimpleRelease, "dir/my-lock.lua", &error);
  REQUIRE(v);
  CHECK(v->name == "my-lock");
  CHECK(v->summary.find("dir/my-lock.lua") != std::string::npos);
}

TEST_CASE("lua variant: load errors name the file and the line") {
  CHECK(load_error("function acquire(\n  return true end\n").rfind("t/v.lua:2:", 0) == 0);
  CHECK(load_error(kSimpleRelease) == "t/v.lua: no acquire() function: a variant defines acquire() and release()");
  CHECK(load_error("function acquire() return true end\nx = undefined_thing\n" + kSimpleRelease) ==
        "t/v.lua:2: undefined global 'undefined_thing'");
  CHECK(load_error("function acquire() return true end\n" + kSimpleRelease + "function acquire() return false end\n") ==
        "t/v.lua:3: a second definition of 'acquire' (the first is at line 1)");
  CHECK(load_error("params = { leese = 10 }\nfunction acquire() return true end\n" + kSimpleRelease)
            .find("t/v.lua: params: unknown lock parameter 'leese' (known: key, lease,") == 0);
  CHECK(load_error("params = { lease = 0 }\nfunction acquire() return true end\n" + kSimpleRelease) ==
        "t/v.lua: params: lease: must be at least 1ms");
  CHECK(load_error("reentrant = 'yes'\nfunction acquire() return true end\n" + kSimpleRelease) ==
        "t/v.lua: 'reentrant' must be true or false, not a string");
  CHECK(load_error("name = 'a b'\nfunction acquire() return true end\n" + kSimpleRelease)
            .find("name 'a b': use letters") != std::string::npos);
  CHECK(load_error(std::string("\033Lua\x51\0\1\4", 8)) ==
        "t/v.lua: a precompiled Lua chunk; give the variant's source");
  CHECK(load_error("x = {" + std::string(300, '{') + std::string(301, '}')).rfind("t/v.lua:1:", 0) == 0);
  // Reaching the simulation at the top level is refused.
  CHECK(load_error("local t = token()\nfunction acquire() return true end\n" + kSimpleRelease) ==
        "t/v.lua:1: token() is not available while the file loads; use it from acquire(), release() or a task");
  // A runaway top level is stopped by the instruction budget, naming its line.
  const std::string runaway = load_error("local n = 0\nwhile true do\n  n = n + 1\nend\n");
  CHECK(runaway.rfind("t/v.lua:", 0) == 0);
  CHECK(runaway.find("more than 2000000 Lua instructions in one call of the top level") != std::string::npos);
}

TEST_CASE("lua variant: a name may not shadow a built-in or another file's variant") {
  std::string error;
  auto v = load_lua_variant_text("name = 'watchdog'\nfunction acquire() return true end\n" + kSimpleRelease, "w.lua");
  REQUIRE(v);
  CHECK_FALSE(register_lua_variant(v, &error));
  CHECK(error == "w.lua: 'watchdog' is a built-in algorithm: choose another name");
  variant("twice", "function acquire() return true end\n" + kSimpleRelease);
  auto again = load_lua_variant_text("name = 'twice'\nfunction acquire() return true end\n" + kSimpleRelease, "b.lua");
  REQUIRE(again);
  CHECK_FALSE(register_lua_variant(again, &error));
  CHECK(error == "b.lua: a second variant named 'twice' (the first is t/twice.lua)");
}

TEST_CASE("lua variant: files are read with limits, a byte-order mark dropped") {
  const auto dir = std::filesystem::temp_directory_path();
  std::string error;
  CHECK_FALSE(load_lua_variant(dir.string(), &error));
  CHECK(error == "cannot read '" + dir.string() + "': not a regular file");
  CHECK_FALSE(load_lua_variant("/nonexistent/x.lua", &error));
  CHECK(error == "cannot read '/nonexistent/x.lua': No such file or directory");
  CHECK_FALSE(load_lua_variant("/dev/zero", &error));
  CHECK(error == "cannot read '/dev/zero': not a regular file");
  const std::string path = (dir / "locksim-bom.lua").string();
  {
    std::ofstream out(path, std::ios::binary);
    out << "\xEF\xBB\xBF"
        << "name = 'bom'\nfunction acquire() return true end\n"
        << kSimpleRelease;
  }
  auto v = load_lua_variant(path, &error);
  INFO(error);
  REQUIRE(v);
  CHECK(v->name == "bom");
  CHECK_FALSE(sim::read_input_file(path, 10, &error));
  CHECK(error == "cannot read '" + path + "': larger than 10 bytes");
  std::remove(path.c_str());
}

TEST_CASE("lua variant: replies convert as redis.call converts them in EVAL") {
  variant("t-replies", R"lua(
function acquire()
  local k = param("key")
  local set = call("SET", k, "v")
  log("status " .. type(set) .. " " .. set.ok)
  log("bulk " .. call("GET", k))
  log("nil " .. tostring(call("GET", "missing")))
  log("integer " .. call("INCR", "n") + 10)
  local list = call("EVAL", "return {1, 'two', false}", 0)  -- false becomes nil, then false again
  log("array " .. #list .. " " .. list[1] .. " " .. list[2])
  local ok, e = pcall(call, "INCR", k)
  log("error " .. tostring(ok) .. " " .. e.err)
  local ok2, e2 = pcall(function() return call("NOSUCH") end)
  log("error2 " .. tostring(ok2) .. " " .. e2.err)
  log("number arg " .. call("SET", "x", 1.5).ok .. " " .. call("GET", "x") .. " " .. call("INCRBY", "n", 2))
  return true
end
function release() return call("DEL", param("key")) == 1 end
)lua");
  auto sim = run(one_client("t-replies"));
  INFO(variant_error(sim->history()));
  CHECK(variant_error(sim->history()).empty());
  CHECK(logs(sim->history()) ==
        std::vector<std::string>{
            "status table OK", "bulk v", "nil false", "integer 11", "array 3 1 two",
            "error false ERR value is not an integer or out of range",
            "error2 false ERR unknown command 'NOSUCH', with args beginning with: ", "number arg OK 1.5 3"});
  CHECK(steps(sim->history(), Step::Released).at(0).own_lock);
}

TEST_CASE("lua variant: a timeout and a lost connection return nil and why") {
  variant("t-timeout", R"lua(
function acquire()
  local r, why = call("SET", param("key"), "v")
  log(tostring(r) .. " " .. tostring(why))
  return false
end
function release() return true end
)lua");
  SimulationConfig c = one_client("t-timeout");
  c.faults = *sim::parse_fault_plan("cut A redis @0ms for 10s");
  c.workload.start_spread = 0_ms;
  auto sim = run(c);
  REQUIRE_FALSE(logs(sim->history()).empty());
  CHECK(logs(sim->history()).front() == "nil timeout");
  c.faults = *sim::parse_fault_plan("reset A redis @1ms");
  auto reset = run(c);
  REQUIRE_FALSE(logs(reset->history()).empty());
  CHECK(logs(reset->history()).front() == "nil connection lost");
}

TEST_CASE("lua variant: sleep, now, params with overrides, servers, spawn and cancel") {
  variant("t-api", R"lua(
params = { lease = 3000 }
local ticks = 0
local function ticker() while true do sleep(10); ticks = ticks + 1 end end
function acquire()
  local t0 = now()
  sleep(2.5)
  log("slept " .. (now() - t0))
  log("lease " .. param("lease") .. " retry " .. param("retry") .. " key " .. param("key"))
  log("servers " .. #servers())
  log("id " .. tostring(client_id() == client_id()) .. " tokens " .. tostring(token() ~= token()))
  local id = spawn(ticker)
  sleep(55)
  cancel(id)
  local seen = ticks
  sleep(100)
  log("ticks " .. seen .. " " .. ticks)
  return true
end
function release() return true end
)lua");
  SimulationConfig c = one_client("t-api");
  c.lock = find_algorithm("t-api")->defaults;
  CHECK(c.lock.lease == 3_s);
  c.lock.retry = 40_ms;  // what a --retry flag does
  auto sim = run(c);
  INFO(variant_error(sim->history()));
  CHECK(logs(sim->history()) == std::vector<std::string>{"slept 2.5", "lease 3000 retry 40 key lock", "servers 1",
                                                         "id true tokens true", "ticks 5 5"});
}

TEST_CASE("lua variant: monotonic_ms() keeps the client's rate and ignores its clock's jumps, now() does not") {
  variant("t-clocks", R"lua(
function acquire()
  local w0, m0 = now(), monotonic_ms()
  sleep(1000)
  log(string.format("wall %.3f monotonic %.3f", now() - w0, monotonic_ms() - m0))
  return true
end
function release() return true end
)lua");
  SimulationConfig c = one_client("t-clocks");
  c.workload.drifts_ppm = {100'000};  // 10 % fast: a sleep of 1000 ms by it is 1000 ms on both clocks
  c.faults = *sim::parse_fault_plan("jump A @200ms by -60s; jump A @300ms by +5s");
  auto sim = run(c);
  INFO(variant_error(sim->history()));
  CHECK(logs(sim->history()) == std::vector<std::string>{"wall -54000.000 monotonic 1000.000"});
}

TEST_CASE("lua variant: the sandbox has no io, os, require or files, math.random is the simulation's") {
  variant("t-sandbox", R"lua(
function acquire()
  for _, name in ipairs({"io", "os", "require", "loadfile", "dofile", "debug", "load", "loadstring"}) do
    local ok, e = pcall(function() return _G[name] end)
    log(name .. " " .. tostring(ok) .. " " .. tostring(e):gsub("^.-: ", ""))
  end
  log("random " .. math.random(1, 1000000))
  log(tostring({}) .. " " .. tostring(print))
  return true
end
function release() return true end
)lua");
  auto a = run(one_client("t-sandbox"));
  auto b = run(one_client("t-sandbox"));
  auto l = logs(a->history());
  INFO(variant_error(a->history()));
  REQUIRE(l.size() == 10);
  for (size_t i = 0; i < 8; ++i) CHECK(l[i].find("false undefined global") != std::string::npos);
  CHECK(l[9] == "table function");
  CHECK(logs(b->history()) == l);  // the same seed draws the same number
  SimulationConfig other = one_client("t-sandbox");
  other.seed = 2;
  CHECK(logs(run(other)->history())[8] != l[8]);
}

TEST_CASE("lua variant: a runtime error is a VariantError step naming the file and line, checked first") {
  variant("t-error", "function acquire()\n  local t = nil\n  return t.field\nend\n" + kSimpleRelease);
  auto sim = run(one_client("t-error"));
  CHECK(variant_error(sim->history()) == "t/t-error.lua:4: attempt to index local 't' (a nil value)");
  CHECK(steps(sim->history(), Step::Acquired).empty());
  // An error reply nobody catches names the call's line.
  variant("t-unhandled",
          "function acquire()\n  call('SET', param('key'), 'v')\n  call('INCR', param('key'))\n"
          "  return true\nend\n" +
              kSimpleRelease);
  CHECK(variant_error(run(one_client("t-unhandled"))->history()) ==
        "t/t-unhandled.lua:4: unhandled error reply in acquire: ERR value is not an integer or out of range");
  // A wrong return value, an undefined global at run time.
  variant("t-return", "function acquire() end\n" + kSimpleRelease);
  CHECK(variant_error(run(one_client("t-return"))->history()) ==
        "t/t-return.lua: acquire() must return true or false, not nothing");
  variant("t-typo", "function acquire() return sleeep(1) end\n" + kSimpleRelease);
  CHECK(variant_error(run(one_client("t-typo"))->history()) == "t/t-typo.lua:2: undefined global 'sleeep'");
}

TEST_CASE("lua variant: a runaway loop hits the instruction budget, never hangs") {
  variant("t-runaway", "function acquire()\n  local n = 0\n  while true do n = n + 1 end\nend\n" + kSimpleRelease);
  const std::string e = variant_error(run(one_client("t-runaway"))->history());
  CHECK(e.rfind("t/t-runaway.lua:4: the variant ran more than 2000000 Lua instructions in one call of acquire", 0) ==
        0);
  // pcall cannot swallow it.
  variant("t-runaway-pcall",
          "function acquire()\n  while true do pcall(function() while true do end end) end\nend\n" + kSimpleRelease);
  CHECK(variant_error(run(one_client("t-runaway-pcall"))->history()).find("more than 2000000") != std::string::npos);
  // Nor can waiting that takes no time.
  variant("t-spin", "function acquire()\n  while true do sleep(0) end\nend\n" + kSimpleRelease);
  CHECK(variant_error(run(one_client("t-spin"))->history()).find("more than 2000000") != std::string::npos);
}

TEST_CASE("lua variant: work inside Lua's C functions counts, pattern and string bombs end as variant errors") {
  // Stock Lua overflows the C stack on this pattern (a crash); the metered matcher refuses it.
  variant("t-pattern-bomb",
          "function acquire()\n  return string.find('aaaa', string.rep('a*', 100000)) ~= nil\nend\n" + kSimpleRelease);
  CHECK(variant_error(run(one_client("t-pattern-bomb"))->history()).find("pattern too complex") != std::string::npos);
  // Backtracking that stock Lua would spend minutes on, in a handful of instructions.
  variant("t-pattern-slow",
          "function acquire()\n  local s = string.rep('a', 3000)\n  string.find(s, '.-.-.-.-b')\n"
          "  return true\nend\n" +
              kSimpleRelease);
  CHECK(variant_error(run(one_client("t-pattern-slow"))->history())
            .rfind("t/t-pattern-slow.lua:4: the variant ran more than 2000000 Lua instructions in one call of acquire",
                   0) == 0);
  // A string larger than the Lua heap cap is refused before it is built.
  variant("t-rep-bomb", "function acquire()\n  local s = string.rep('x', 2^30)\n  return true\nend\n" + kSimpleRelease);
  CHECK(variant_error(run(one_client("t-rep-bomb"))->history()) ==
        "t/t-rep-bomb.lua: the variant used more than 8388608 bytes of Lua memory (in acquire)");
  // Many small strings: each charged by its bytes, so the loop ends on a budget.
  variant("t-rep-loop",
          "function acquire()\n  while true do local s = string.rep('x', 1000000) end\nend\n" + kSimpleRelease);
  CHECK(variant_error(run(one_client("t-rep-loop"))->history()).find("more than 2000000 Lua instructions") !=
        std::string::npos);
}

TEST_CASE("lua variant: all the clients of one run share a budget of Lua instructions") {
  // Each call stays under the per-call budget and each client under its own;
  // together, 3 clients x 5 acquires x ~1.6M instructions are over the run's 20M.
  variant("t-busy", R"lua(
function acquire()
  local n = 0
  for i = 1, 800000 do n = n + i end
  return true
end
function release() return true end
)lua");
  SimulationConfig c = one_client("t-busy");
  c.workload.clients = 3;
  c.workload.iterations = 5;
  const std::string e = variant_error(run(c)->history());
  CHECK(e.find("the variant ran more than 20000000 Lua instructions in this run (all clients together), the last in "
               "acquire") != std::string::npos);
  c.workload.clients = 1;
  c.workload.iterations = 3;
  CHECK(variant_error(run(c)->history()).empty());  // under it: no error
}

TEST_CASE("lua variant: fence() and still_held() answer at once and reach the history") {
  variant("t-fence", R"lua(
local n = 0
function acquire() n = call("INCR", "fence-counter") return true end
function release() return true end
function fence() return n end
function still_held() return true end
)lua");
  SimulationConfig c = one_client("t-fence");
  c.workload.iterations = 3;
  auto sim = run(c);
  auto acquired = steps(sim->history(), Step::Acquired);
  REQUIRE(acquired.size() == 3);
  CHECK(acquired[2].token == 3);
  variant("t-fence-waits",
          "function acquire() return true end\n" + kSimpleRelease + "function fence() return call('INCR', 'x') end\n");
  CHECK(variant_error(run(one_client("t-fence-waits"))->history())
            .find("call() cannot wait inside fence: it must answer at once") != std::string::npos);
}

TEST_CASE("lua variant: one Lua state per incarnation, a crash loses it") {
  variant("t-state", R"lua(
local count = 0
function acquire() count = count + 1 log("acquire " .. count) return true end
function release() return true end
)lua");
  SimulationConfig c = one_client("t-state");
  c.workload.iterations = 4;
  c.workload.think_min = c.workload.think_max = 100_ms;
  c.workload.work_min = c.workload.work_max = 100_ms;
  c.faults = *sim::parse_fault_plan("crash A @250ms; restart A @300ms");
  auto sim = run(c);
  auto l = logs(sim->history());
  REQUIRE(l.size() >= 3);
  CHECK(l[0] == "acquire 1");
  CHECK(l[1] == "acquire 2");
  CHECK(l[2] == "acquire 1");  // the restarted process starts fresh
}

TEST_CASE("lua variant: call works inside pcall and the variant's own coroutines") {
  variant("t-coroutines", R"lua(
function acquire()
  local co = coroutine.wrap(function(k)
    coroutine.yield(call("SET", k, "a").ok)
    coroutine.yield(call("GET", k))
  end)
  log(co(param("key")) .. " " .. co())
  local ok, v = pcall(function() sleep(5) return call("GET", param("key")) end)
  log(tostring(ok) .. " " .. v)
  local ok2, e = xpcall(function() error("boom") end, function(m) return "handled " .. m end)
  log(tostring(ok2) .. " " .. e)
  return true
end
function release() return true end
)lua");
  auto sim = run(one_client("t-coroutines"));
  INFO(variant_error(sim->history()));
  CHECK(logs(sim->history()) ==
        std::vector<std::string>{"OK a", "true a", "false handled t/t-coroutines.lua:11: boom"});
}

TEST_CASE("lua variant: the same seed gives the same trace hash, another seed another") {
  const std::string name = example_variant("watchdog.lua");
  SimulationConfig c;
  c.algorithm = name;
  c.record_trace = false;
  c.faults = *sim::parse_fault_plan("pause A @100ms for 1500ms");
  const uint64_t first = run(c)->trace_hash();
  CHECK(run(c)->trace_hash() == first);
  c.seed = 2;
  CHECK(run(c)->trace_hash() != first);
}

TEST_CASE("lua variant: the Lua token-lua behaves as the built-in one") {
  const std::string name = example_variant("token_lua.lua");
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    SimulationConfig c;
    c.seed = seed;
    c.workload.slow_work = {SlowWork{0, 0, 1500_ms}};
    c.algorithm = "token-lua";
    auto builtin = run(c);
    c.algorithm = name;
    auto lua = run(c);
    CHECK(overlaps(builtin->history()).size() == overlaps(lua->history()).size());
    CHECK(steps(builtin->history(), Step::Acquired).size() == steps(lua->history(), Step::Acquired).size());
  }
}

TEST_CASE("lua variant: a reused client state cannot be told from a fresh one") {
  // Everything a client can change: locals, new globals, a growing table, the
  // generator's draws, a failure. The next simulation's clients start as built.
  variant("t-reuse", R"lua(
local count, kept = 0, {}
function acquire()
  count = count + 1
  rawset(_G, "seen", (rawget(_G, "seen") or 0) + 1)
  kept[#kept + 1] = string.rep("x", 100 * count)
  log(count .. " " .. rawget(_G, "seen") .. " " .. #kept .. " " .. math.random(1000) .. " " .. token())
  if param("lease") < 1000 and count == 2 then error("short lease") end
  return true
end
function release() return true end
)lua");
  SimulationConfig c = one_client("t-reuse");
  c.workload.clients = 2;
  c.workload.iterations = 3;
  c.record_trace = false;
  set_variant_state_reuse(false);
  auto fresh = run(c);
  const std::vector<std::string> fresh_logs = logs(fresh->history());
  REQUIRE(fresh_logs.size() == 6);
  CHECK(fresh_logs[0].rfind("1 1 1 ", 0) == 0);
  set_variant_state_reuse(true);
  run(c);  // builds the states the next runs reuse
  for (int rep = 0; rep < 2; ++rep) {
    const size_t reused_before = variant_states_reused();
    auto again = run(c);
    CHECK(variant_states_reused() == reused_before + 2);
    CHECK(logs(again->history()) == fresh_logs);
    CHECK(again->trace_hash() == fresh->trace_hash());
  }
  // A client that failed leaves nothing behind: the failure, its budget spent.
  c.lock.lease = 500_ms;
  CHECK(variant_error(run(c)->history()).find("short lease") != std::string::npos);
  c.lock.lease = 1_s;
  auto after_failure = run(c);
  CHECK(variant_error(after_failure->history()).empty());
  CHECK(logs(after_failure->history()) == fresh_logs);
}

TEST_CASE("lua variant: reused states give the same traces as fresh ones, spawned tasks and crashes included") {
  // The watchdog example spawns a renewal task per hold; a crash ends a client's
  // state with its task still suspended inside it, which is the state reused next.
  const std::string name = example_variant("watchdog.lua");
  SimulationConfig c;
  c.algorithm = name;
  c.record_trace = false;
  c.workload.iterations = 4;
  c.faults = *sim::parse_fault_plan("crash A @150ms; restart A @400ms; pause B @300ms for 1500ms");
  std::vector<uint64_t> fresh;
  set_variant_state_reuse(false);
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    c.seed = seed;
    fresh.push_back(run(c)->trace_hash());
  }
  set_variant_state_reuse(true);
  const size_t reused_before = variant_states_reused();
  for (int pass = 0; pass < 2; ++pass)
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      c.seed = seed;
      CHECK(run(c)->trace_hash() == fresh[seed - 1]);
    }
  CHECK(variant_states_reused() > reused_before);
}
