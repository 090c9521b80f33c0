// Differential test: generated command sequences run on the model and on a real
// redis-server must give identical replies.
//
// Time: the model is driven with the host's wall clock read just before each
// command, so relative TTLs agree with the server's. TTLs are long (>= 100 s) so
// nothing expires during a sequence; replies that state remaining or absolute
// times (PTTL, TTL, EXPIRETIME, PEXPIRETIME, scripts that return a PTTL) are
// compared within a tolerance of 1 s (1 unit for EXPIRETIME; TTL exactly). GT/LT
// are only generated with absolute deadlines: two relative deadlines of the same
// length a few microseconds apart compare differently depending on the ms tick.
// KEYS replies, and SORT's with a BY that does not sort, are compared as sets (the
// model sorts, Redis answers in hash order).
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <tuple>

#include "lock_scripts.hpp"
#include "locksim/sim/redis/console.hpp"
#include "locksim/sim/redis/sha1.hpp"
#include "real_redis.hpp"

using namespace locksim::redis;
using namespace locksim::redis::testing;

namespace {

RealRedis& real_server() {
  static RealRedis server;  // stopped by its destructor at exit
  return server;
}

int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// ---- the pools the generator draws from ---------------------------------------

const std::vector<std::string> kKeys = {"a", "b", "h", "lock"};
const std::vector<std::string> kValues = {"1",
                                          "0",
                                          "-3",
                                          "v",
                                          "tokA",
                                          "tokB",
                                          "",
                                          "9223372036854775807",
                                          "-9223372036854775808",
                                          "x y",
                                          "1.5",
                                          "owner:1",
                                          "a\r\nb",
                                          std::string(150, 'w') + "tail",
                                          "\xff\x00bin"};
const std::vector<std::string> kIntegers = {
    "1",  "-1", "0",  "10",  "abc", "9223372036854775807", "-9223372036854775808", "1.5", "",
    "01", "+1", " 1", "1e3", "-0",  "9223372036854775808"};
const std::vector<std::string> kFields = {"f", "g", "owner:1"};
// Hash values stay within hash-max-listpack-value (64 bytes): a longer one turns a
// real hash into a hash table, whose order is seeded per process (see the docs).
const std::vector<std::string> kHashValues = {"1", "0", "-3", "v", "", "9223372036854775807", "x y", "a\r\nb"};
const std::vector<std::string> kRelativeSeconds = {"100", "300", "1000", "0", "-1", "abc", "9223372036854775"};
const std::vector<std::string> kRelativeMs = {"200000", "600000", "2000000", "0", "-5", "x", "9223372036854775807"};
const std::vector<std::string> kAbsoluteSeconds = {"4102444800", "4102448400", "0", "x", "9223372036854775807"};
const std::vector<std::string> kAbsoluteMs = {"4102444800000", "4102448400000", "0", "x"};
const std::vector<std::string> kPatterns = {"*", "a*", "?", "[ab]", "h", "*o*", "l\\ock"};

struct PoolScript {
  std::string body;
  int numkeys;
  std::vector<const std::vector<std::string>*> args;  // where each ARGV is drawn from
  bool returns_time = false;
};

const std::vector<std::string> kOwners = {"A:1", "B:1"};
const std::vector<std::string> kTokens = {"tokA", "tokB"};
const std::vector<std::string> kLeases = {"200000", "600000"};
const std::vector<std::string> kZero = {"0"};

const std::vector<PoolScript>& script_pool() {
  static const std::vector<PoolScript> pool = {
      {kCompareAndDelete, 1, {&kTokens}},
      {kCompareAndPexpire, 1, {&kTokens, &kLeases}},
      {kRedissonLock, 1, {&kLeases, &kOwners}, true},
      {kRedissonUnlock, 2, {&kZero, &kLeases, &kOwners}},
      {kRedissonRenew, 1, {&kLeases, &kOwners}},
      {"return redis.call('get', KEYS[1])", 1, {}},
      {"return redis.call('set', KEYS[1], ARGV[1])", 1, {&kValues}},
      {"return redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])", 1, {&kTokens, &kLeases}},
      {"return redis.pcall('incr', KEYS[1])", 1, {}},
      {"return redis.call('incr', KEYS[1])", 1, {}},
      {"return redis.call('hincrby', KEYS[1], ARGV[1], ARGV[2])", 1, {&kFields, &kIntegers}},
      {"return redis.call('hgetall', KEYS[1])", 1, {}},
      {"return {redis.call('exists', KEYS[1]), redis.call('type', KEYS[1])}", 1, {}},
      {"return redis.call('mget', KEYS[1], KEYS[2])", 2, {}},
      {"return {1, 2, nil, 3}", 0, {}},
      {"return {true, false, 'x', 3.99, -2.5, {ok='fine'}, {err='bad'}}", 0, {}},
      {"return {err='boom'}", 0, {}},
      {"return redis.error_reply('MY boom')", 0, {}},
      {"return redis.error_reply(ARGV[1])", 0, {&kValues}},
      {"return redis.status_reply('FINE')", 0, {}},
      {"error('x')", 0, {}},
      {"error({err='X y'})", 0, {}},
      {"return x", 0, {}},
      {"a = 1", 0, {}},
      {"rawset(_G, 'a', 1)", 0, {}},
      {"return redis.call('nosuch')", 0, {}},
      {"return redis.call('set', KEYS[1])", 1, {}},
      {"return redis.call('multi')", 0, {}},
      {"return redis.call('get', {})", 0, {}},
      {"local ok, e = pcall(redis.call, 'incr', KEYS[1]) return {tostring(ok), e}", 1, {}},
      {"return 1 +", 0, {}},
      {"return redis.sha1hex(ARGV[1])", 0, {&kValues}},
      {"return tonumber(ARGV[1])", 0, {&kIntegers}},
      {"redis.call('set', KEYS[1], 'v') return redis.call('pexpire', KEYS[1], ARGV[1])", 1, {&kRelativeMs}},
      {"redis.call('set', KEYS[1], 0.1) return redis.call('get', KEYS[1])", 1, {}},
      {"return redis.call('getex', KEYS[1], 'persist')", 1, {}},
      {"return {KEYS[1], ARGV[1], #KEYS, #ARGV}", 1, {&kValues}},
      {"return redis.pcall('set', KEYS[1])", 1, {}},
      {"return {redis.pcall('hget', KEYS[1], 'f'), redis.pcall('get', KEYS[1])}", 1, {}},
      {"return redis.call('hset', KEYS[1], ARGV[1], ARGV[2], ARGV[1], ARGV[2])", 1, {&kFields, &kHashValues}},
      {"return {redis.call('hkeys', KEYS[1]), redis.call('hvals', KEYS[1])}", 1, {}},
      {"return {math.huge, -math.huge, 2^53, tostring(1/3), string.format('%d|%s', 7, 'x')}", 0, {}},
      {"local t = {} for i = 1, 5 do t[i] = redis.call('incr', KEYS[1]) end return t", 1, {}},
      {"return redis.call('del', unpack(KEYS))", 2, {}},
      {"return {redis.call('ttl', KEYS[1]), redis.call('type', KEYS[1])['ok']}", 1, {}},
      {"return {pcall(error, {err='X y'})}", 0, {}},
      {"return {xpcall(function() error('in') end, function(e) return 'handled: ' .. e end)}", 0, {}},
      {"return redis.call('publish', 'ch', ARGV[1])", 0, {&kValues}},
      {"return {type(redis.call('get', KEYS[1])), redis.call('exists', KEYS[1])}", 1, {}},
      {"return redis.call('set', KEYS[1], ARGV[1], 'GET')", 1, {&kValues}},
      {"return redis.call('expire', KEYS[1], ARGV[1])", 1, {&kRelativeSeconds}},
      {"getmetatable('').x = 1 return 1", 0, {}},
      {"table.insert(_G, 1) return 1", 0, {}},
      {"return {getmetatable('').__index == string, ('ab'):upper(), #string}", 0, {}},
      {"local t = {3,1,2} table.sort(t) table.insert(t, ARGV[1]) return t", 0, {&kValues}},
  };
  return pool;
}

const PoolScript* script_by_body(const std::string& body) {
  for (const auto& s : script_pool())
    if (s.body == body) return &s;
  return nullptr;
}

const PoolScript* script_by_sha(const std::string& sha) {
  for (const auto& s : script_pool())
    if (sha1_hex(s.body) == lower(sha)) return &s;
  return nullptr;
}

// ---- generation ---------------------------------------------------------------------

// rapidcheck scales inRange/elementOf with the size parameter (small sizes draw
// only the first few choices); choices of a command are drawn at full size so
// every command and argument is as likely in short sequences as in long ones.
int uniform(int lo, int hi) { return *rc::gen::resize(100, rc::gen::inRange(lo, hi)); }
template <typename T>
T pick(const std::vector<T>& v) {
  return v[static_cast<size_t>(uniform(0, static_cast<int>(v.size())))];
}
bool chance(int percent) { return uniform(0, 100) < percent; }

void add_set_options(Command& c) {
  int n = uniform(0, 4);
  for (int i = 0; i < n; ++i) {
    switch (uniform(0, 10)) {
      case 0: c.push_back("NX"); break;
      case 1: c.push_back("xx"); break;
      case 2: c.push_back("GET"); break;
      case 3: c.push_back("KEEPTTL"); break;
      case 4: c.insert(c.end(), {"EX", pick(kRelativeSeconds)}); break;
      case 5: c.insert(c.end(), {"px", pick(kRelativeMs)}); break;
      // No past EXAT/PXAT for SET: it would store an expired key, which Redis's
      // active expiry then removes at a time of its choosing.
      case 6: c.insert(c.end(), {"EXAT", pick(std::vector<std::string>{"4102444800", "x"})}); break;
      case 7: c.insert(c.end(), {"PXAT", pick(std::vector<std::string>{"4102448400000", "0"})}); break;
      case 8: c.push_back("PERSIST"); break;
      default: c.push_back("bogus"); break;
    }
  }
}

Command gen_eval() {
  const PoolScript& s = pick(script_pool());
  const bool by_sha = chance(30);
  const bool read_only = chance(15);  // the pool's writing scripts are refused by both
  Command c{std::string(by_sha ? "EVALSHA" : "EVAL") + (read_only ? "_RO" : ""), by_sha ? sha1_hex(s.body) : s.body};
  if (chance(5)) {
    c.push_back(pick(std::vector<std::string>{"-1", "9", "x"}));
  } else {
    c.push_back(std::to_string(s.numkeys));
  }
  for (int i = 0; i < s.numkeys; ++i) c.push_back(pick(kKeys));
  for (const auto* pool : s.args) c.push_back(pick(*pool));
  return c;
}

const std::vector<std::string> kMembers = {"a", "b", "c", "1", "2", "-3", "x y", ""};
const std::vector<std::string> kScores = {"1", "2", "0", "-1.5", "inf", "-inf", "(1", "x", "1e3", "2.5"};
const std::vector<std::string> kRanks = {"0", "1", "-1", "2", "-2", "10", "x"};
const std::vector<std::string> kLex = {"-", "+", "[a", "(b", "[c", "x"};
const std::vector<std::string> kDbs = {"0", "1", "2", "15", "16", "-1", "x"};
const std::vector<std::string> kEnds = {"LEFT", "right", "up"};

// The value types and commands of issue 16: lists, sets, sorted sets, databases, more
// strings and hashes. Each typed command mostly addresses its own key (l, s, z, h).
Command gen_typed_command() {
  const std::string k = pick(kKeys);
  const std::string l = chance(85) ? "l" : k, s = chance(85) ? "s" : k, z = chance(85) ? "z" : k;
  const std::string h = chance(85) ? "h" : k;
  switch (uniform(0, 60)) {
    case 0:
    case 1: return {pick(std::vector<std::string>{"LPUSH", "RPUSH"}), l, pick(kMembers), pick(kMembers)};
    case 2: return {pick(std::vector<std::string>{"LPUSHX", "RPUSHX"}), l, pick(kMembers)};
    case 3: {
      Command c{pick(std::vector<std::string>{"LPOP", "RPOP"}), l};
      if (chance(50)) c.push_back(pick(kRanks));
      return c;
    }
    case 4: return {"LRANGE", l, pick(kRanks), pick(kRanks)};
    case 5: return {"LINDEX", l, pick(kRanks)};
    case 6: return {"LLEN", l};
    case 7: return {"LREM", l, pick(kRanks), pick(kMembers)};
    case 8: return {"LSET", l, pick(kRanks), pick(kMembers)};
    case 9: return {"LTRIM", l, pick(kRanks), pick(kRanks)};
    case 10: {
      Command c{"LPOS", l, pick(kMembers)};
      for (int n = uniform(0, 3); n > 0; --n)
        c.insert(c.end(), {pick(std::vector<std::string>{"RANK", "COUNT", "MAXLEN", "bogus"}), pick(kRanks)});
      return c;
    }
    case 11:
      return {"LINSERT", l, pick(std::vector<std::string>{"BEFORE", "after", "middle"}), pick(kMembers),
              pick(kMembers)};
    case 12: return {"LMOVE", l, pick(std::vector<std::string>{"l", "l2", k}), pick(kEnds), pick(kEnds)};
    case 13: return {"RPOPLPUSH", l, pick(std::vector<std::string>{"l", "l2"})};
    case 14:
      return {pick(std::vector<std::string>{"BLPOP", "BRPOP"}), l, pick(kKeys),
              pick(std::vector<std::string>{"0.01", "-1", "x"})};
    case 15: return {"BLMOVE", l, "l2", pick(kEnds), pick(kEnds), "0.01"};
    case 16:
    case 17: return {"SADD", s, pick(kMembers), pick(kMembers)};
    case 18: return {"SREM", s, pick(kMembers), pick(kMembers)};
    case 19: return {pick(std::vector<std::string>{"SISMEMBER", "SMISMEMBER"}), s, pick(kMembers)};
    case 20: return {pick(std::vector<std::string>{"SMEMBERS", "SCARD"}), s};
    case 21:
      return {pick(std::vector<std::string>{"SINTER", "SUNION", "SDIFF"}), s, pick(std::vector<std::string>{"s2", k})};
    case 22:
      return {pick(std::vector<std::string>{"SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"}),
              pick(std::vector<std::string>{"s2", k}), s, pick(std::vector<std::string>{"s2", "s"})};
    case 23: return {"SADD", "s2", pick(kMembers)};
    case 24: return {"SPOP", s, pick(std::vector<std::string>{"1000", "-1", "0"})};
    case 25: return {"SMOVE", s, pick(std::vector<std::string>{"s2", k}), pick(kMembers)};
    case 26: return {"SINTERCARD", pick(std::vector<std::string>{"1", "2", "0", "x"}), s, "s2"};
    case 27:
    case 28: {
      Command c{"ZADD", z};
      for (int n = uniform(0, 3); n > 0; --n)
        c.push_back(pick(std::vector<std::string>{"NX", "XX", "GT", "LT", "CH", "INCR"}));
      c.insert(c.end(), {pick(kScores), pick(kMembers)});
      if (chance(40)) c.insert(c.end(), {pick(kScores), pick(kMembers)});
      return c;
    }
    case 29: return {"ZREM", z, pick(kMembers)};
    case 30: return {pick(std::vector<std::string>{"ZSCORE", "ZRANK", "ZREVRANK"}), z, pick(kMembers)};
    case 31: return {"ZMSCORE", z, pick(kMembers), pick(kMembers)};
    case 32: return {"ZINCRBY", z, pick(kScores), pick(kMembers)};
    case 33: return {"ZCARD", z};
    case 34: return {"ZCOUNT", z, pick(kScores), pick(kScores)};
    case 35:
    case 36: {
      Command c{"ZRANGE", z};
      const int by = uniform(0, 3);
      const auto& bounds = by == 0 ? kRanks : by == 1 ? kScores : kLex;
      c.insert(c.end(), {pick(bounds), pick(bounds)});
      if (by == 1) c.push_back("BYSCORE");
      if (by == 2) c.push_back("BYLEX");
      if (chance(30)) c.push_back("REV");
      if (chance(30)) c.insert(c.end(), {"LIMIT", pick(kRanks), pick(kRanks)});
      if (chance(30)) c.push_back("WITHSCORES");
      return c;
    }
    case 37: {
      Command c{pick(std::vector<std::string>{"ZRANGEBYSCORE", "ZREVRANGEBYSCORE"}), z, pick(kScores), pick(kScores)};
      if (chance(40)) c.push_back("WITHSCORES");
      if (chance(30)) c.insert(c.end(), {"LIMIT", pick(kRanks), pick(kRanks)});
      return c;
    }
    case 38: return {"ZREVRANGE", z, pick(kRanks), pick(kRanks), "WITHSCORES"};
    case 39: return {"ZADD", "zl", "0", pick(kMembers)};
    case 40:
      return {pick(std::vector<std::string>{"ZRANGEBYLEX", "ZLEXCOUNT", "ZREMRANGEBYLEX"}), "zl", pick(kLex),
              pick(kLex)};
    case 41: return {"ZREMRANGEBYSCORE", z, pick(kScores), pick(kScores)};
    case 42: return {"ZREMRANGEBYRANK", z, pick(kRanks), pick(kRanks)};
    case 43: {
      Command c{pick(std::vector<std::string>{"ZPOPMIN", "ZPOPMAX"}), z};
      if (chance(50)) c.push_back(pick(kRanks));
      return c;
    }
    case 44: return {pick(std::vector<std::string>{"BZPOPMIN", "BZPOPMAX"}), z, "0.01"};
    case 45: return {"SELECT", pick(kDbs)};
    case 46: return {"MOVE", k, pick(kDbs)};
    case 47: return {"SWAPDB", pick(kDbs), pick(kDbs)};
    case 48: {
      Command c{"COPY", k, pick(kKeys)};
      if (chance(40)) c.insert(c.end(), {"DB", pick(kDbs)});
      if (chance(40)) c.push_back("REPLACE");
      return c;
    }
    case 49: return {pick(std::vector<std::string>{"RENAME", "RENAMENX"}), k, pick(kKeys)};
    case 50: return {pick(std::vector<std::string>{"MSET", "MSETNX"}), k, pick(kValues), pick(kKeys), pick(kValues)};
    case 51: return {"GETRANGE", k, pick(kRanks), pick(kRanks)};
    case 52: return {"SETRANGE", k, pick(std::vector<std::string>{"0", "3", "-1", "x"}), pick(kValues)};
    case 53:
      return {pick(std::vector<std::string>{"SETBIT", "GETBIT"}), k,
              pick(std::vector<std::string>{"0", "7", "13", "-1"}), pick(std::vector<std::string>{"0", "1", "2"})};
    case 54: {
      Command c{"BITCOUNT", k};
      if (chance(60)) c.insert(c.end(), {pick(kRanks), pick(kRanks)});
      if (chance(30)) c.push_back(pick(std::vector<std::string>{"BIT", "byte", "bogus"}));
      return c;
    }
    case 55: return {"INCRBYFLOAT", k, pick(std::vector<std::string>{"1", "0.1", "-2.5", "1e3", "x", "inf"})};
    case 56: return {"HINCRBYFLOAT", h, pick(kFields), pick(std::vector<std::string>{"1", "0.1", "-2.5", "x"})};
    case 57: return {"HSTRLEN", h, pick(kFields)};
    case 58: return {"OBJECT", pick(std::vector<std::string>{"ENCODING", "encoding", "refcount", "bogus"}), k};
    case 59: return {"TOUCH", k, pick(kKeys)};
    default:
      return {pick(std::vector<std::string>{"TYPE", "HSCAN", "SSCAN", "ZSCAN"}), k,
              pick(std::vector<std::string>{"0", "x"})};
  }
}

// Two versions of one library (one function each: FUNCTION LIST orders a library's
// functions by a hash seeded at random in Redis, so one function keeps it deterministic).
const std::vector<std::string> kLibraries = {
    "#!lua name=lib\nredis.register_function('f', function(keys, args) return redis.call('get', keys[1]) end)",
    "#!lua name=lib\nredis.register_function{function_name='f', callback=function(keys, args) "
    "return redis.call('incr', keys[1]) end, flags={'no-writes'}}",
    "#!lua name=lib\nreturn 1",
};

// The rest of issue 16's list, in the forms whose reply Redis does not leave to chance:
// SRANDMEMBER and HRANDFIELD with a count that takes the whole set or hash, RANDOMKEY
// only with a wrong arity, SCAN with a COUNT that takes every key (compared as a set),
// PUBSUB and unsubscribing without subscriptions (a subscribed connection would get
// messages out of step with its replies), functions, CONFIG GET, INFO of an unknown
// section, CLIENT SETNAME/GETNAME. CONFIG GET names one parameter the model has (a glob's
// matches come in Redis's hash order). Not DEBUG: the real server refuses it
// (enable-debug-command no), the model runs it.
Command gen_server_command() {
  const std::string k = pick(kKeys);
  switch (uniform(0, 15)) {
    case 0: return {"SRANDMEMBER", chance(85) ? "s" : k, pick(std::vector<std::string>{"1000", "0", "x"})};
    case 1: {
      Command c{"HRANDFIELD", chance(85) ? "h" : k, pick(std::vector<std::string>{"1000", "0", "x"})};
      if (chance(50)) c.push_back(pick(std::vector<std::string>{"WITHVALUES", "bogus"}));
      return c;
    }
    case 2: return {"RANDOMKEY", k};
    case 3: {
      Command c{"SCAN", pick(std::vector<std::string>{"0", "0", "x"}), "COUNT", "1000"};
      if (chance(40)) c.insert(c.end(), {"MATCH", pick(std::vector<std::string>{"*", "a*", "[hl]", "x"})});
      if (chance(40)) c.insert(c.end(), {"TYPE", pick(std::vector<std::string>{"string", "list", "hash", "bogus"})});
      return c;
    }
    case 4:
      switch (uniform(0, 4)) {
        case 0: return {"PUBSUB", "NUMSUB", "channel", pick(kKeys)};
        case 1: return {"PUBSUB", "NUMPAT"};
        case 2: return {"PUBSUB", "CHANNELS", pick(std::vector<std::string>{"*", "ch*"})};
        default: return {"PUBSUB", "bogus"};
      }
    case 5: {
      Command c{pick(std::vector<std::string>{"UNSUBSCRIBE", "PUNSUBSCRIBE"})};
      if (chance(50)) c.push_back(pick(std::vector<std::string>{"channel", "ch*"}));
      return c;
    }
    case 6: {
      Command c{"FUNCTION", "LOAD"};
      if (chance(50)) c.push_back("REPLACE");
      c.push_back(pick(kLibraries));
      return c;
    }
    case 7:
    case 8:
      return {pick(std::vector<std::string>{"FCALL", "FCALL_RO"}), pick(std::vector<std::string>{"f", "g"}), "1", k};
    case 9: {
      Command c{"FUNCTION", "LIST", "LIBRARYNAME", pick(std::vector<std::string>{"lib", "nolib"})};
      if (chance(30)) c.push_back("WITHCODE");
      return c;
    }
    case 10:
      return {"FUNCTION", pick(std::vector<std::string>{"DELETE", "FLUSH", "bogus"}),
              pick(std::vector<std::string>{"lib", "nolib"})};
    case 11:
      return {"CONFIG", pick(std::vector<std::string>{"GET", "bogus"}),
              pick(std::vector<std::string>{"hz", "hash-max-listpack-entries", "notify-keyspace-events", "databases",
                                            "nosuch"})};
    case 12: return {"INFO", "nosuchsection"};
    case 13: return {"CLIENT", "SETNAME", pick(std::vector<std::string>{"worker", "a b", ""})};
    default: return {"CLIENT", pick(std::vector<std::string>{"GETNAME", "bogus"})};
  }
}

// Stands for the payload that the server itself gives to DUMP of the key after it; the
// harness expands it on each server (the model's payload is its own, inside Redis's frame).
const std::string kDumpOf = "<dump of ";

// DUMP compared as "a value or nil" (payloads differ by design), RESTORE with each
// server's own payload or a damaged one, and its options and errors.
Command gen_dump_restore() {
  const std::vector<std::string> sources = {"a", "h", "l", "s", "z", "nokey"};
  if (chance(30)) return {"DUMP", pick(sources)};
  Command c{"RESTORE", pick(std::vector<std::string>{"r", "a", "z"}),
            pick(std::vector<std::string>{"0", "0", "100000", "-5", "x", "4102444800000"})};
  c.push_back(chance(85) ? kDumpOf + pick(sources) + ">" : pick(std::vector<std::string>{"garbage", ""}));
  if (chance(50)) c.push_back("REPLACE");
  if (chance(20)) c.push_back("absttl");
  if (chance(10)) c.insert(c.end(), {"IDLETIME", pick(std::vector<std::string>{"0", "10", "-1", "x"})});
  if (chance(10)) c.insert(c.end(), {"FREQ", pick(std::vector<std::string>{"0", "255", "256", "x"})});
  if (chance(5)) c.push_back("bogus");
  return c;
}

// ZRANDMEMBER in its deterministic forms only: no count on a key that is never a
// sorted set, counts of 0, a count past the set's size (the whole set, in order), and
// the malformed ones.
Command gen_zrandmember() {
  const bool with_count = chance(80);
  Command c{"ZRANDMEMBER", with_count ? pick(std::vector<std::string>{"z", "z2", "nokey", "l"})
                                      : pick(std::vector<std::string>{"nokey", "l", "s"})};
  if (!with_count) return c;
  c.push_back(pick(std::vector<std::string>{"0", "1000", "x", "9223372036854775807", "-9223372036854775808"}));
  if (chance(50)) c.push_back(pick(std::vector<std::string>{"WITHSCORES", "withscores", "bogus"}));
  return c;
}

// Multi-key pops, sorted-set algebra, LCS and SORT. SORT stays away from the inputs
// whose order Redis leaves to its hash tables: the set key s is sorted only by value
// (no constant BY; another key may hold a set too, see sort_order), and ALPHA with a
// BY pattern (ties keep the input order) only on lists.
Command gen_algebra_command() {
  const std::string k = pick(kKeys);
  const std::string l = chance(85) ? "l" : k, z = chance(85) ? "z" : k;
  const std::vector<std::string> sources = {"z", "z2", "s", "nokey", k};
  const auto keys = [&](Command& c, int n, const std::string& first) {
    c.push_back(std::to_string(n));
    for (int i = 0; i < n; ++i) c.push_back(i == 0 ? first : pick(sources));
  };
  switch (uniform(0, 14)) {
    case 0:
    case 1: {
      const bool block = chance(30);
      Command c{block ? "BLMPOP" : "LMPOP"};
      if (block) c.push_back(pick(std::vector<std::string>{"0.01", "-1", "x"}));
      keys(c, uniform(1, 3), l);
      for (auto& key : c)
        if (key == "z" || key == "z2") key = "l2";
      c.push_back(pick(std::vector<std::string>{"LEFT", "right", "middle"}));
      if (chance(50)) c.insert(c.end(), {"COUNT", pick(kRanks)});
      return c;
    }
    case 2:
    case 3: {
      const bool block = chance(30);
      Command c{block ? "BZMPOP" : "ZMPOP"};
      if (block) c.push_back(pick(std::vector<std::string>{"0.01", "-1", "x"}));
      keys(c, uniform(1, 3), z);
      c.push_back(pick(std::vector<std::string>{"MIN", "max", "mid"}));
      if (chance(50)) c.insert(c.end(), {"COUNT", pick(kRanks)});
      return c;
    }
    case 4:
    case 5:
    case 6: {
      const std::string op = pick(std::vector<std::string>{"ZUNION", "ZINTER", "ZDIFF"});
      const bool store = chance(40);
      Command c{store ? op + "STORE" : op};
      if (store) c.push_back(pick(std::vector<std::string>{"z3", "z", k}));
      const int n = uniform(1, 4);
      keys(c, chance(90) ? n : pick(std::vector<int>{0, 5}), z);
      if (chance(40)) {
        c.push_back("WEIGHTS");
        for (int i = 0; i < n; ++i) c.push_back(pick(kScores));
      }
      if (chance(40)) c.insert(c.end(), {"AGGREGATE", pick(std::vector<std::string>{"SUM", "min", "MAX", "avg"})});
      if (chance(40)) c.push_back("WITHSCORES");
      return c;
    }
    case 7: {
      Command c{"ZINTERCARD"};
      keys(c, uniform(1, 3), z);
      if (chance(40)) c.insert(c.end(), {"LIMIT", pick(kRanks)});
      return c;
    }
    case 8:
      if (chance(20)) return {"WAIT", "0", pick(std::vector<std::string>{"0", "-1", "x", "1.5"})};
      return {"ZADD", "z2", pick(kScores), pick(kMembers)};
    case 9: {
      Command c{"LCS", k, pick(kKeys)};
      for (int n = uniform(0, 3); n > 0; --n) {
        switch (uniform(0, 5)) {
          case 0: c.push_back("LEN"); break;
          case 1: c.push_back("IDX"); break;
          case 2: c.push_back("WITHMATCHLEN"); break;
          case 3: c.insert(c.end(), {"MINMATCHLEN", pick(kRanks)}); break;
          default: c.push_back("bogus"); break;
        }
      }
      return c;
    }
    case 12: return gen_dump_restore();
    case 13: return gen_zrandmember();
    default: {
      const std::string key = pick(std::vector<std::string>{"l", "z", "s", k});
      const bool ro = chance(20);
      Command c{ro ? "SORT_RO" : "SORT", key};
      const bool is_list = key == "l", is_set = key == "s";
      bool alpha = false, by_pattern = false;
      for (int n = uniform(0, 4); n > 0; --n) {
        switch (uniform(0, 7)) {
          case 0: c.push_back(pick(std::vector<std::string>{"ASC", "desc"})); break;
          case 1: alpha = true; break;
          case 2: c.insert(c.end(), {"LIMIT", pick(kRanks), pick(kRanks)}); break;
          case 3:
            if (!is_set) c.insert(c.end(), {"BY", "nosort"});
            break;
          case 4:
            by_pattern = true;
            c.insert(c.end(), {"BY", pick(std::vector<std::string>{"w_*", "h_*->f"})});
            break;
          case 5: c.insert(c.end(), {"GET", pick(std::vector<std::string>{"#", "w_*", "h_*->f", "nostar"})}); break;
          default: c.insert(c.end(), {"STORE", pick(std::vector<std::string>{"dst", k})}); break;
        }
      }
      if (alpha && by_pattern && is_list) {  // LIMIT with BY sorts partially: ties may land in any order
        for (size_t i = 2; i + 2 < c.size();)
          if (c[i] == "LIMIT")
            c.erase(c.begin() + static_cast<long>(i), c.begin() + static_cast<long>(i) + 3);
          else
            ++i;
      }
      if (alpha && (!by_pattern || is_list)) c.push_back("ALPHA");
      return c;
    }
  }
}

Command gen_command() {
  if (chance(35)) return gen_typed_command();
  if (chance(15)) return gen_algebra_command();
  if (chance(8)) return gen_server_command();
  const std::string k = pick(kKeys);
  switch (uniform(0, 48)) {
    case 0:
    case 1: return {"GET", k};
    case 2:
    case 3:
    case 4: {
      Command c{"SET", k, pick(kValues)};
      add_set_options(c);
      return c;
    }
    case 5: return {"SETNX", k, pick(kValues)};
    case 6: return {"GETSET", k, pick(kValues)};
    case 7: return {"GETDEL", k};
    case 8: {
      Command c{"GETEX", k};
      switch (uniform(0, 7)) {
        case 0: c.insert(c.end(), {"EX", pick(kRelativeSeconds)}); break;
        case 1: c.insert(c.end(), {"PX", pick(kRelativeMs)}); break;
        case 2: c.insert(c.end(), {"EXAT", pick(kAbsoluteSeconds)}); break;
        case 3: c.insert(c.end(), {"PXAT", pick(kAbsoluteMs)}); break;
        case 4: c.push_back("PERSIST"); break;
        case 5: c.insert(c.end(), {"PERSIST", "EX", "100"}); break;
        default: break;
      }
      return c;
    }
    case 9: return {"MGET", k, pick(kKeys), pick(kKeys)};
    case 10: return {"INCR", k};
    case 11: return {"INCRBY", k, pick(kIntegers)};
    case 12: return {"DECR", k};
    case 13: return {"DECRBY", k, pick(kIntegers)};
    case 14: return {"APPEND", k, pick(kValues)};
    case 15: return {"STRLEN", k};
    case 16: return {pick(std::vector<std::string>{"DEL", "UNLINK"}), k, pick(kKeys)};
    case 17: return {"EXISTS", k, pick(kKeys)};
    case 18: return {"TYPE", k};
    case 19:
    case 20: {
      const bool seconds = chance(50);
      Command c{seconds ? "EXPIRE" : "PEXPIRE", k, seconds ? pick(kRelativeSeconds) : pick(kRelativeMs)};
      if (chance(40)) c.push_back(pick(std::vector<std::string>{"NX", "XX", "nx", "bogus"}));
      return c;
    }
    case 21:
    case 22: {
      const bool seconds = chance(50);
      Command c{seconds ? "EXPIREAT" : "PEXPIREAT", k, seconds ? pick(kAbsoluteSeconds) : pick(kAbsoluteMs)};
      int n = uniform(0, 3);
      for (int i = 0; i < n; ++i) c.push_back(pick(std::vector<std::string>{"NX", "XX", "GT", "LT", "gt", "foo"}));
      return c;
    }
    case 23: return {pick(std::vector<std::string>{"TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME"}), k};
    case 24: return {"PERSIST", k};
    case 25: return {"KEYS", pick(kPatterns)};
    case 26: return {"DBSIZE"};
    case 27:
    case 28: {
      Command c{"HSET", "h", pick(kFields), pick(kHashValues)};
      if (chance(30)) c.insert(c.end(), {pick(kFields), pick(kHashValues)});
      if (chance(10)) c.insert(c.end(), {c[2], pick(kHashValues)});  // the same field twice
      if (chance(10)) c[1] = k;
      return c;
    }
    case 29: return {"HSETNX", chance(80) ? "h" : k, pick(kFields), pick(kHashValues)};
    case 30: return {"HGET", chance(80) ? "h" : k, pick(kFields)};
    case 31: return {"HDEL", chance(80) ? "h" : k, pick(kFields), pick(kFields)};
    case 32: return {"HEXISTS", chance(80) ? "h" : k, pick(kFields)};
    case 33: return {"HINCRBY", chance(80) ? "h" : k, pick(kFields), pick(kIntegers)};
    case 34: return {pick(std::vector<std::string>{"HGETALL", "HKEYS", "HVALS", "HLEN"}), chance(80) ? "h" : k};
    case 35: return {"HMGET", chance(80) ? "h" : k, pick(kFields), pick(kFields)};
    case 36: return {"MULTI"};
    case 37: return {"EXEC"};
    case 38: return {pick(std::vector<std::string>{"DISCARD", "UNWATCH"})};
    case 39: return {"WATCH", k};
    case 40:
    case 41:
    case 42: return gen_eval();
    case 43: {
      switch (uniform(0, 4)) {
        case 0: return {"SCRIPT", "LOAD", pick(script_pool()).body};
        case 1: return {"SCRIPT", "EXISTS", sha1_hex(pick(script_pool()).body), "0123"};
        case 2: return {"SCRIPT", "FLUSH"};
        default: return {"SCRIPT", "bogus"};
      }
    }
    case 44: return {"PING"};
    case 45: return {"ECHO", pick(kValues)};
    case 46:
      if (chance(30)) return {"SET", "w_" + pick(kMembers), pick(kIntegers)};  // weights for SORT BY / GET
      if (chance(30)) return {"HSET", "h_" + pick(kMembers), "f", pick(kIntegers)};
      return {"PUBLISH", "channel", pick(kValues)};
    default: return {pick(std::vector<std::string>{"FLUSHALL", "NOSUCHCMD", "FLUSHDB"})};
  }
}

struct Step {
  int conn = 0;
  Command command;
};

void showValue(const Step& step, std::ostream& os) {
  os << "[c" << step.conn << "]";
  for (const auto& arg : step.command) os << ' ' << to_string(Reply::bulk(arg));
}

bool is_blocking(const Command& command) {
  static const std::vector<std::string> kBlocking{"BLPOP",    "BRPOP",    "BLMOVE", "BRPOPLPUSH",
                                                  "BZPOPMIN", "BZPOPMAX", "BLMPOP", "BZMPOP"};
  return std::find(kBlocking.begin(), kBlocking.end(), command[0]) != kBlocking.end();
}

// A step: which connection, and the command, sometimes with its arity or name mangled.
rc::Gen<Step> gen_step() {
  return rc::gen::exec([] {
    Step step;
    step.conn = chance(75) ? 0 : 1;
    step.command = gen_command();
    const int mangle = uniform(0, 100);
    if (mangle < 4 && step.command.size() > 1) {
      step.command.pop_back();
    } else if (mangle < 8 && !is_blocking(step.command) && !lower(step.command[0]).ends_with("unsubscribe")) {
      // (UNSUBSCRIBE answers once per channel: a second channel would put hiredis out of step.)
      // A value appended to a blocking command becomes its timeout: "0" blocks real Redis forever.
      step.command.push_back(pick(kValues));
    } else if (mangle < 16) {
      std::string& name = step.command[0];
      for (char& c : name) c = static_cast<char>(chance(50) ? std::tolower(c) : std::toupper(c));
    }
    // SPOP without a count (a dropped argument) pops a member at random: Redis's pick is
    // not the model's. A count larger than the set pops all, which both agree on.
    // ZRANDMEMBER, SRANDMEMBER and HRANDFIELD without a count are the same draw.
    const std::string name = lower(step.command[0]);
    if ((name == "spop" || name == "zrandmember" || name == "srandmember" || name == "hrandfield") &&
        step.command.size() == 2)
      step.command.push_back("1000");
    // Nor a RANDOMKEY that lost its extra argument, nor a whole INFO (uptime, memory, ...).
    if (name == "randomkey" && step.command.size() == 1) step.command.push_back("x");
    if (name == "info" && step.command.size() == 1) step.command.push_back("nosuchsection");
    return step;
  });
}

// ---- comparison ----------------------------------------------------------------------

// How far an integer reply may differ between the two servers (see the header comment).
int64_t tolerance_for(const Command& c) {
  const std::string name = lower(c[0]);
  if (name == "pttl" || name == "pexpiretime") return 1000;
  // TTL rounds (pttl + 500) / 1000, so the few ms between the two clocks never
  // change it; EXPIRETIME rounds an absolute deadline, which may sit on a boundary.
  if (name == "expiretime") return 1;
  if (name.starts_with("eval") && c.size() > 1) {
    const PoolScript* s = name.starts_with("evalsha") ? script_by_sha(c[1]) : script_by_body(c[1]);
    if (s && s->returns_time) return 1000;
  }
  return 0;
}

// SORT with a BY pattern that has no '*' does not sort, and a set then comes in
// Redis's hash order (it sorts one only to STORE it or inside a script): such a
// reply is compared as a set, and with a LIMIT, which takes a slice of that
// order, by its length only.
enum class SortOrder { Sorted, Unordered, UnorderedSlice };
SortOrder sort_order(const Command& c) {
  bool dont_sort = false, limit = false;
  for (size_t i = 2; i < c.size(); ++i) {
    const std::string arg = lower(c[i]);
    if (arg == "store") return SortOrder::Sorted;
    if (arg == "limit") limit = true;
    if (arg == "by" && i + 1 < c.size() && c[i + 1].find('*') == std::string::npos) dont_sort = true;
  }
  if (!dont_sort) return SortOrder::Sorted;
  return limit ? SortOrder::UnorderedSlice : SortOrder::Unordered;
}

Reply normalized(Reply r, const Command& c) {
  if (r.type == Reply::Type::NilArray) r = Reply::nil();  // hiredis reads both as nil
  const std::string name = lower(c[0]);
  if (name == "dump" && r.type == Reply::Type::Bulk) r.str = "<payload>";  // the model's payload is its own
  // Redis lists a set held as a hash table in its own hash order; compare as sets.
  const bool unordered = name == "keys" || name == "smembers" || name == "sinter" || name == "sunion" ||
                         name == "sdiff" || name == "spop" || name == "srandmember";
  const SortOrder order = name == "sort" || name == "sort_ro" ? sort_order(c) : SortOrder::Sorted;
  if ((unordered || order == SortOrder::Unordered) && r.type == Reply::Type::Array)
    std::sort(r.elements.begin(), r.elements.end(),
              [](const Reply& x, const Reply& y) { return std::tie(x.str, x.type) < std::tie(y.str, y.type); });
  if (order == SortOrder::UnorderedSlice && r.type == Reply::Type::Array)
    for (Reply& e : r.elements) e = Reply::bulk("<some element>");
  // SCAN's keys come in each server's own hash order; a COUNT of 1000 takes them all.
  if (name == "scan" && r.type == Reply::Type::Array && r.elements.size() == 2)
    std::sort(r.elements[1].elements.begin(), r.elements[1].elements.end(),
              [](const Reply& x, const Reply& y) { return x.str < y.str; });
  return r;
}

bool same(const Reply& model, const Reply& real, int64_t tolerance) {
  if (model.type != real.type) return false;
  switch (model.type) {
    case Reply::Type::Integer: return std::llabs(model.integer - real.integer) <= tolerance;
    case Reply::Type::Array:
      if (model.elements.size() != real.elements.size()) return false;
      for (size_t i = 0; i < model.elements.size(); ++i)
        if (!same(model.elements[i], real.elements[i], tolerance)) return false;
      return true;
    default: return model == real;
  }
}

struct Harness {
  Harness() : real(real_server()) {
    for (auto& c : real_conn) c = real.connect();
    real_aux = real.connect();
  }
  ~Harness() {
    for (auto* c : real_conn) redisFree(c);
    redisFree(real_aux);
  }

