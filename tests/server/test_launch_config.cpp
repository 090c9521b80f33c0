// redis-server's command line and config file, as `locksim serve` reads them.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include "locksim/server/launch_config.hpp"
#include "server_fixture.hpp"

using namespace locksim::server;

namespace {
LaunchOptions parse_launch(std::vector<std::string> args, LaunchStyle style = LaunchStyle::Locksim) {
  return parse_launch_arguments(args, style);
}
}  // namespace

TEST_CASE("redis-server's usual fixture arguments are taken", "[server][launch]") {
  const LaunchOptions o = parse_launch({"--port", "6390", "--save", "", "--appendonly", "no", "--bind", "127.0.0.1", "-::1",
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
  const LaunchOptions o = parse_launch({"--save", "--port=0", "--time", "manual", "--unix", "/tmp/x.sock", "--ready-file",
                                 "/tmp/r.json", "--maxclients", "5"});
  CHECK(o.server.port == 0);
  CHECK(o.server.time == TimeMode::Manual);
  CHECK(o.server.unix_path == "/tmp/x.sock");
  CHECK(o.ready_file == "/tmp/r.json");
  CHECK(o.server.maxclients == 5);
  CHECK(o.notes.empty());
}

TEST_CASE("port 0: a free port for locksim serve, no TCP for redis-server", "[server][launch]") {
  CHECK(parse_launch({"--port", "0"}).server.port == 0);
  CHECK(parse_launch({"--port", "0"}, LaunchStyle::RedisServer).server.port == -1);
  CHECK_THROWS_AS(parse_launch({"--port", "-1"}, LaunchStyle::RedisServer), LaunchError);
}

TEST_CASE("a config file first, with quoting, comments, include, then overriding directives", "[server][launch]") {
  const std::string inc = "launch_config_test_inc.conf", main = "launch_config_test.conf";
  std::ofstream(inc) << "requirepass \"with space\"\n";
  std::ofstream(main) << "# comment\n  port 7001\nsave 900 1\ninclude " << inc << "\nunixsocket '/tmp/a b.sock'\n";
  const LaunchOptions o = parse_launch({main, "--port", "7002"});
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
      parse_launch(std::move(args));
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

TEST_CASE("protected-mode, maxclients and the clients' limits reach the server's options", "[server][launch]") {
  const LaunchOptions defaults = parse_launch({});
  CHECK(defaults.server.protected_mode);
  const LaunchOptions o = parse_launch({"--protected-mode", "no", "--maxclients", "77", "--proto-max-bulk-len", "2mb",
                                 "--client-query-buffer-limit", "4mb", "--maxmemory-clients", "1gb",
                                 "--client-output-buffer-limit", "pubsub", "4mb", "1mb", "10"});
  CHECK_FALSE(o.server.protected_mode);
  CHECK(o.server.maxclients == 77);
  CHECK(o.server.limits.proto_max_bulk_len == 2 * 1024 * 1024);
  CHECK(o.server.limits.query_buffer_limit == 4u * 1024 * 1024);
  CHECK(o.server.limits.maxmemory_clients == 1024u * 1024 * 1024);
  CHECK(o.server.limits.of(ClientClass::Pubsub) == OutputLimit{4u << 20, 1u << 20, 10});
  CHECK(o.notes.empty());

  // A config file, as redis.conf writes them (one class a line), then an override.
  const std::string conf = "launch_config_test_limits.conf";
  std::ofstream(conf) << "protected-mode no\nclient-output-buffer-limit normal 8mb 2mb 60\n"
                         "client-output-buffer-limit pubsub 16mb 4mb 30\nmaxclients 9\n";
  const LaunchOptions f = parse_launch({conf, "--protected-mode", "yes"});
  std::remove(conf.c_str());
  CHECK(f.server.protected_mode);
  CHECK(f.server.maxclients == 9);
  CHECK(f.server.limits.of(ClientClass::Normal) == OutputLimit{8u << 20, 2u << 20, 60});
  CHECK(f.server.limits.of(ClientClass::Pubsub) == OutputLimit{16u << 20, 4u << 20, 30});
}

TEST_CASE("bad protected-mode, maxclients and limits are refused with the directive named", "[server][launch]") {
  CHECK_THROWS_WITH(parse_launch({"--protected-mode", "maybe"}), Catch::Contains("'protected-mode'"));
  CHECK_THROWS_WITH(parse_launch({"--maxclients", "0"}), Catch::Contains("'maxclients' wants an integer"));
  CHECK_THROWS_WITH(parse_launch({"--proto-max-bulk-len", "1000"}), Catch::Contains("'proto-max-bulk-len'"));
  CHECK_THROWS_WITH(parse_launch({"--client-query-buffer-limit", "lots"}), Catch::Contains("memory value"));
  CHECK_THROWS_WITH(parse_launch({"--client-output-buffer-limit", "nobody", "1", "1", "1"}),
                    Catch::Contains("'client-output-buffer-limit'"));
  CHECK_THROWS_AS(parse_launch({"--protected-mode"}), LaunchError);
}

TEST_CASE("timeout from a config file or the command line closes idle clients", "[server][launch]") {
  const std::string conf = "launch_config_test_timeout.conf";
  std::ofstream(conf) << "timeout 1\n";
  LaunchOptions o = parse_launch({conf});
  std::remove(conf.c_str());
  CHECK(o.server.idle_timeout_s == 1);
  CHECK(o.notes.empty());
  CHECK(parse_launch({"--timeout", "0"}).server.idle_timeout_s == 0);
  CHECK_THROWS_WITH(parse_launch({"--timeout", "-1"}), Catch::Contains("'timeout' wants an integer"));

  // The server launched with it closes a client idle for over a second, as Redis's clientsCron.
  o.server.port = 0;
  o.server.log = [](std::string_view) {};
  testing::RunningServer s(o.server);
  testing::Hiredis idle(s.port());
  CHECK(idle.command("CONFIG GET timeout") == "[\"timeout\", \"1\"]");
  std::this_thread::sleep_for(std::chrono::milliseconds(2600));
  CHECK(idle.command("PING") == "(connection error)");
}
