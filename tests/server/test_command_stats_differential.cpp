// INFO commandstats, errorstats and total_error_replies of `locksim serve` against a
// real redis-server 7.0.15: the same command sequences, each after CONFIG RESETSTAT, on
// both, and the counts compared (calls, rejected_calls, failed_calls; usec is not
// measured by the model, so it is not compared).
#include <catch2/catch.hpp>
#include <hiredis/hiredis.h>

#include <unistd.h>

#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "locksim/real/process.hpp"
#include "raw_client.hpp"
#include "server_fixture.hpp"

using namespace locksim::server;
using namespace locksim::server::testing;

namespace {

// One server under test, with two clients (a second one for blocking commands) and a way
// to open raw connections (RESP3 replies, which this hiredis cannot read).
struct StatsSide {
  virtual ~StatsSide() = default;
  virtual redisContext* open() = 0;
  virtual std::unique_ptr<RawClient> raw() = 0;
  redisContext* a = nullptr;
  redisContext* b = nullptr;
  std::vector<std::string> replies;  // of the sequence's commands, in order
  void connect_both() {
    a = open();
    b = open();
  }
  void close_both() {
    if (a) redisFree(a);
    if (b) redisFree(b);
    a = b = nullptr;
  }
};

struct RealSide : StatsSide {
  RealSide() : dir("locksim-cmdstats"), process(options(dir.path())) {
    process.start();
    connect_both();
  }
  ~RealSide() override { close_both(); }
  static locksim::real::RedisOptions options(const std::string& path) {
    locksim::real::RedisOptions o;
    o.binary = locksim::real::find_redis_server();
    if (o.binary.empty()) throw std::runtime_error("redis-server not found on PATH: install the redis-server package");
    o.dir = path;
    return o;
  }
  redisContext* open() override {
    redisContext* ctx = redisConnectUnix(process.socket_path().c_str());
    if (!ctx || ctx->err) throw std::runtime_error("cannot connect to redis-server");
    redisSetTimeout(ctx, timeval{10, 0});
    return ctx;
  }
  std::unique_ptr<RawClient> raw() override { return std::make_unique<RawClient>(process.socket_path()); }
  locksim::real::TempDir dir;
  locksim::real::RedisProcess process;
};

struct ServeSide : StatsSide {
  ServeSide() : running(test_options(TimeMode::Wall)) { connect_both(); }
  ~ServeSide() override { close_both(); }
  redisContext* open() override {
    redisContext* ctx = redisConnect("127.0.0.1", running.port());
    if (!ctx || ctx->err) throw std::runtime_error("cannot connect to locksim serve");
    redisSetTimeout(ctx, timeval{10, 0});
    return ctx;
  }
  std::unique_ptr<RawClient> raw() override { return std::make_unique<RawClient>(running.port()); }
  RunningServer running;
};

std::string run_argv(redisContext* ctx, const std::vector<std::string>& args) {
  std::vector<const char*> argv;
  std::vector<size_t> lens;
  for (const auto& a : args) {
    argv.push_back(a.data());
    lens.push_back(a.size());
  }
  auto* reply = static_cast<redisReply*>(redisCommandArgv(ctx, static_cast<int>(args.size()), argv.data(), lens.data()));
  if (!reply) return "(connection error)";
  std::string out = Hiredis::format(reply);
  freeReplyObject(reply);
  return out;
}

std::string info(redisContext* ctx, const std::string& section) { return run_argv(ctx, {"INFO", section}); }

// The counts both servers report, usec left out.
struct StatsSnapshot {
  std::map<std::string, std::tuple<std::string, std::string, std::string>> commands;  // calls, rejected, failed
  std::map<std::string, std::string> errors;
  std::string total_error_replies;
  bool operator==(const StatsSnapshot&) const = default;
};

std::string stat_field(const std::string& line, const std::string& key) {
  const size_t at = line.find(key + "=");
  if (at == std::string::npos) return "(missing)";
  const size_t start = at + key.size() + 1;
  return line.substr(start, line.find(',', start) - start);
}

// Reads the three INFO sections in one call each, in the same order on both sides (the
// INFO calls themselves count, equally on both).
StatsSnapshot snapshot(redisContext* ctx) {
  StatsSnapshot s;
  const std::string all = info(ctx, "commandstats") + "\n" + info(ctx, "errorstats") + "\n" + info(ctx, "stats");
  std::istringstream lines(all);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.starts_with("\"")) line.erase(0, 1);
    if (line.starts_with("cmdstat_")) {
      const std::string name = line.substr(8, line.find(':') - 8);
      s.commands[name] = {stat_field(line, "calls"), stat_field(line, "rejected_calls"),
                          stat_field(line, "failed_calls")};
    } else if (line.starts_with("errorstat_")) {
      s.errors[line.substr(10, line.find(':') - 10)] = stat_field(line, "count");
    } else if (line.starts_with("total_error_replies:")) {
      s.total_error_replies = line.substr(20);
    }
  }
  return s;
}