  void reset() {
    for (auto* c : real_conn) {
      hiredis_execute(c, {"DISCARD"});
      hiredis_execute(c, {"UNWATCH"});
    }
    for (auto* c : real_conn) hiredis_execute(c, {"SELECT", "0"});
    hiredis_execute(real_conn[0], {"FLUSHALL"});
    hiredis_execute(real_conn[0], {"SCRIPT", "FLUSH"});
    hiredis_execute(real_conn[0], {"FUNCTION", "FLUSH"});
    for (auto* c : real_conn) hiredis_execute(c, {"CLIENT", "SETNAME", ""});
    model = Server{};
    model_conn[0] = model.connect();
    model_conn[1] = model.connect();
    model_aux = model.connect();
    for (auto& q : queued) q.clear();
  }

  // Runs the steps on both; returns a description of the first divergence, or "".
  std::string run(const std::vector<Step>& steps) {
    reset();
    std::ostringstream log;
    for (size_t i = 0; i < steps.size(); ++i) {
      const Step& s = steps[i];
      Reply model_reply = model.execute(model_conn[s.conn], with_payloads(s.command, true), wall_ms());
      const Reply real_reply = hiredis_execute(real_conn[s.conn], with_payloads(s.command, false));
      if (model_reply.is_blocked()) {  // the real one waited out its short timeout meanwhile
        model.advance(wall_ms() + 1000);
        auto pushed = model.take_pushed(model_conn[s.conn]);
        model_reply = pushed.empty() ? Reply::error("model: still blocked") : pushed.front();
      }
      ++commands_seen[lower(s.command[0])];
      std::string shown;
      for (const auto& a : s.command) shown += (shown.empty() ? "" : " ") + to_string(Reply::bulk(a));
      log << "  [c" << s.conn << "] " << shown << " -> " << to_string(real_reply) << "\n";
      if (!matches(s, model_reply, real_reply)) {
        log << "DIVERGENCE at step " << i << ": model said " << to_string(model_reply) << "\n";
        return log.str();
      }
    }
    return {};
  }

