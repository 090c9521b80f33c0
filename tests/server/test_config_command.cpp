// The front-end's CONFIG and COMMAND as Redis 7.0 answers them (issue 31, checked
// against redis-server 7.0.15): CONFIG SET of several parameters all or nothing,
// CONFIG RESETSTAT, COMMAND LIST FILTERBY, COMMAND GETKEYSANDFLAGS, and CLIENT
// LIST/KILL TYPE pubsub.
#include <catch2/catch.hpp>

#include <algorithm>

#include "raw_client.hpp"
#include "server_fixture.hpp"

using namespace locksim::server;
using namespace locksim::server::testing;

namespace {
std::string info_field(Hiredis& c, const std::string& section, const std::string& field) {
  const std::string text = c.command("INFO %s", section.c_str());
  const size_t at = text.find(field + ":");
  if (at == std::string::npos) return "(missing)";
  const size_t stop = text.find('\r', at);
  return text.substr(at + field.size() + 1, stop - at - field.size() - 1);
}
}  // namespace

TEST_CASE("CONFIG SET of several parameters: all of them or none", "[server][config]") {
  RunningServer s;
  Hiredis c(s.port());
  // The model's (hz, busy-reply-threshold) and the server's own (timeout, limits) together.
  CHECK(c.command("CONFIG SET hz 11 timeout 300 busy-reply-threshold 700 proto-max-bulk-len 2mb") == "OK");
  CHECK(c.command("CONFIG GET hz") == "[\"hz\", \"11\"]");
  CHECK(c.command("CONFIG GET timeout") == "[\"timeout\", \"300\"]");
  CHECK(c.command("CONFIG GET busy-reply-threshold") == "[\"busy-reply-threshold\", \"700\"]");
  CHECK(c.command("CONFIG GET proto-max-bulk-len") == "[\"proto-max-bulk-len\", \"2097152\"]");
  // One bad value, wherever it is, and nothing is set.
  CHECK(c.command("CONFIG SET hz 12 timeout x") ==
        "(error) ERR CONFIG SET failed (possibly related to argument 'timeout') - argument couldn't be parsed into "
        "an integer");
  CHECK(c.command("CONFIG SET timeout 5 hz abc") ==
        "(error) ERR CONFIG SET failed (possibly related to argument 'hz') - argument couldn't be parsed into an "
        "integer");
  CHECK(c.command("CONFIG SET timeout 5 proto-max-bulk-len 1") ==
        "(error) ERR CONFIG SET failed (possibly related to argument 'proto-max-bulk-len') - argument must be "
        "between 1048576 and 9223372036854775807 inclusive");
  CHECK(c.command("CONFIG GET hz") == "[\"hz\", \"11\"]");
  CHECK(c.command("CONFIG GET timeout") == "[\"timeout\", \"300\"]");
  // Names are checked before values; the same one twice is refused.
  CHECK(c.command("CONFIG SET timeout x nosuch 2") ==
        "(error) ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'");
  CHECK(c.command("CONFIG SET timeout 1 TIMEOUT 2") ==
        "(error) ERR CONFIG SET failed (possibly related to argument 'TIMEOUT') - duplicate parameter");
  CHECK(c.command("CONFIG SET timeout") == "(error) ERR wrong number of arguments for 'config|set' command");
  CHECK(c.command("CONFIG SET timeout 1 hz") == "(error) ERR syntax error");
  CHECK(c.command("CONFIG SET save %s appendonly no timeout 0", "") == "OK");  // persistence: nothing to change
  CHECK(c.command("CONFIG GET timeout") == "[\"timeout\", \"0\"]");
  // Parameters that change nothing in the model answer what was set (redis-py's slowlog fixture).
  CHECK(c.command("CONFIG GET slowlog-max-len") == "[\"slowlog-max-len\", \"128\"]");
  CHECK(c.command("CONFIG SET slowlog-max-len 7 appendonly yes") == "OK");
  CHECK(c.command("CONFIG GET slowlog-max-len") == "[\"slowlog-max-len\", \"7\"]");
  CHECK(c.command("CONFIG GET appendonly") == "[\"appendonly\", \"yes\"]");
}

TEST_CASE("CONFIG SET requirepass: new connections must AUTH, the ones in place stay", "[server][config]") {
  RunningServer s;
  Hiredis c(s.port());
  CHECK(c.command("CONFIG SET requirepass secret") == "OK");
  CHECK(c.command("PING") == "PONG");
  Hiredis late(s.port());
  CHECK(late.command("PING") == "(error) NOAUTH Authentication required.");
  CHECK(late.command("AUTH secret") == "OK");
  CHECK(late.command("CONFIG SET requirepass %s", "") == "OK");
  Hiredis later(s.port());
  CHECK(later.command("PING") == "PONG");
}