std::string describe(const StatsSnapshot& s) {
  std::string out;
  for (const auto& [name, c] : s.commands)
    out += name + " calls=" + std::get<0>(c) + " rejected=" + std::get<1>(c) + " failed=" + std::get<2>(c) + "\n";
  for (const auto& [code, n] : s.errors) out += "errorstat " + code + "=" + n + "\n";
  return out + "total_error_replies=" + s.total_error_replies + "\n";
}

using Sequence = std::function<void(StatsSide&)>;

void cmd(StatsSide& side, std::vector<std::string> args) { side.replies.push_back(run_argv(side.a, args)); }

// Runs `sequence` after a clean start on both servers and compares what they count.
void compare(RealSide& real, ServeSide& serve, const char* name, const Sequence& sequence) {
  StatsSnapshot got[2];
  StatsSide* sides[2] = {&real, &serve};
  for (int i = 0; i < 2; ++i) {
    StatsSide& side = *sides[i];
    run_argv(side.a, {"FLUSHALL"});
    run_argv(side.a, {"FUNCTION", "FLUSH"});
    run_argv(side.a, {"CONFIG", "RESETSTAT"});
    side.replies.clear();
    sequence(side);
    got[i] = snapshot(side.a);
  }
  INFO("sequence: " << name << "\nredis-server:\n" << describe(got[0]) << "locksim serve:\n" << describe(got[1]));
  CHECK(got[0] == got[1]);
  // The replies counted are the same replies.
  CHECK(real.replies == serve.replies);
}

}  // namespace