  // The command with each "<dump of K>" replaced by what that server's DUMP K gives, asked
  // on a connection of its own (never inside the step connection's MULTI).
  Command with_payloads(Command c, bool on_model) {
    for (auto& arg : c) {
      if (arg.rfind(kDumpOf, 0) != 0 || arg.back() != '>') continue;
      const Command dump{"DUMP", arg.substr(kDumpOf.size(), arg.size() - kDumpOf.size() - 1)};
      const Reply r = on_model ? model.execute(model_aux, dump, wall_ms()) : hiredis_execute(real_aux, dump);
      arg = r.type == Reply::Type::Bulk ? r.str : "no payload";
    }
    return c;
  }

  bool matches(const Step& s, const Reply& model_reply, const Reply& real_reply) {
    const std::string name = lower(s.command[0]);
    auto& q = queued[s.conn];
    if (real_reply == Reply::status("QUEUED")) q.push_back(s.command);
    if (name == "exec" && real_reply.type == Reply::Type::Array && model_reply.type == Reply::Type::Array &&
        model_reply.elements.size() == q.size() && real_reply.elements.size() == q.size()) {
      bool ok = true;
      for (size_t i = 0; i < q.size(); ++i)
        ok = ok && same(normalized(model_reply.elements[i], q[i]), normalized(real_reply.elements[i], q[i]),
                        tolerance_for(q[i]));
      q.clear();
      return ok;
    }
    if (name == "exec" || name == "discard") q.clear();
    return same(normalized(model_reply, s.command), normalized(real_reply, s.command), tolerance_for(s.command));
  }