TEST_CASE("CONFIG RESETSTAT starts INFO's counts again", "[server][config]") {
  RunningServer s;
  Hiredis c(s.port());
  c.command("SET a b");
  c.command("GET a");
  c.command("NOSUCHCOMMAND");
  REQUIRE(info_field(c, "errorstats", "errorstat_ERR") == "count=1");
  CHECK(c.command("CONFIG RESETSTAT") == "OK");
  CHECK(info_field(c, "stats", "total_error_replies") == "0");
  CHECK(info_field(c, "stats", "total_connections_received") == "0");
  CHECK(info_field(c, "commandstats", "cmdstat_get") == "(missing)");
  CHECK(info_field(c, "errorstats", "errorstat_ERR") == "(missing)");
  // RESETSTAT itself and the INFOs since are counted, as in Redis.
  CHECK(info_field(c, "stats", "total_commands_processed") == "5");
}

TEST_CASE("COMMAND LIST FILTERBY MODULE, ACLCAT and PATTERN", "[server][info]") {
  RunningServer s;
  Hiredis c(s.port());
  CHECK(c.command("COMMAND LIST FILTERBY MODULE anything") == "[]");
  const std::string scripting = c.command("COMMAND LIST FILTERBY ACLCAT scripting");
  for (const char* name : {"\"eval\"", "\"evalsha\"", "\"fcall\"", "\"fcall_ro\"", "\"eval_ro\"", "\"evalsha_ro\""})
    CHECK(scripting.find(name) != std::string::npos);
  CHECK(scripting.find("\"get\"") == std::string::npos);
  const std::string blocking = c.command("COMMAND LIST FILTERBY ACLCAT BLOCKING");
  CHECK(blocking.find("\"blpop\"") != std::string::npos);
  CHECK(blocking.find("\"lpop\"") == std::string::npos);
  CHECK(c.command("COMMAND LIST FILTERBY ACLCAT nosuch") == "[]");
  CHECK(c.command("COMMAND LIST FILTERBY PATTERN EXPIRE*") == "[\"expire\", \"expireat\", \"expiretime\"]");
  CHECK(c.command("COMMAND LIST FILTERBY ACLCAT admin").find("\"locksim.restart\"") != std::string::npos);
  CHECK(c.command("COMMAND LIST FILTERBY nosuch x") == "(error) ERR syntax error");
  CHECK(c.command("COMMAND LIST FILTERBY PATTERN") == "(error) ERR syntax error");
  CHECK(c.command("COMMAND INFO get").find("[@read, @string, @fast]") != std::string::npos);
}

TEST_CASE("COMMAND GETKEYSANDFLAGS: each key with its spec's flags", "[server][info]") {
  RunningServer s;
  Hiredis c(s.port());
  CHECK(c.command("COMMAND GETKEYSANDFLAGS SET k v") == "[[\"k\", [OW, update]]]");
  CHECK(c.command("COMMAND GETKEYSANDFLAGS SET k v GET") == "[[\"k\", [RW, access, update]]]");
  CHECK(c.command("COMMAND GETKEYSANDFLAGS LMOVE a b LEFT RIGHT") ==
        "[[\"a\", [RW, access, delete]], [\"b\", [RW, insert]]]");
  CHECK(c.command("COMMAND GETKEYSANDFLAGS ZUNIONSTORE d 2 a b") ==
        "[[\"d\", [OW, update]], [\"a\", [RO, access]], [\"b\", [RO, access]]]");
  CHECK(c.command("COMMAND GETKEYSANDFLAGS DEL a b") == "[[\"a\", [RM, delete]], [\"b\", [RM, delete]]]");
  CHECK(c.command("COMMAND GETKEYSANDFLAGS EVAL x 1 k") == "[[\"k\", [RW, access, update]]]");
  CHECK(c.command("COMMAND GETKEYSANDFLAGS EVAL x 0") == "[]");
  CHECK(c.command("COMMAND GETKEYS PING x") == "(error) ERR The command has no key arguments");
  CHECK(c.command("COMMAND GETKEYSANDFLAGS GET") ==
        "(error) ERR wrong number of arguments for 'command|getkeysandflags' command");
  CHECK(c.command("COMMAND GETKEYSANDFLAGS GET a b") ==
        "(error) ERR Invalid number of arguments specified for command");
  CHECK(c.command("COMMAND GETKEYSANDFLAGS NOSUCH a") == "(error) ERR Invalid command specified");
}

TEST_CASE("CLIENT LIST and CLIENT KILL TYPE pubsub: the subscribed clients", "[server][admin]") {
  RunningServer s;
  Hiredis admin(s.port()), plain(s.port()), subscriber(s.port());
  REQUIRE(subscriber.command("SUBSCRIBE news") == "[\"subscribe\", \"news\", (integer) 1]");
  const std::string pubsub = admin.command("CLIENT LIST TYPE pubsub");
  CHECK(pubsub.find("flags=P") != std::string::npos);
  CHECK(std::count(pubsub.begin(), pubsub.end(), '\n') == 1);
  CHECK(admin.command("CLIENT KILL TYPE pubsub") == "(integer) 1");
  CHECK(subscriber.next_reply() == "(connection error)");
  CHECK(plain.command("PING") == "PONG");
  CHECK(admin.command("CLIENT KILL TYPE pubsub") == "(integer) 0");
  CHECK(admin.command("CLIENT KILL TYPE normal") == "(integer) 1");  // `plain`; SKIPME spares the caller
}
