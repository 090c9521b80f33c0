// The model's side of a long script (sim/redis/script_host.hpp), without a network: a
// host that, from inside the script, runs another connection's commands through
// Server::execute, as `locksim serve` does once the script is past busy-reply-threshold.
#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

#include "model_fixture.hpp"

using namespace locksim::redis;
using namespace locksim::redis::testing;

namespace {
const std::string kBusy = "(error) BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";

// Calls `serve` at the script's first report; returns `stop` from every report.
struct Host final : ScriptHost {
  std::function<void(const RunningScript&)> serve;
  bool stop = false;
  int started = 0, reports = 0, ended = 0;
  void script_started() override { ++started; }
  bool script_progress(const RunningScript& script) override {
    if (reports++ == 0 && serve) serve(script);
    return stop;
  }
  void script_ended() override { ++ended; }
};
}  // namespace

TEST_CASE("script host: another client gets BUSY but for allow-busy commands and SCRIPT KILL stops the script",
          "[scripting][busy]") {
  Model m;
  Host host;
  m.server.set_script_host(&host);
  const ConnectionId other = m.server.connect();
  std::vector<std::string> seen;
  host.serve = [&](const RunningScript& script) {
    CHECK(script.is_eval);
    CHECK_FALSE(script.wrote);
    CHECK(script.busy_reply_threshold_ms == 5000);
    for (const Command& c : {Command{"PING"}, Command{"GET", "k"}, Command{"MULTI"}, Command{"SET", "k", "v"},
                             Command{"EXEC"}, Command{"WATCH", "k"}, Command{"FUNCTION", "KILL"},
                             Command{"SCRIPT", "KILL"}})
      seen.push_back(to_string(m.server.execute(other, c, m.now)));
  };
  const std::string reply = to_string(m.run({"EVAL", "while true do end", "0"}));
  CHECK(reply.starts_with("(error) ERR Script killed by user with SCRIPT KILL... script: "));
  CHECK(seen == std::vector<std::string>{kBusy, kBusy, "OK", kBusy,
                                         "(error) EXECABORT Transaction discarded because of: " + kBusy.substr(8),
                                         "OK", kBusy, "OK"});
  CHECK(host.started == 1);
  CHECK(host.ended == 1);
  CHECK(m.text({"GET", "k"}) == "(nil)");  // the aborted transaction ran nothing
  CHECK(m.text({"SCRIPT", "KILL"}) == "(error) NOTBUSY No scripts in execution right now.");
}

TEST_CASE("script host: a script that wrote is UNKILLABLE but the host can still stop it", "[scripting][busy]") {
  Model m;
  Host host;
  m.server.set_script_host(&host);
  const ConnectionId other = m.server.connect();
  std::string kill;
  host.serve = [&](const RunningScript& script) {
    CHECK(script.wrote);
    kill = to_string(m.server.execute(other, {"SCRIPT", "KILL"}, m.now));
  };
  host.stop = true;  // SHUTDOWN NOSAVE
  CHECK(to_string(m.run({"EVAL", "redis.call('set', 'w', '1') while true do end", "0"}))
            .starts_with("(error) ERR Script killed by user with SCRIPT KILL..."));
  CHECK(kill.starts_with("(error) UNKILLABLE Sorry the script already executed write commands"));
  CHECK(m.text({"GET", "w"}) == "\"1\"");  // its write stays
}

TEST_CASE("script host: a report every 100000 instructions and the same budget with or without a host",
          "[scripting][busy]") {
  ServerOptions options;
  options.lua_instruction_budget = 1'000'000;
  Model hosted(options), alone(options);
  Host host;
  hosted.server.set_script_host(&host);
  const std::string stopped =
      "(error) BUSY Script exceeded the instruction budget of 1000000 and was stopped; its earlier writes are kept";
  CHECK(to_string(hosted.run({"EVAL", "while true do end", "0"})) == stopped);
  CHECK(to_string(alone.run({"EVAL", "while true do end", "0"})) == stopped);
  CHECK(host.reports >= 9);
  CHECK(host.reports <= 10);
}