  RealRedis& real;
  redisContext* real_conn[2] = {nullptr, nullptr};
  redisContext* real_aux = nullptr;  // for the DUMPs of with_payloads()
  Server model;
  ConnectionId model_conn[2] = {0, 0};
  ConnectionId model_aux = 0;
  std::vector<Command> queued[2];
  std::map<std::string, size_t> commands_seen;  // by lowercase name, for the report
};

}  // namespace

TEST_CASE("Differential: generated command sequences agree with redis-server", "[differential]") {
  if (find_redis_server().empty())
    FAIL("redis-server not found on PATH: install the redis-server package (7.0) to run the differential tests");
  Harness harness;
  size_t sequences = 0, commands = 0;
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  if (params.maxSuccess == rc::detail::TestParams{}.maxSuccess) params.maxSuccess = 2000;  // unless RC_PARAMS says
  params.maxSize = std::min(params.maxSize, 60);
  const auto result = rc::detail::checkTestable(
      [&] {
        const auto steps = *rc::gen::container<std::vector<Step>>(gen_step());
        ++sequences;
        commands += steps.size();
        const std::string divergence = harness.run(steps);
        RC_LOG() << divergence;
        RC_ASSERT(divergence.empty());
      },
      rc::detail::TestMetadata{"differential", "model vs redis-server"}, params);
  std::ostringstream report;
  rc::detail::printResultMessage(result, report);
  INFO(report.str());
  CHECK(result.template is<rc::detail::SuccessResult>());
  WARN("differential: " << sequences << " generated sequences, " << commands << " commands compared");
  // Every command kind of the generator must actually have been exercised.
  for (const char* name :
       {"get",         "set",        "getex",     "hset",    "hincrby",     "hgetall",     "multi",
        "exec",        "watch",      "eval",      "evalsha", "script",      "expireat",    "keys",
        "flushall",    "nosuchcmd",  "dump",      "restore", "zrandmember", "eval_ro",     "evalsha_ro",
        "srandmember", "hrandfield", "randomkey", "scan",    "pubsub",      "unsubscribe", "punsubscribe",
        "function",    "fcall",      "fcall_ro",  "config",  "info",        "client"}) {
    INFO("command " << name);
    CHECK(harness.commands_seen[name] >= static_cast<size_t>(params.maxSuccess / 100));
  }
  CHECK(sequences >= static_cast<size_t>(params.maxSuccess));
}

