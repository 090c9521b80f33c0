// INFO commandstats, errorstats and total_error_replies as Redis 7.0 counts them, after
// Redis's own "Consistent eval error reporting" (tests/unit/scripting.tcl): a command a
// script calls is counted (rejected or run), its error once, where it was made.
#include <catch2/catch.hpp>

#include <string>

#include "model_fixture.hpp"

using namespace locksim::redis;
using namespace locksim::redis::testing;

namespace {
// The value of `field` in INFO `section` ("" when absent).
std::string info_field(Model& m, const std::string& section, const std::string& field) {
  const std::string text = m.run({"info", section}).str;
  const std::string key = "\r\n" + field + ":";
  const size_t at = ("\r\n" + text).find(key);
  if (at == std::string::npos) return "";
  const size_t begin = at + key.size() - 2, end = text.find("\r\n", begin);
  return text.substr(begin, end - begin);
}
std::string cmdstat(Model& m, const std::string& name) {
  const std::string line = info_field(m, "commandstats", "cmdstat_" + name);
  // calls=N,usec=0,usec_per_call=0.00,rejected_calls=R,failed_calls=F -> "calls=N,rejected=R,failed=F"
  if (line.empty()) return "";
  auto value = [&](const std::string& key) {
    const size_t at = line.find(key + "=") + key.size() + 1;
    return line.substr(at, line.find(',', at) - at);
  };
  return "calls=" + value("calls") + ",rejected=" + value("rejected_calls") + ",failed=" + value("failed_calls");
}
}  // namespace

TEST_CASE("a script's command refused over maxmemory: the command rejected, EVAL failed, OOM counted once") {
  Model m;
  m.run({"set", "padding", std::string(100, 'p')});
  m.run({"config", "set", "maxmemory", "1"});
  m.run({"config", "resetstat"});
  CHECK(m.text({"eval", "return redis.call('set','x','y')", "1", "x"}).starts_with(
      "(error) OOM command not allowed when used memory > 'maxmemory'."));
  CHECK(info_field(m, "errorstats", "errorstat_OOM") == "count=1");
  CHECK(info_field(m, "stats", "total_error_replies") == "1");
  CHECK(cmdstat(m, "set") == "calls=0,rejected=1,failed=0");
  CHECK(cmdstat(m, "eval") == "calls=1,rejected=0,failed=1");

  // redis.pcall catches it: counted where it was made, and EVAL succeeds.
  m.run({"config", "resetstat"});
  CHECK(m.text({"eval",
                "local t = redis.pcall('set','x','y') if t['err'] == \"OOM command not allowed when used memory > "
                "'maxmemory'.\" then return 1 else return 0 end",
                "1", "x"}) == "(integer) 1");
  CHECK(info_field(m, "errorstats", "errorstat_ERR") == "");
  CHECK(info_field(m, "errorstats", "errorstat_OOM") == "count=1");
  CHECK(info_field(m, "stats", "total_error_replies") == "1");
  CHECK(cmdstat(m, "set") == "calls=0,rejected=1,failed=0");
  CHECK(cmdstat(m, "eval") == "calls=1,rejected=0,failed=0");

  // The error table returned: EVAL fails, the error still counts once.
  m.run({"config", "resetstat"});
  CHECK(m.text({"eval", "return redis.pcall('set','x','y')", "1", "x"}) ==
        "(error) OOM command not allowed when used memory > 'maxmemory'.");
  CHECK(info_field(m, "errorstats", "errorstat_OOM") == "count=1");
  CHECK(info_field(m, "stats", "total_error_replies") == "1");
  CHECK(cmdstat(m, "eval") == "calls=1,rejected=0,failed=1");
}

TEST_CASE("a script's command that fails, and errors a script makes itself") {
  Model m;
  m.run({"config", "resetstat"});
  CHECK(m.text({"eval", "return redis.call('select',99)", "0"}).starts_with("(error) ERR DB index is out of range"));
  CHECK(info_field(m, "errorstats", "errorstat_ERR") == "count=1");
  CHECK(info_field(m, "stats", "total_error_replies") == "1");
  CHECK(cmdstat(m, "select") == "calls=1,rejected=0,failed=1");
  CHECK(cmdstat(m, "eval") == "calls=1,rejected=0,failed=1");
  // redis.error_reply makes an error no command made: counted when the script returns it.
  m.run({"config", "resetstat"});
  CHECK(m.text({"eval", "return redis.error_reply('MY_ERR some text')", "0"}) == "(error) MY_ERR some text");
  CHECK(info_field(m, "errorstats", "errorstat_MY_ERR") == "count=1");
  CHECK(info_field(m, "stats", "total_error_replies") == "1");
}

TEST_CASE("commands refused before they run, run in EXEC, unknown ones, and CONFIG RESETSTAT") {
  Model m;
  CHECK(m.text({"get"}) == "(error) ERR wrong number of arguments for 'get' command");
  CHECK(m.text({"nosuchcommand"}).starts_with("(error) ERR unknown command"));
  CHECK(m.text({"set", "k", "v"}) == "OK");
  CHECK(m.text({"lpush", "k", "a"}).starts_with("(error) WRONGTYPE"));
  CHECK(cmdstat(m, "get") == "calls=0,rejected=1,failed=0");
  CHECK(cmdstat(m, "set") == "calls=1,rejected=0,failed=0");
  CHECK(cmdstat(m, "lpush") == "calls=1,rejected=0,failed=1");
  CHECK(info_field(m, "errorstats", "errorstat_ERR") == "count=2");
  CHECK(info_field(m, "errorstats", "errorstat_WRONGTYPE") == "count=1");
  // Queued commands count when EXEC runs them, as Redis counts them.
  m.run({"multi"});
  m.run({"incr", "n"});
  m.run({"incr", "k"});
  CHECK(cmdstat(m, "incr") == "");
  m.run({"exec"});
  CHECK(cmdstat(m, "incr") == "calls=2,rejected=0,failed=1");
  CHECK(cmdstat(m, "exec") == "calls=1,rejected=0,failed=0");
  CHECK(info_field(m, "stats", "total_error_replies") == "4");
  // The config subcommand is counted under its full name; RESETSTAT empties them all.
  CHECK(cmdstat(m, "config|get") == "");
  m.run({"config", "get", "maxmemory"});
  CHECK(cmdstat(m, "config|get") == "calls=1,rejected=0,failed=0");
  m.run({"config", "resetstat"});
  CHECK(cmdstat(m, "set") == "");
  CHECK(info_field(m, "stats", "total_error_replies") == "0");
}
