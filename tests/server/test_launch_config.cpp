// redis-server's command line and config file, as `locksim serve` reads them.
#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>

#include "locksim/server/launch_config.hpp"

using namespace locksim::server;

namespace {
LaunchOptions parse(std::vector<std::string> args, LaunchStyle style = LaunchStyle::Locksim) {
  return parse_launch_arguments(args, style);
}
}  // namespace

TEST_CASE("redis-server's usual fixture arguments are taken", "[server][launch]") {
  const LaunchOptions o = parse({"--port", "6390", "--save", "", "--appendonly", "no", "--bind", "127.0.0.1", "-::1",
                                 "--requirepass", "pw", "--daemonize", "no", "--loglevel", "warning"});
  CHECK(o.server.port == 6390);
  CHECK(o.server.bind == "127.0.0.1");
  CHECK(o.server.requirepass == "pw");
  CHECK(o.loglevel == "warning");
  CHECK_FALSE(o.daemonize);
  REQUIRE(o.notes.size() == 1);  // only the second bind address; save '' and appendonly no are what the model is
  CHECK(o.notes[0].find("bind") != std::string::npos);
}

TEST_CASE("a value-less --save, --name=value, and locksim's own directives", "[server][launch]") {
  const LaunchOptions o = parse({"--save", "--port=0", "--time", "manual", "--unix", "/tmp/x.sock", "--ready-file",
                                 "/tmp/r.json", "--maxclients", "5"});
  CHECK(o.server.port == 0);
  CHECK(o.server.time == TimeMode::Manual);
  CHECK(o.server.unix_path == "/tmp/x.sock");
  CHECK(o.ready_file == "/tmp/r.json");
  CHECK(o.server.maxclients == 5);
  CHECK(o.notes.empty());
}

TEST_CASE("port 0: a free port for locksim serve, no TCP for redis-server", "[server][launch]") {
  CHECK(parse({"--port", "0"}).server.port == 0);
  CHECK(parse({"--port", "0"}, LaunchStyle::RedisServer).server.port == -1);
  CHECK_THROWS_AS(parse({"--port", "-1"}, LaunchStyle::RedisServer), LaunchError);
}

TEST_CASE("a config file first, with quoting, comments, include, then overriding directives", "[server][launch]") {
  const std::string inc = "launch_config_test_inc.conf", main = "launch_config_test.conf";
  std::ofstream(inc) << "requirepass \"with space\"\n";
  std::ofstream(main) << "# comment\n  port 7001\nsave 900 1\ninclude " << inc << "\nunixsocket '/tmp/a b.sock'\n";
  const LaunchOptions o = parse({main, "--port", "7002"});
  std::remove(inc.c_str());
  std::remove(main.c_str());
  CHECK(o.server.port == 7002);
  CHECK(o.server.requirepass == "with space");
  CHECK(o.server.unix_path == "/tmp/a b.sock");
  REQUIRE(o.notes.size() == 1);
  CHECK(o.notes[0] == "ignored: save 900 1 (nothing in the model it would change)");
}

TEST_CASE("bad input names the problem", "[server][launch]") {
  auto message = [](std::vector<std::string> args) {
    try {
      parse(std::move(args));
    } catch (const LaunchError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  CHECK(message({"--prot", "1"}) == "bad directive or wrong number of arguments: 'prot'");
  CHECK(message({"--port", "x"}).find("'port' wants an integer") == 0);
  CHECK(message({"--port", "1", "2"}) == "wrong number of arguments for 'port'");
  CHECK(message({"--daemonize", "maybe"}) == "'daemonize' wants yes or no, not 'maybe'");
  CHECK(message({"--time", "fast"}) == "'time' is wall or manual, not 'fast'");
  CHECK(message({"/nonexistent/redis.conf"}) == "cannot open config file '/nonexistent/redis.conf'");
  CHECK(message({"--port", "1", "stray.conf", "--x"}).find("wrong number of arguments") == 0);
  CHECK(message({"--sentinel"}) == "sentinel mode is not modelled");
}