TEST_CASE("Differential: expiry with the model clock advanced past a deadline", "[differential]") {
  RealRedis& real = real_server();
  redisContext* a = real.connect();
  redisContext* b = real.connect();
  hiredis_execute(a, {"FLUSHALL"});
  Server model;
  auto ma = model.connect();
  auto mb = model.connect();
  int64_t now = 1'700'000'000'000;
  std::vector<std::pair<Reply, Reply>> pairs;
  auto both = [&](redisContext* rc, ConnectionId mc, const Command& c) {
    pairs.emplace_back(model.execute(mc, c, now), hiredis_execute(rc, c));
  };
  both(a, ma, {"SET", "lock", "tokA", "NX", "PX", "300"});
  both(a, ma, {"HSET", "rlock", "A:1", "1"});
  both(a, ma, {"PEXPIRE", "rlock", "300"});
  both(b, mb, {"SET", "lock", "tokB", "NX", "PX", "300"});
  both(a, ma, {"WATCH", "lock"});
  std::this_thread::sleep_for(std::chrono::milliseconds(450));
  now += 450;
  both(a, ma, {"MULTI"});
  both(a, ma, {"SET", "lock", "tokA2"});
  both(a, ma, {"EXEC"});  // the watched key expired: a null array
  both(b, mb, {"PTTL", "lock"});
  both(b, mb, {"GET", "lock"});
  both(b, mb, {"EXISTS", "rlock"});
  both(b, mb, {"EVAL", kCompareAndDelete, "1", "lock", "tokA"});
  both(b, mb, {"SET", "lock", "tokB", "NX", "PX", "100000"});
  both(b, mb, {"EVAL", kRedissonLock, "1", "rlock", "100000", "B:1"});
  both(b, mb, {"DBSIZE"});
  redisFree(a);
  redisFree(b);
  for (auto& [model_reply, real_reply] : pairs) {
    INFO("model " << to_string(model_reply) << " real " << to_string(real_reply));
    CHECK(same(normalized(model_reply, {"x"}), normalized(real_reply, {"x"}), 0));
  }
  CHECK(to_string(pairs[7].first) == "(nil array)");
  CHECK(to_string(pairs[9].first) == "(nil)");
}

