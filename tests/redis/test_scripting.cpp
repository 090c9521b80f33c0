#include <catch2/catch.hpp>

#include <cstdlib>

#include "lock_scripts.hpp"
#include "locksim/sim/redis/sha1.hpp"
#include "model_fixture.hpp"

using namespace locksim::redis;
using namespace locksim::redis::testing;

namespace {
std::string eval(Model& m, const std::string& script, std::initializer_list<std::string> keys_then_args = {},
                 int numkeys = 0) {
  Command argv{"eval", script, std::to_string(numkeys)};
  argv.insert(argv.end(), keys_then_args);
  return to_string(m.server.execute(m.conn, argv, m.now));
}
}  // namespace

TEST_CASE("SHA-1 known answers") {
  CHECK(sha1_hex("") == "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  CHECK(sha1_hex("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d");
  CHECK(sha1_hex("return 1") == "e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
  CHECK(sha1_hex(std::string(1000, 'a')) == "291e9a6c66994949b57ba5e650361e98fc36b1ba");
}

TEST_CASE("Lua to Redis conversions") {
  Model m;
  CHECK(eval(m, "return 3.9") == "(integer) 3");
  CHECK(eval(m, "return -3.9") == "(integer) -3");
  CHECK(eval(m, "return 1e30") == "(integer) -9223372036854775808");
  CHECK(eval(m, "return 0/0") == "(integer) -9223372036854775808");
  CHECK(eval(m, "return 'x'") == "\"x\"");
  CHECK(eval(m, "return true") == "(integer) 1");
  CHECK(eval(m, "return false") == "(nil)");
  CHECK(eval(m, "return nil") == "(nil)");
  CHECK(eval(m, "return {1,2,nil,3}") == "[(integer) 1, (integer) 2]");
  CHECK(eval(m, "return {true,false,'x',{ok='fine'}}") == "[(integer) 1, (nil), \"x\", fine]");
  CHECK(eval(m, "return {1,'a',{err='x'},{ok='y'}}") == "[(integer) 1, \"a\", (error) x, y]");
  CHECK(eval(m, "return {err='boom'}") == "(error) boom");
  CHECK(eval(m, "return {err=1}") == "[]");
  CHECK(eval(m, "return {ok='a\\nb'}") == "a b");
  CHECK(eval(m, "return redis.status_reply('FINE')") == "FINE");
  CHECK(eval(m, "return redis.error_reply('boom')") == "(error) ERR boom");
  CHECK(eval(m, "return redis.error_reply('MY boom')") == "(error) MY boom");
  CHECK(eval(m, "return redis.error_reply('-X y')") == "(error) X y");
  CHECK(eval(m, "return redis.error_reply('x\\n')") == "(error) ERR x");
  CHECK(eval(m, "return redis.error_reply(1)") == "(error) ERR wrong number or type of arguments");
  CHECK(eval(m, "return redis.status_reply()") == "(error) ERR wrong number or type of arguments");
  CHECK(eval(m, "return print") ==
        "(error) ERR user_script:1: Script attempted to access nonexistent global variable 'print'" +
            suffix("return print"));
}

TEST_CASE("Redis to Lua conversions") {
  Model m;
  m.run({"set", "k", "v"});
  CHECK(eval(m, "return type(redis.call('get','nokey'))") == "\"boolean\"");
  CHECK(eval(m, "return redis.call('get','nokey') == false") == "(integer) 1");
  CHECK(eval(m, "return redis.call('ping')") == "PONG");
  CHECK(eval(m, "return redis.call('ping')['ok']") == "\"PONG\"");
  CHECK(eval(m, "return type(redis.call('incr','n'))") == "\"number\"");
  CHECK(eval(m, "return redis.call('mget','k','nokey')") == "[\"v\", (nil)]");
  CHECK(eval(m, "return redis.pcall('incr','k')['err']") == "\"ERR value is not an integer or out of range\"");
  // Numbers become arguments with %.17g, as Redis formats them.
  CHECK(eval(m, "redis.call('set','f',0.1) return redis.call('get','f')") == "\"0.10000000000000001\"");
  CHECK(eval(m, "redis.call('set','f',3) return redis.call('get','f')") == "\"3\"");
  CHECK(eval(m, "redis.call('set','f',1e20) return redis.call('get','f')") == "\"1e+20\"");
}

TEST_CASE("redis.call raises, redis.pcall returns the error") {
  Model m;
  const std::string s1 = "return redis.call('nosuch')";
  CHECK(eval(m, s1) == "(error) ERR Unknown Redis command called from script" + suffix(s1));
  CHECK(eval(m, "return redis.pcall('nosuch')") == "(error) ERR Unknown Redis command called from script");
  const std::string s2 = "return redis.call('set','a')";
  CHECK(eval(m, s2) == "(error) ERR Wrong number of args calling Redis command from script" + suffix(s2));
  const std::string s3 = "return redis.call('multi')";
  CHECK(eval(m, s3) == "(error) ERR This Redis command is not allowed from script" + suffix(s3));
  for (const char* forbidden : {"redis.pcall('exec')", "redis.pcall('watch','x')", "redis.pcall('eval','return 1','0')",
                                "redis.pcall('script','flush')"})
    CHECK(eval(m, std::string("return ") + forbidden) == "(error) ERR This Redis command is not allowed from script");
  CHECK(eval(m, "return redis.pcall('script','bogus')") == "(error) ERR Unknown Redis command called from script");
  const std::string s4 = "return redis.call('get', {})";
  CHECK(eval(m, s4) == "(error) ERR Lua redis lib command arguments must be strings or integers" + suffix(s4));
  const std::string s5 = "return redis.call()";
  CHECK(eval(m, s5) == "(error) ERR Please specify at least one argument for this redis lib call" + suffix(s5));
  m.run({"set", "s", "abc"});
  const std::string s6 = "return redis.call('incr', KEYS[1])";
  CHECK(eval(m, s6, {"s"}, 1) == "(error) ERR value is not an integer or out of range" + suffix(s6));
  // The replaced pcall turns a caught error table into its message.
  CHECK(eval(m, "local ok, e = pcall(redis.call, 'nosuch') return e") ==
        "\"ERR Unknown Redis command called from script\"");
  CHECK(eval(m, "return {pcall(error, 'x')}") == "[(nil), \"x\"]");
}

TEST_CASE("Runtime and compile errors carry Redis 7.0.15 wording") {
  Model m;
  CHECK(eval(m, "error('x')") == "(error) ERR user_script:1: x" + suffix("error('x')"));
  CHECK(eval(m, "error('x', 0)") == "(error) ERR x" + suffix("error('x', 0)"));
  CHECK(eval(m, "error({err='X y'})") == "(error) X y" + suffix("error({err='X y'})"));
  CHECK(eval(m, "error()") == "(error) ERR nil" + suffix("error()"));
  CHECK(eval(m, "error(12)") == "(error) ERR user_script:1: 12" + suffix("error(12)"));
  CHECK(eval(m, "error('a\\nb')") == "(error) ERR user_script:1: a b" + suffix("error('a\\nb')"));
  CHECK(eval(m, "return 1 +") ==
        "(error) ERR Error compiling script (new function): user_script:1: unexpected symbol near '<eof>'");
  CHECK(eval(m, "return redis.sha1hex()") ==
        "(error) ERR wrong number of arguments" + suffix("return redis.sha1hex()"));
  CHECK(eval(m, "return redis.sha1hex('')") == "\"da39a3ee5e6b4b0d3255bfef95601890afd80709\"");
  CHECK(eval(m, "return redis.log(redis.LOG_WARNING, 'x')") == "(nil)");
  CHECK(eval(m, "return redis.log(9, 'x')") == "(error) ERR Invalid debug level." + suffix("return redis.log(9, 'x')"));
}

TEST_CASE("Globals are protected, libraries are Redis's") {
  Model m;
  CHECK(eval(m, "a=1") == "(error) ERR user_script:1: Attempt to modify a readonly table" + suffix("a=1"));
  CHECK(eval(m, "KEYS=1") == "(error) ERR user_script:1: Attempt to modify a readonly table" + suffix("KEYS=1"));
  CHECK(eval(m, "_G.a=1") == "(error) ERR user_script:1: Attempt to modify a readonly table" + suffix("_G.a=1"));
  CHECK(eval(m, "string.x=1") ==
        "(error) ERR user_script:1: Attempt to modify a readonly table" + suffix("string.x=1"));
  CHECK(eval(m, "redis.call=nil") ==
        "(error) ERR user_script:1: Attempt to modify a readonly table" + suffix("redis.call=nil"));
  CHECK(eval(m, "rawset(_G,'a',1) return a") ==
        "(error) ERR Attempt to modify a readonly table" + suffix("rawset(_G,'a',1) return a"));
  CHECK(eval(m, "setmetatable(_G,nil) return 1") ==
        "(error) ERR Attempt to modify a readonly table" + suffix("setmetatable(_G,nil) return 1"));
  CHECK(eval(m, "return x") ==
        "(error) ERR user_script:1: Script attempted to access nonexistent global variable 'x'" + suffix("return x"));
  CHECK(eval(m, "local f = function() zz = 1 end f() return 1") ==
        "(error) ERR user_script:1: Attempt to modify a readonly table" +
            suffix("local f = function() zz = 1 end f() return 1"));
  CHECK(eval(m, "return rawget(_G,'zz')") == "(nil)");
  CHECK(eval(m, "getmetatable('').x = 1 return 1") ==
        "(error) ERR user_script:1: Attempt to modify a readonly table" + suffix("getmetatable('').x = 1 return 1"));
  CHECK(eval(m, "table.insert(_G, 1) return 1") ==
        "(error) ERR Attempt to modify a readonly table" + suffix("table.insert(_G, 1) return 1"));
  CHECK(eval(m, "local t = {3,1,2} table.sort(t) table.insert(t, 4) table.remove(t, 1) return t") ==
        "[(integer) 2, (integer) 3, (integer) 4]");
  CHECK(eval(m, "return type(getmetatable(_G))") == "\"table\"");
  CHECK(eval(m, "local t = {} t.x = 1 return t.x") == "(integer) 1");
  CHECK(eval(m, "KEYS[1]='x' return KEYS[1]", {"a"}, 1) == "\"x\"");
  CHECK(eval(m, "local n=0 for k,v in pairs(string) do n=n+1 end return n") == "(integer) 15");
  CHECK(eval(m, "return string.rep('x',3) .. math.floor(2.5) .. table.concat({'a','b'})") == "\"xxx2ab\"");
  CHECK(eval(m, "return _VERSION") == "\"Lua 5.1\"");
  CHECK(eval(m, "return redis.REDIS_VERSION") == "\"7.0.15\"");
  for (const char* gone :
       {"dofile", "loadfile", "print", "setfenv", "getfenv", "newproxy", "debug", "require", "os", "io"}) {
    const std::string s = std::string("return ") + gone;
    CHECK(eval(m, s) == "(error) ERR user_script:1: Script attempted to access nonexistent global variable '" +
                            std::string(gone) + "'" + suffix(s));
  }
  CHECK(eval(m, "return loadstring('return 7')()") == "(integer) 7");
  CHECK(eval(m, "return loadstring(string.char(27) .. 'Lua')") == "(nil)");
  // A global set in one script must not leak into the next (it cannot be set at all).
  CHECK(eval(m, "return rawget(_G, 'a')") == "(nil)");
}

TEST_CASE("Endless scripts are stopped deterministically and the server keeps working") {
  ServerOptions options;
  options.lua_instruction_budget = 200'000;
  Model m(options);
  m.run({"set", "k", "before"});
  const std::string busy =
      "(error) BUSY Script exceeded the instruction budget of 200000 and was stopped; its earlier writes are kept";
  CHECK(eval(m, "redis.call('set','k','during') while true do end") == busy);
  CHECK(m.text({"get", "k"}) == "\"during\"");  // no rollback, as in Redis
  CHECK(eval(m, "while true do pcall(function() while true do end end) end") == busy);
  CHECK(eval(m, "local co = coroutine.wrap(function() while true do end end) co()") == busy);
  CHECK(eval(m, "return 1") == "(integer) 1");
  CHECK(m.text({"ping"}) == "PONG");
  // The same script stops at the same point every time.
  CHECK(eval(m, "local i = 0 while true do i = i + 1 redis.call('set','n',i) end") == busy);
  auto first = m.server.peek_string("n", m.now);
  CHECK(eval(m, "local i = 0 while true do i = i + 1 redis.call('set','n',i) end") == busy);
  CHECK(m.server.peek_string("n", m.now) == first);
}

TEST_CASE("Script memory is capped") {
  ServerOptions options;
  options.lua_memory_limit_bytes = 4 * 1024 * 1024;
  Model m(options);
  const std::string oom = "(error) OOM Script exceeded the Lua memory limit of 4194304 bytes";
  CHECK(eval(m, "local t = {} for i=1,1e8 do t[i] = i end return #t") == oom);
  CHECK(eval(m, "return #string.rep('x', 64*1024*1024)") == oom);
  CHECK(eval(m, "local ok = pcall(string.rep, 'x', 64*1024*1024) return 1") == oom);
  CHECK(eval(m, "return #string.rep('x', 1024)") == "(integer) 1024");
  CHECK(m.text({"set", "k", "v"}) == "OK");
}

TEST_CASE("EVALSHA finds the script it ran last again, and nothing once the cache is flushed") {
  Model m;
  const std::string one = m.text({"script", "load", "return 1"});
  const std::string two = m.text({"script", "load", "return 2"});
  const std::string sha1 = one.substr(1, 40), sha2 = two.substr(1, 40);
  for (int round = 0; round < 3; ++round) {  // the same SHA-1 twice in a row, then the other
    CHECK(m.text({"evalsha", sha1, "0"}) == "(integer) 1");
    CHECK(m.text({"evalsha", sha1, "0"}) == "(integer) 1");
    CHECK(m.text({"evalsha", sha2, "0"}) == "(integer) 2");
  }
  std::string upper = sha2;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  CHECK(m.text({"evalsha", upper, "0"}) == "(integer) 2");
  CHECK(m.text({"script", "flush"}) == "OK");
  CHECK(m.text({"evalsha", sha2, "0"}) == "(error) NOSCRIPT No matching script. Please use EVAL.");
  CHECK(m.text({"script", "load", "return 3"}) == "\"" + sha1_hex("return 3") + "\"");
  CHECK(m.text({"evalsha", sha1_hex("return 3"), "0"}) == "(integer) 3");
}

TEST_CASE("EVALSHA never runs a function, even one whose name makes a 40-character key") {
  Model m;
  const std::string name(37, 'f');  // the engine keeps it as "fn:" + name: 40 characters
  CHECK(m.text({"function", "load", "#!lua name=lib\nredis.register_function('" + name + "', function() return 7 end)"}) ==
        "\"lib\"");
  CHECK(m.text({"fcall", name, "0"}) == "(integer) 7");
  CHECK(m.text({"evalsha", "fn:" + name, "0"}) == "(error) NOSCRIPT No matching script. Please use EVAL.");
  CHECK(m.text({"evalsha", "FN:" + name, "0"}) == "(error) NOSCRIPT No matching script. Please use EVAL.");
}

TEST_CASE("Script cache, EVALSHA, SCRIPT LOAD EXISTS FLUSH and NOSCRIPT") {
  Model m;
  const std::string sha = sha1_hex("return 1");
  CHECK(m.text({"evalsha", sha, "0"}) == "(error) NOSCRIPT No matching script. Please use EVAL.");
  CHECK(m.text({"evalsha", "abc", "0"}) == "(error) NOSCRIPT No matching script. Please use EVAL.");
  CHECK(m.text({"script", "load", "return 1"}) == "\"" + sha + "\"");
  CHECK(m.text({"script", "exists", sha, "abc"}) == "[(integer) 1, (integer) 0]");
  std::string upper = sha;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  CHECK(m.text({"evalsha", upper, "0"}) == "(integer) 1");
  CHECK(m.text({"script", "flush"}) == "OK");
  CHECK(m.text({"script", "exists", sha}) == "[(integer) 0]");
  CHECK(eval(m, "return 2") == "(integer) 2");  // EVAL caches for EVALSHA
  CHECK(m.text({"evalsha", sha1_hex("return 2"), "0"}) == "(integer) 2");
  CHECK(m.text({"script", "load", "return +"}) ==
        "(error) ERR Error compiling script (new function): user_script:1: unexpected symbol near '+'");
  CHECK(m.text({"script", "flush", "async"}) == "OK");
  CHECK(m.text({"script", "flush", "foo"}) == "(error) ERR SCRIPT FLUSH only support SYNC|ASYNC option");
  CHECK(m.text({"script", "foo"}) == "(error) ERR unknown subcommand 'foo'. Try SCRIPT HELP.");
  CHECK(m.text({"script", "load"}) == "(error) ERR wrong number of arguments for 'script|load' command");
  CHECK(m.text({"script", "exists"}) == "(error) ERR wrong number of arguments for 'script|exists' command");
  CHECK(m.text({"script"}) == "(error) ERR wrong number of arguments for 'script' command");
  CHECK(m.text({"script", "kill"}) == "(error) NOTBUSY No scripts in execution right now.");
  CHECK(m.text({"script", "kill", "x"}) == "(error) ERR wrong number of arguments for 'script|kill' command");
  CHECK(m.text({"script", "debug", "yes"}) == "(error) ERR SCRIPT DEBUG is not supported by the locksim model");
  auto help = m.run({"script", "help"});
  REQUIRE(help.elements.size() == 17);
  CHECK(help.elements[0] == Reply::status("SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
  CHECK(m.text({"eval", "return 1", "-1"}) == "(error) ERR Number of keys can't be negative");
  CHECK(m.text({"eval", "return 1", "2", "a"}) == "(error) ERR Number of keys can't be greater than number of args");
  CHECK(m.text({"eval", "return 1", "x"}) == "(error) ERR value is not an integer or out of range");
  CHECK(m.text({"eval", "return 1"}) == "(error) ERR wrong number of arguments for 'eval' command");
  CHECK(eval(m, "return {KEYS[1], KEYS[2], ARGV[1], #ARGV}", {"k1", "k2", "a1"}, 2) ==
        "[\"k1\", \"k2\", \"a1\", (integer) 1]");
}

// A small body is parsed once per thread and every state loads its compiled chunk
// (script_cache.cpp): a state must not be able to tell the second server from the first.
TEST_CASE("A body compiled once per thread behaves in every server as in the first") {
  const std::string memory = "return tostring(collectgarbage('count'))";
  const std::string two_lines = "local x = 1\nerror('boom')";
  const std::string read_only = "#!lua flags=no-writes\nreturn redis.call('set','k','v')";
  const std::string broken = "return 1 +";
  const std::string big = "-- " + std::string(5000, 'x') + "\nreturn {1, KEYS[1]}";  // parsed in its state
  Model first;
  const std::string memory_first = eval(first, memory);
  const std::string error_first = eval(first, two_lines);
  const std::string refused_first = eval(first, read_only);
  const std::string compile_first = eval(first, broken);
  CHECK(error_first.starts_with("(error) ERR user_script:2: boom"));
  CHECK(error_first.ends_with("on @user_script:2."));
  CHECK(refused_first.find("Write commands are not allowed from read-only scripts.") != std::string::npos);
  CHECK(compile_first ==
        "(error) ERR Error compiling script (new function): user_script:1: unexpected symbol near '<eof>'");
  CHECK(eval(first, big, {"k"}, 1) == "[(integer) 1, \"k\"]");
  Model second;  // same bodies, now from the thread's compiled chunks: the same state, memory included
  CHECK(eval(second, memory) == memory_first);
  CHECK(eval(second, two_lines) == error_first);
  CHECK(eval(second, read_only) == refused_first);
  CHECK(eval(second, broken) == compile_first);
  CHECK(eval(second, big, {"k"}, 1) == "[(integer) 1, \"k\"]");
  CHECK(second.text({"script", "exists", sha1_hex(memory), sha1_hex(broken)}) == "[(integer) 1, (integer) 0]");
  CHECK(second.text({"get", "k"}) == "(nil)");
}

TEST_CASE("Time is frozen inside a script, expiry uses the EVAL's now") {
  Model m;
  m.run({"set", "k", "v", "px", "10"});
  CHECK(eval(m,
             "local a = redis.call('time') local b = redis.call('time') "
             "return {a[1], a[2], b[1] == a[1] and b[2] == a[2], redis.call('pttl', KEYS[1])}",
             {"k"}, 1) == "[\"1700000000\", \"0\", (integer) 1, (integer) 10]");
  m.now += 11;
  CHECK(eval(m, "return redis.call('get', KEYS[1])", {"k"}, 1) == "(nil)");
}

TEST_CASE("Lock scripts: compare-and-delete and compare-and-pexpire") {
  Model m;
  m.run({"set", "lock", "tokA", "nx", "px", "1000"});
  CHECK(eval(m, kCompareAndPexpire, {"lock", "tokB", "5000"}, 1) == "(integer) 0");
  CHECK(m.text({"pttl", "lock"}) == "(integer) 1000");
  CHECK(eval(m, kCompareAndPexpire, {"lock", "tokA", "5000"}, 1) == "(integer) 1");
  CHECK(m.text({"pttl", "lock"}) == "(integer) 5000");
  CHECK(eval(m, kCompareAndDelete, {"lock", "tokB"}, 1) == "(integer) 0");
  CHECK(m.text({"get", "lock"}) == "\"tokA\"");
  CHECK(eval(m, kCompareAndDelete, {"lock", "tokA"}, 1) == "(integer) 1");
  CHECK(eval(m, kCompareAndDelete, {"lock", "tokA"}, 1) == "(integer) 0");
  CHECK(eval(m, kCompareAndPexpire, {"lock", "tokA", "5000"}, 1) == "(integer) 0");
  // F10: after the lease ends, B's lock is safe from A's late release.
  m.run({"set", "lock", "tokA", "nx", "px", "1000"});
  m.now += 1001;
  CHECK(m.text({"set", "lock", "tokB", "nx", "px", "1000"}) == "OK");
  CHECK(eval(m, kCompareAndDelete, {"lock", "tokA"}, 1) == "(integer) 0");
  CHECK(m.text({"get", "lock"}) == "\"tokB\"");
}

TEST_CASE("Lock scripts: Redisson reentrant lock, unlock and renew") {
  Model m;
  auto lock = [&](const char* owner) { return eval(m, kRedissonLock, {"rlock", "30000", owner}, 1); };
  auto unlock = [&](const char* owner) {
    return eval(m, kRedissonUnlock, {"rlock", "redisson_lock__channel:{rlock}", "0", "30000", owner}, 2);
  };
  auto renew = [&](const char* owner) { return eval(m, kRedissonRenew, {"rlock", "30000", owner}, 1); };
  CHECK(lock("A:1") == "(nil)");
  CHECK(lock("A:1") == "(nil)");  // reentrant
  CHECK(m.text({"hget", "rlock", "A:1"}) == "\"2\"");
  m.now += 1000;
  CHECK(lock("B:1") == "(integer) 29000");  // B is told how long to wait
  CHECK(renew("B:1") == "(integer) 0");
  CHECK(renew("A:1") == "(integer) 1");
  CHECK(m.text({"pttl", "rlock"}) == "(integer) 30000");
  CHECK(unlock("B:1") == "(nil)");
  CHECK(unlock("A:1") == "(integer) 0");  // still held once
  CHECK(m.text({"hget", "rlock", "A:1"}) == "\"1\"");
  CHECK(unlock("A:1") == "(integer) 1");
  CHECK(m.text({"exists", "rlock"}) == "(integer) 0");
  CHECK(lock("B:1") == "(nil)");
}

TEST_CASE("No addresses reach replies: tostring numbers objects in order of first use") {
  const std::string script = "local t = {} return {tostring(t), tostring(t), tostring(redis.call), tostring(1.5)}";
  const std::string first = "[\"table: 0x00000001\", \"table: 0x00000001\", \"function: 0x00000002\", \"1.5\"]";
  Model a;
  Model b;
  CHECK(eval(a, script) == first);
  CHECK(eval(b, script) == first);  // a fresh server numbers the same way
  CHECK(eval(a, script) == "[\"table: 0x00000003\", \"table: 0x00000003\", \"function: 0x00000002\", \"1.5\"]");
  CHECK(eval(a, "return getmetatable('').__index == string") == "(integer) 1");
  CHECK(eval(a, "return ('ab'):upper()") == "\"AB\"");
}

TEST_CASE("Determinism: the same script on the same state gives the same reply") {
  const std::string script =
      "local t = {} for k, v in pairs({a=1, b=2, c=3, d=4, e=5}) do t[#t+1] = k .. v end "
      "return {table.concat(t, ','), collectgarbage('count') > 0, tostring(1/3)}";
  Model a;
  Model b;
  auto ra = eval(a, script);
  CHECK(ra == eval(b, script));
  CHECK(ra == eval(a, script));
}

TEST_CASE("math.random is Redis 7.0's rand48: one sequence from server start, never the process's rand()") {
  const std::string script = "return {math.random(1000000), math.random(1000000), math.random(1000000)}";
  Model a;
  Model b;
  // The values redis-server 7.0.15 returns for its first two scripts after start.
  CHECK(eval(a, script) == "[(integer) 396465, (integer) 840486, (integer) 353337]");
  std::srand(12345);  // the C library's generator has no say
  CHECK(eval(b, script) == "[(integer) 396465, (integer) 840486, (integer) 353337]");
  CHECK(eval(a, "return math.random(1000000)") == "(integer) 446584");
  a.server.execute(a.conn, {"SCRIPT", "FLUSH"}, 0);  // the generator outlives the script cache
  CHECK(eval(a, "return math.random(1000000)") == "(integer) 318693");
  CHECK(eval(a, "math.randomseed(7) return math.random(10, 20)") ==
        eval(b, "math.randomseed(7) return math.random(10, 20)"));
  CHECK(eval(a, "return math.random(0)").find("interval is empty") != std::string::npos);
  // Bounds past int wrap as Redis's int arithmetic does: redis-server 7.0.15's answer
  // to this, its first script after start.
  Model c;
  CHECK(eval(c, "return {math.random(2^31, 2^40), math.random(-2^31, 0), tostring(math.random(2^31, 2^40))}") ==
        "[(integer) -2998885266, (integer) -3952412235, \"-2906267139\"]");
}

TEST_CASE("a reply that would explode (a table holding itself over and over) is refused, not built") {
  Model m;
  CHECK(eval(m, "local t = {} for i = 1, 10 do t[i] = t end return t") ==
        "(error) ERR reply too large: more than 1000000 elements");
  CHECK(eval(m, "return {1, {2, {3}}}") == "[(integer) 1, [(integer) 2, [(integer) 3]]]");
}

TEST_CASE("INFO memory counts the cached scripts, the functions and the Lua state's bytes") {
  Model m;
  auto info = [&] { return m.run({"info", "memory"}).str; };
  CHECK_THAT(info(), Catch::Contains("number_of_cached_scripts:0\r\n"));
  for (int j = 0; j < 3; ++j) m.run({"script", "load", "return " + std::to_string(j)});
  CHECK_THAT(info(), Catch::Contains("# Memory\r\n"));
  CHECK_THAT(info(), Catch::Contains("number_of_cached_scripts:3\r\n"));
  CHECK_THAT(info(), !Catch::Contains("used_memory_lua:0\r\n"));
  m.run({"function", "load", "#!lua name=lib\nredis.register_function('f', function() return 1 end)"});
  CHECK_THAT(info(), Catch::Contains("number_of_functions:1\r\nnumber_of_libraries:1\r\n"));
  CHECK(m.text({"script", "flush", "async"}) == "OK");
  CHECK_THAT(info(), Catch::Contains("number_of_cached_scripts:0\r\n"));
  CHECK_THAT(m.run({"info"}).str, Catch::Contains("# Memory\r\n"));  // in the default sections, as in Redis
  CHECK_THAT(m.run({"info", "keyspace"}).str, !Catch::Contains("# Memory"));
}

// KEYS and ARGV are the state's own tables, refilled at each EVAL (script_run.cpp): what
// one script does to them must never reach the next, as with Redis's new tables per call.
TEST_CASE("KEYS and ARGV hold exactly this call's keys and arguments, whatever an earlier script did to them") {
  Model m;
  const std::string show =
      "local out = {} for k, v in pairs(KEYS) do out[#out + 1] = 'K' .. tostring(k) .. '=' .. tostring(v) end "
      "for k, v in pairs(ARGV) do out[#out + 1] = 'A' .. tostring(k) .. '=' .. tostring(v) end "
      "out[#out + 1] = tostring(getmetatable(KEYS)) .. ' ' .. tostring(getmetatable(ARGV)) return out";
  CHECK(eval(m, show, {"k1", "k2", "a1"}, 2) == "[\"K1=k1\", \"K2=k2\", \"A1=a1\", \"nil nil\"]");
  // A script grows the tables, adds fields and gives them metatables.
  CHECK(eval(m,
             "KEYS[5] = 'x' KEYS.extra = 1 ARGV[2] = 'y' "
             "setmetatable(KEYS, {__index = function() return 'meta' end}) setmetatable(ARGV, {}) return #KEYS",
             {"only"}, 1) == "(integer) 1");
  CHECK(eval(m, show, {"k9", "a8", "a9"}, 1) == "[\"K1=k9\", \"A1=a8\", \"A2=a9\", \"nil nil\"]");
  CHECK(eval(m, "return KEYS[2]", {"k"}, 1) == "(nil)");  // no __index left behind
  // One that grows them large, then a call with none at all.
  CHECK(eval(m, "for i = 1, 1000 do KEYS[i] = i ARGV['f' .. i] = i end return 1") == "(integer) 1");
  CHECK(eval(m, show) == "[\"nil nil\"]");
  CHECK(eval(m, "return {#KEYS, #ARGV}", {"a", "b", "c"}, 1) == "[(integer) 1, (integer) 2]");
}

// A table that still holds just the last call's elements is overwritten in place, not
// cleared (script_run.cpp): every other key a script wrote must still send it to clearing.
TEST_CASE("KEYS and ARGV overwritten in place show no element of an earlier call") {
  Model m;
  const std::string show =
      "local out = {} for k, v in pairs(KEYS) do out[#out + 1] = 'K' .. tostring(k) .. '=' .. tostring(v) end "
      "for k, v in pairs(ARGV) do out[#out + 1] = 'A' .. tostring(k) .. '=' .. tostring(v) end return out";
  CHECK(eval(m, show, {"k1", "k2", "k3", "a1", "a2"}, 3) ==
        "[\"K1=k1\", \"K2=k2\", \"K3=k3\", \"A1=a1\", \"A2=a2\"]");
  CHECK(eval(m, show, {"k9", "a9"}, 1) == "[\"K1=k9\", \"A1=a9\"]");  // fewer: the rest goes
  CHECK(eval(m, show, {"x1", "x2", "b1", "b2", "b3"}, 2) ==
        "[\"K1=x1\", \"K2=x2\", \"A1=b1\", \"A2=b2\", \"A3=b3\"]");
  // Keys a script writes beside the elements: a hole, 0, a fraction, beyond the end, a changed value.
  for (const std::string dirty : {"KEYS[1] = nil ARGV[2] = nil", "KEYS[0] = 'z'", "KEYS[1.5] = 'z'",
                                  "ARGV[4] = 'z'", "KEYS[2] = 'changed' ARGV[1] = 'changed'"}) {
    CAPTURE(dirty);
    CHECK(eval(m, dirty + " return 1", {"d1", "d2", "e1", "e2", "e3"}, 2) == "(integer) 1");
    CHECK(eval(m, show, {"n1", "n2", "m1", "m2", "m3"}, 2) ==
          "[\"K1=n1\", \"K2=n2\", \"A1=m1\", \"A2=m2\", \"A3=m3\"]");
    CHECK(eval(m, show, {"o1", "p1"}, 1) == "[\"K1=o1\", \"A1=p1\"]");
  }
}

// A function library may keep the tables it is given (an upvalue outlives the call), so
// FCALL's KEYS and ARGV are new at each call, as in Redis, and an EVAL between never
// refills one a function kept.
TEST_CASE("a function keeps the KEYS and ARGV it was given, unchanged by later calls and scripts") {
  Model m;
  const std::string library =
      "#!lua name=keeper\nlocal kept = {}\n"
      "redis.register_function('keep', function(keys, args) kept[#kept + 1] = {keys, args} return #kept end)\n"
      "redis.register_function('show', function() local out = {} for _, pair in ipairs(kept) do "
      "out[#out + 1] = table.concat(pair[1], ',') .. '|' .. table.concat(pair[2], ',') end return out end)";
  REQUIRE(to_string(m.run({"function", "load", library})) == "\"keeper\"");
  CHECK(to_string(m.run({"fcall", "keep", "1", "k1", "a1"})) == "(integer) 1");
  CHECK(eval(m, "return KEYS[1] .. ARGV[1]", {"ek", "ea"}, 1) == "\"ekea\"");
  CHECK(to_string(m.run({"fcall", "keep", "2", "k2", "k3", "a2"})) == "(integer) 2");
  CHECK(eval(m, "return #KEYS + #ARGV", {"x", "y", "z"}, 2) == "(integer) 3");
  CHECK(to_string(m.run({"fcall", "show", "0"})) == "[\"k1|a1\", \"k2,k3|a2\"]");
}