TEST_CASE("INFO commandstats and errorstats as redis-server counts them", "[server][commandstats]") {
  RealSide real;
  ServeSide serve;

  compare(real, serve, "plain commands and errors", [](StatsSide& s) {
    cmd(s, {"SET", "k", "v"});
    cmd(s, {"GET", "k"});
    cmd(s, {"LPUSH", "k", "x"});  // WRONGTYPE
    cmd(s, {"GET"});              // arity
    cmd(s, {"NOSUCHCOMMAND", "a"});
    cmd(s, {"CONFIG", "FOO"});
    cmd(s, {"CONFIG", "GET"});
    cmd(s, {"CONFIG", "GET", "maxmemory-policy"});
    cmd(s, {"INCR", "k"});  // not an integer
    cmd(s, {"SET", "k", "v", "EX", "-1"});
    cmd(s, {"OBJECT", "NOSUCH", "k"});
    cmd(s, {"OBJECT", "ENCODING"});
    cmd(s, {"OBJECT", "ENCODING", "k"});
    cmd(s, {"CLIENT"});
    cmd(s, {"COMMAND", "NOSUCH"});
    cmd(s, {"COMMAND", "COUNT", "x"});
  });

  compare(real, serve, "MULTI/EXEC with a failing queued command", [](StatsSide& s) {
    cmd(s, {"SET", "k", "v"});
    cmd(s, {"MULTI"});
    cmd(s, {"INCR", "k"});
    cmd(s, {"GET", "k"});
    cmd(s, {"EXEC"});
  });

  compare(real, serve, "MULTI/EXEC of commands the front-end answers", [](StatsSide& s) {
    cmd(s, {"MULTI"});
    cmd(s, {"CLIENT", "GETNAME"});
    cmd(s, {"PING"});
    cmd(s, {"CONFIG", "GET", "maxmemory-policy"});
    cmd(s, {"CONFIG", "SET", "nosuchparameter", "1"});
    cmd(s, {"CONFIG", "SET", "maxmemory", "0"});
    cmd(s, {"CONFIG", "RESETSTAT"});
    cmd(s, {"EXEC"});
    cmd(s, {"MULTI"});
    cmd(s, {"CONFIG", "GET"});
    cmd(s, {"CLIENT", "NOSUCH"});
    cmd(s, {"CLIENT", "SETNAME"});
    cmd(s, {"CONFIG", "NOSUCH"});
    cmd(s, {"CONFIG"});
    cmd(s, {"EXEC"});
  });

  compare(real, serve, "MULTI/EXEC of a failing script, SELECT, a BLPOP and a WATCH abort", [](StatsSide& s) {
    cmd(s, {"SET", "k", "v"});
    cmd(s, {"MULTI"});
    cmd(s, {"EVAL", "return redis.call('lpush', KEYS[1], 'x')", "1", "k"});
    cmd(s, {"SELECT", "1"});
    cmd(s, {"SELECT", "0"});
    cmd(s, {"BLPOP", "nolist", "0"});
    cmd(s, {"EXEC"});
    cmd(s, {"WATCH", "k"});
    run_argv(s.b, {"SET", "k", "w"});
    cmd(s, {"MULTI"});
    cmd(s, {"GET", "k"});
    cmd(s, {"EXEC"});
  });

  compare(real, serve, "EXECABORT after a queued arity error", [](StatsSide& s) {
    cmd(s, {"MULTI"});
    cmd(s, {"SET", "k"});
    cmd(s, {"GET", "k"});
    cmd(s, {"EXEC"});
    cmd(s, {"EXEC"});  // without MULTI
    cmd(s, {"DISCARD"});
  });

  compare(real, serve, "EVAL: redis.call and redis.pcall errors", [](StatsSide& s) {
    cmd(s, {"SET", "k", "v"});
    cmd(s, {"EVAL", "return redis.call('lpush', KEYS[1], 'x')", "1", "k"});
    cmd(s, {"EVAL", "return redis.pcall('lpush', KEYS[1], 'x')", "1", "k"});
    cmd(s, {"EVAL", "local r = redis.pcall('lpush', KEYS[1], 'x') return 1", "1", "k"});
    cmd(s, {"EVAL", "return redis.error_reply('MY custom')", "0"});
    cmd(s, {"EVAL", "return {err='OTHER thing'}", "0"});
    cmd(s, {"EVAL", "error('raised')", "0"});
    cmd(s, {"EVAL", "return redis.call('multi')", "0"});
    cmd(s, {"EVAL", "return redis.pcall('multi')", "0"});
    cmd(s, {"EVAL", "return redis.call('get')", "0"});
    cmd(s, {"EVAL", "return redis.call('nosuch')", "0"});
    cmd(s, {"EVAL", "return redis.call('get', KEYS[1])", "1", "k"});
    cmd(s, {"EVAL", "return 1"});  // arity
    cmd(s, {"EVAL", "return 1", "x"});
    cmd(s, {"EVALSHA", "0000000000000000000000000000000000000000", "0"});
    cmd(s, {"EVAL", "return redis.call('client', 'getname')", "0"});
    cmd(s, {"EVAL", "return redis.pcall('config', 'get', 'maxmemory-policy')", "0"});
    cmd(s, {"EVAL", "return redis.call('ping')", "0"});
    cmd(s, {"EVAL", "return redis.call('echo', 'x', 'y')", "0"});
  });

  compare(real, serve, "EVAL_RO with a write", [](StatsSide& s) {
    cmd(s, {"EVAL_RO", "return redis.call('set', 'k', 'v')", "0"});
    cmd(s, {"EVAL_RO", "return redis.pcall('set', 'k', 'v')", "0"});
    cmd(s, {"EVAL_RO", "return redis.call('get', 'k')", "0"});
  });

  compare(real, serve, "FCALL of a function", [](StatsSide& s) {
    cmd(s, {"FUNCTION", "LOAD",
            "#!lua name=statlib\n"
            "redis.register_function('setit', function(keys, args) return redis.call('set', keys[1], args[1]) end)\n"
            "redis.register_function('bad', function(keys, args) return redis.call('lpush', keys[1], 'x') end)"});
    cmd(s, {"FCALL", "setit", "1", "k", "v"});
    cmd(s, {"FCALL", "bad", "1", "k"});
    cmd(s, {"FCALL", "nosuch", "0"});
    cmd(s, {"FCALL_RO", "setit", "1", "k", "v"});
  });

  compare(real, serve, "BLPOP served by another client's LPUSH, and one timing out", [](StatsSide& s) {
    REQUIRE(redisAppendCommand(s.b, "BLPOP list 5") == REDIS_OK);
    REQUIRE(redisBufferWrite(s.b, nullptr) == REDIS_OK);
    // Time for the server to block it (polling INFO would count a different number of INFOs).
    usleep(200'000);
    cmd(s, {"LPUSH", "list", "x"});
    void* reply = nullptr;
    REQUIRE(redisGetReply(s.b, &reply) == REDIS_OK);
    freeReplyObject(reply);
    CHECK(run_argv(s.b, {"BLPOP", "empty", "0.05"}) == "(nil)");
  });

  compare(real, serve, "OOM with maxmemory 1", [](StatsSide& s) {
    cmd(s, {"SET", "k", "v"});
    cmd(s, {"CONFIG", "SET", "maxmemory", "1"});
    cmd(s, {"SET", "k2", "v"});
    cmd(s, {"GET", "k"});
    cmd(s, {"EVAL", "return redis.call('set', 'k3', 'v')", "0"});
    cmd(s, {"EVAL", "return redis.pcall('set', 'k3', 'v')", "0"});
    cmd(s, {"EVAL", "return redis.call('get', 'k')", "0"});
    cmd(s, {"CONFIG", "SET", "maxmemory", "0"});
  });

  compare(real, serve, "commands the front-end answers", [](StatsSide& s) {
    cmd(s, {"CLIENT", "SETNAME", "stats"});
    cmd(s, {"CLIENT", "GETNAME"});
    cmd(s, {"CLIENT", "SETNAME", "bad name"});
    cmd(s, {"CLIENT", "NOSUCH"});
    cmd(s, {"PING"});
    cmd(s, {"PING", "a", "b"});
    cmd(s, {"ECHO", "x"});
    cmd(s, {"SELECT", "1"});
    cmd(s, {"SELECT", "0"});
    cmd(s, {"SELECT", "nope"});
    cmd(s, {"AUTH", "secret"});
    auto raw = s.raw();
    raw->send("HELLO 3\r\n");
    CHECK(raw->read(4096, 200).starts_with("%"));
    raw->send("HELLO 2\r\n");
    CHECK(raw->read(4096, 200).starts_with("*"));
  });
}