TEST_CASE("Differential: the console prints what redis-cli --no-raw prints", "[differential]") {
  RealRedis& real = real_server();
  redisContext* c = real.connect();
  hiredis_execute(c, {"FLUSHALL"});
  hiredis_execute(c, {"SCRIPT", "FLUSH"});
  redisFree(c);
  const std::string script =
      "set lock tokA NX PX 100000\n"
      "set lock tokB NX PX 100000\n"
      "get lock\n"
      "ttl lock\n"
      "\n"
      "set 'quoted key' \"a\\nb\\x01\\xff\\\"c\"\n"
      "get 'quoted key'\n"
      "mget lock nokey 'quoted key'\n"
      "eval \"return {1,{2,{3,'x'}},{},'\\\\1', {err='inner'}, {ok='fine'}}\" 0\n"
      "eval \"return redis.call('get',KEYS[1])==ARGV[1] and redis.call('del',KEYS[1]) or 0\" 1 lock tokA\n"
      "hset h f1 v1 f2 v2 f3 v3 f4 v4 f5 v5 f6 v6 f7 v7 f8 v8 f9 v9 f10 v10\n"
      "hgetall h\n"
      "hkeys nokey\n"
      "incr lock\n"
      "foo bar 'baz qux'\n"
      "get\n"
      "set k v ex 0\n"
      "multi\n"
      "incr counter\n"
      "get counter\n"
      "exec\n"
      "exists lock h counter\n"
      "type h\n"
      "echo \"tab\\there\"\n"
      "ping\n"
      "evalsha 0000000000000000000000000000000000000000 0\n"
      "eval \"error('boom')\" 0\n";
  char path[] = "/tmp/locksim-console-XXXXXX";
  int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  ::close(fd);
  std::ofstream(path) << script;
  const std::string command = "redis-cli -s '" + real.socket_path() + "' --no-raw < '" + std::string(path) + "' 2>&1";
  std::string cli_output;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[4096];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) cli_output.append(buffer, n);
    ::pclose(pipe);
  }
  ::unlink(path);
  std::istringstream in(script);
  std::ostringstream out, err;
  run_console(in, out, err);
  CHECK(err.str().empty());
  CHECK(out.str() == cli_output);
}
