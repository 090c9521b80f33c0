// `locksim serve` as a drop-in for redis-server: the stall commands (CLIENT PAUSE, DEBUG
// SLEEP), LOCKSIM.FAULT's per-client and per-command faults, INFO's sections, COMMAND,
// the admin commands (CLIENT KILL filters, MONITOR, ROLE, LATENCY, TRACKING), SHUTDOWN.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "raw_client.hpp"
#include "server_fixture.hpp"

using namespace locksim::server;
using namespace locksim::server::testing;
using Steady = std::chrono::steady_clock;

namespace {
int64_t elapsed_ms(Steady::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Steady::now() - start).count();
}
int64_t id_of(Hiredis& c) { return std::stoll(c.command("CLIENT ID").substr(10)); }
std::string info_value(Hiredis& c, const std::string& section, const std::string& field) {
  const std::string text = c.command("INFO %s", section.c_str());
  const size_t at = text.find(field + ":");
  if (at == std::string::npos) return "(missing)";
  const size_t stop = text.find('\r', at);  // the bulk's own CRLF ends each line
  return text.substr(at + field.size() + 1, stop - at - field.size() - 1);
}
}  // namespace

TEST_CASE("CLIENT PAUSE holds every client's commands for its time, then runs them", "[server][stall]") {
  RunningServer s(test_options(TimeMode::Wall));
  Hiredis admin(s.port()), other(s.port());
  CHECK(admin.command("CLIENT PAUSE 500") == "OK");
  const auto start = Steady::now();
  CHECK(other.command("SET k v") == "OK");  // held, not refused
  CHECK(elapsed_ms(start) >= 450);
  CHECK(admin.command("CLIENT PAUSE x") == "(error) ERR timeout is not an integer or out of range");
  CHECK(admin.command("CLIENT PAUSE 10 SOME") == "(error) ERR CLIENT PAUSE mode must be WRITE or ALL");
}

TEST_CASE("CLIENT PAUSE WRITE holds writes only, CLIENT UNPAUSE releases them", "[server][stall]") {
  RunningServer s(test_options(TimeMode::Wall));
  Hiredis admin(s.port()), reader(s.port());
  CHECK(reader.command("SET k old") == "OK");
  CHECK(admin.command("CLIENT PAUSE 60000 WRITE") == "OK");
  RawClient writer(s.port());
  writer.send("SET k new\r\n");
  CHECK(reader.command("GET k") == "\"old\"");  // a read passes the writer's held SET
  CHECK(writer.read(5, 200).empty());
  CHECK(admin.command("CLIENT UNPAUSE") == "OK");
  CHECK(writer.read(5) == "+OK\r\n");
  CHECK(reader.command("GET k") == "\"new\"");
}

TEST_CASE("DEBUG SLEEP stalls the server in wall time and moves a manual clock", "[server][stall]") {
  SECTION("wall") {
    RunningServer s(test_options(TimeMode::Wall));
    Hiredis sleeper(s.port()), other(s.port());
    RawClient raw(s.port());
    const auto start = Steady::now();
    raw.send("DEBUG SLEEP 0.4\r\n");
    CHECK(raw.read(5) == "+OK\r\n");
    CHECK(elapsed_ms(start) >= 350);
  }
  SECTION("manual") {
    RunningServer s;
    Hiredis c(s.port());
    const int64_t before = std::stoll(c.command("LOCKSIM.TIME").substr(10));
    CHECK(c.command("DEBUG SLEEP 2.5") == "OK");
    CHECK(std::stoll(c.command("LOCKSIM.TIME").substr(10)) == before + 2500);
  }
}

TEST_CASE("A per-client DELAY fault delays one client's replies and not another's", "[server][faults]") {
  RunningServer s(test_options(TimeMode::Wall));
  Hiredis admin(s.port());
  RawClient slow(s.port()), fast(s.port());
  const std::string slow_id = slow.roundtrip("CLIENT ID\r\n", 4).substr(1, 1);
  REQUIRE(!slow_id.empty());
  CHECK(admin.command("LOCKSIM.FAULT ADD DELAY 600 CLIENT %s", slow_id.c_str()) == "(integer) 1");
  const auto start = Steady::now();
  slow.send("INCR n\r\n");
  CHECK(fast.roundtrip("PING\r\n", 7) == "+PONG\r\n");  // answered while the slow client waits
  CHECK(slow.read(4, 150).empty());
  CHECK(slow.read(4) == ":1\r\n");  // the command ran at once; only its reply waited
  CHECK(elapsed_ms(start) >= 550);
  CHECK(admin.command("GET n") == "\"1\"");
}

TEST_CASE("LOCKSIM.FAULT kinds: drop-reply, drop-request, error, close, COUNT, KEY, LIST, CLEAR", "[server][faults]") {
  RunningServer s;
  Hiredis admin(s.port());
  RawClient c(s.port());
  CHECK(c.roundtrip("PING\r\n", 7) == "+PONG\r\n");
  CHECK(admin.command("LOCKSIM.FAULT ADD DROP-REPLY CLIENT 2 COMMAND set COUNT 1") == "(integer) 1");
  c.send("SET a 1\r\nPING\r\n");
  CHECK(c.read(7) == "+PONG\r\n");  // SET ran, its reply was dropped
  CHECK(admin.command("GET a") == "\"1\"");
  CHECK(c.roundtrip("SET a 2\r\n", 5) == "+OK\r\n");  // COUNT 1: spent

  CHECK(admin.command("LOCKSIM.FAULT ADD DROP-REQUEST CLIENT 2 KEY lock:* COUNT 1") == "(integer) 2");
  c.send("SET lock:1 x\r\nSET other x\r\n");
  CHECK(c.read(5) == "+OK\r\n");  // only SET other answers
  CHECK(admin.command("EXISTS lock:1 other") == "(integer) 1");

  CHECK(admin.command("LOCKSIM.FAULT ADD ERROR %s CLIENT 2 COMMAND get", "LOADING Redis is loading") ==
        "(integer) 3");
  CHECK(c.roundtrip("GET a\r\n", 27) == "-LOADING Redis is loading\r\n");
  const std::string list = admin.command("LOCKSIM.FAULT LIST");
  CHECK(list.find("id=3 kind=error") != std::string::npos);
  CHECK(list.find("hits=1") != std::string::npos);
  CHECK(admin.command("LOCKSIM.FAULT CLEAR 3") == "(integer) 1");
  CHECK(c.roundtrip("GET a\r\n", 7) == "$1\r\n2\r\n");

  CHECK(admin.command("LOCKSIM.FAULT ADD CLOSE CLIENT 2") == "(integer) 4");
  c.send("INCR n\r\n");
  std::string rest;
  CHECK(c.read_until_closed(rest));
  CHECK(rest.empty());
  CHECK(admin.command("GET n") == "(nil)");
  CHECK(admin.command("LOCKSIM.FAULT CLEAR") == "(integer) 1");
  CHECK(admin.command("LOCKSIM.FAULT ADD SOMETHING").rfind("(error) ERR usage", 0) == 0);
}

TEST_CASE("Faults spare the handshake unless asked, REFUSE turns new connections away", "[server][faults]") {
  RunningServer s;
  Hiredis admin(s.port());
  CHECK(admin.command("LOCKSIM.FAULT ADD DELAY 5000 NAME app-*") == "(integer) 1");
  RawClient c(s.port());
  CHECK(c.roundtrip("CLIENT SETNAME app-1\r\n", 5) == "+OK\r\n");
  CHECK(c.roundtrip("SELECT 0\r\n", 5) == "+OK\r\n");
  c.send("PING\r\n");
  CHECK(c.read(7, 300).empty());  // the named client's PING waits

  CHECK(admin.command("LOCKSIM.FAULT REFUSE 60000") == "OK");
  RawClient refused(s.port());
  std::string rest;
  CHECK(refused.read_until_closed(rest));
  CHECK(admin.command("INFO stats").find("rejected_connections:1") != std::string::npos);
  CHECK(admin.command("LOCKSIM.FAULT CLEAR") == "(integer) 1");
  RawClient welcome(s.port());
  CHECK(welcome.roundtrip("PING\r\n", 7) == "+PONG\r\n");
}

TEST_CASE("INFO has every section client libraries read, with the real port and counts", "[server][info]") {
  RunningServer s;
  Hiredis c(s.port());
  c.command("SET k v");
  c.command("GET k");
  c.command("NOSUCHCOMMAND");
  CHECK(info_value(c, "server", "tcp_port") == std::to_string(s.port()));
  CHECK(info_value(c, "server", "redis_version") == "7.0.15");
  CHECK(info_value(c, "cluster", "cluster_enabled") == "0");
  CHECK(info_value(c, "replication", "role") == "master");
  CHECK(std::stoi(info_value(c, "stats", "total_commands_processed")) >= 3);
  CHECK(info_value(c, "clients", "connected_clients") == "1");
  CHECK(info_value(c, "keyspace", "db0") == "keys=1,expires=0,avg_ttl=0");
  CHECK(info_value(c, "commandstats", "cmdstat_get").starts_with("calls=1,"));
  CHECK(info_value(c, "errorstats", "errorstat_ERR") == "count=1");
  const std::string all = c.command("INFO");
  for (const char* section : {"# Server", "# Clients", "# Memory", "# Persistence", "# Stats", "# Replication",
                              "# CPU", "# Errorstats", "# Cluster", "# Keyspace"})
    CHECK(all.find(section) != std::string::npos);
  CHECK(all.find("# Commandstats") == std::string::npos);  // only on request, as Redis
}

TEST_CASE("COMMAND lists every command, LOCKSIM.* included", "[server][info]") {
  RunningServer s;
  Hiredis c(s.port());
  const int count = std::stoi(c.command("COMMAND COUNT").substr(10));
  CHECK(count > 150);
  CHECK(c.command("COMMAND INFO get").starts_with("[[\"get\", (integer) 2, [readonly], (integer) 1, (integer) 1"));
  CHECK(c.command("COMMAND INFO locksim.fault").starts_with("[[\"locksim.fault\", (integer) -2"));
  CHECK(c.command("COMMAND LIST FILTERBY PATTERN locksim.p*") == "[\"locksim.pause\"]");
  CHECK(c.command("COMMAND DOCS locksim.pause").find("CLIENT PAUSE") != std::string::npos);
  CHECK(c.command("COMMAND GETKEYS MSET a 1 b 2") == "[\"a\", \"b\"]");
  CHECK(c.command("COMMAND GETKEYS EVAL x 2 k1 k2 arg") == "[\"k1\", \"k2\"]");
}

TEST_CASE("CLIENT KILL by every filter, CLIENT LIST ID, TRACKING, GETREDIR", "[server][admin]") {
  RunningServer s;
  Hiredis admin(s.port()), victim(s.port()), bystander(s.port());
  const std::string list = victim.command("CLIENT INFO");
  const size_t a = list.find(" addr=") + 6;
  const std::string addr = list.substr(a, list.find(' ', a) - a);
  const size_t l = list.find(" laddr=") + 7;
  const std::string laddr = list.substr(l, list.find(' ', l) - l);
  const std::string by_id = admin.command("CLIENT LIST ID %lld", static_cast<long long>(id_of(victim)));
  CHECK(by_id.find("addr=" + addr) != std::string::npos);
  CHECK(by_id.find("id=1 ") == std::string::npos);
  CHECK(admin.command("CLIENT KILL ADDR %s", addr.c_str()) == "(integer) 1");
  CHECK(victim.command("PING") == "(connection error)");
  CHECK(admin.command("CLIENT KILL 1.2.3.4:5") == "(error) ERR No such client");
  CHECK(admin.command("CLIENT KILL USER nobody") == "(error) ERR No such user 'nobody'");
  // LADDR is the server's side, shared by every TCP client; SKIPME spares the caller.
  CHECK(admin.command("CLIENT KILL LADDR %s SKIPME yes", laddr.c_str()) == "(integer) 1");
  CHECK(bystander.command("PING") == "(connection error)");
  CHECK(admin.command("CLIENT GETREDIR") == "(integer) -1");
  CHECK(admin.command("CLIENT TRACKING ON") == "OK");
  CHECK(admin.command("CLIENT GETREDIR") == "(integer) 0");
  CHECK(admin.command("CLIENT TRACKING ON REDIRECT 999") ==
        "(error) ERR The client ID you want redirect to does not exist");
  CHECK(admin.command("CLIENT KILL ID 1 SKIPME no") == "(integer) 1");
}

TEST_CASE("MONITOR streams other clients' commands, ROLE, LATENCY, LASTSAVE answer as idle Redis", "[server][admin]") {
  RunningServer s;
  Hiredis c(s.port());
  RawClient monitor(s.port());
  CHECK(monitor.roundtrip("MONITOR\r\n", 5) == "+OK\r\n");
  c.command("SET k %s", "a b");
  const std::string line = monitor.read(200, 500);
  CHECK(line.starts_with("+"));
  CHECK(line.find("\"SET\" \"k\" \"a b\"") != std::string::npos);
  CHECK(c.command("ROLE") == "[\"master\", (integer) 0, []]");
  CHECK(c.command("LATENCY LATEST") == "[]");
  CHECK(c.command("LATENCY DOCTOR").find("no latency spike") != std::string::npos);
  CHECK(c.command("SLOWLOG LEN") == "(integer) 0");
  CHECK(c.command("LASTSAVE").starts_with("(integer) "));
  CHECK(c.command("BGSAVE") == "Background saving started");
}

TEST_CASE("SHUTDOWN stops the server without a reply, ABORT has nothing to abort", "[server][admin]") {
  RunningServer s;
  Hiredis c(s.port());
  CHECK(c.command("SHUTDOWN ABORT") == "(error) ERR No shutdown in progress.");
  CHECK(c.command("SHUTDOWN BOGUS") == "(error) ERR syntax error");
  RawClient raw(s.port());
  raw.send("SHUTDOWN NOSAVE\r\n");
  std::string rest;
  CHECK(raw.read_until_closed(rest));
  CHECK(rest.empty());
  CHECK(c.command("PING") == "(connection error)");
}

TEST_CASE("SLOWLOG keeps the commands over slowlog-log-slower-than, as Redis shortens them", "[server][admin]") {
  RunningServer s;
  Hiredis c(s.port());
  CHECK(c.command("CONFIG SET slowlog-log-slower-than 0") == "OK");
  CHECK(c.command("SLOWLOG RESET") == "OK");
  c.command("GET foo");
  const std::string newest = c.command("SLOWLOG GET 1");
  INFO(newest);
  CHECK(newest.find("[\"GET\", \"foo\"], \"127.0.0.1:") != std::string::npos);
  CHECK(c.command("SLOWLOG LEN") == "(integer) 3");  // SLOWLOG RESET, GET, SLOWLOG GET
  c.command("SET big %s", std::string(200, 'x').c_str());
  CHECK(c.command("SLOWLOG GET 1").find("\"" + std::string(128, 'x') + "... (72 more bytes)\"") != std::string::npos);
  std::string many = "DEL";
  for (int i = 0; i < 40; ++i) many += " k" + std::to_string(i);
  c.command(many.c_str());
  const std::string shortened = c.command("SLOWLOG GET 1");
  CHECK(shortened.find("\"k29\", \"... (10 more arguments)\"]") != std::string::npos);
  c.command("AUTH default secret");
  CHECK(c.command("SLOWLOG GET 1").find("[\"AUTH\", \"(redacted)\", \"(redacted)\"]") != std::string::npos);
  CHECK(c.command("CONFIG SET slowlog-max-len 2") == "OK");
  c.command("PING");
  CHECK(c.command("SLOWLOG LEN") == "(integer) 2");
  CHECK(c.command("CONFIG SET slowlog-log-slower-than -1") == "OK");
  CHECK(c.command("SLOWLOG RESET") == "OK");
  c.command("PING");
  CHECK(c.command("SLOWLOG LEN") == "(integer) 0");
  CHECK(c.command("SLOWLOG GET -2") == "(error) ERR count should be greater than or equal to -1");
  CHECK(c.command("CONFIG SET slowlog-max-len -1").starts_with("(error) ERR CONFIG SET failed"));
}

TEST_CASE("COMMAND LIST names each container's subcommands, every one answered", "[server][info]") {
  RunningServer s;
  Hiredis c(s.port());
  redisReply* list = static_cast<redisReply*>(redisCommand(c.ctx, "COMMAND LIST"));
  REQUIRE(list);
  REQUIRE(list->type == REDIS_REPLY_ARRAY);
  CHECK(list->elements > 300);  // redis-py's test_command_list
  std::vector<std::string> subcommands;
  for (size_t i = 0; i < list->elements; ++i) {
    const std::string name(list->element[i]->str, list->element[i]->len);
    if (name.find('|') != std::string::npos) subcommands.push_back(name);
  }
  freeReplyObject(list);
  CHECK(subcommands.size() > 90);
  CHECK(std::find(subcommands.begin(), subcommands.end(), "config|get") != subcommands.end());
  for (const std::string& full : subcommands) {
    const std::string container = full.substr(0, full.find('|')), sub = full.substr(full.find('|') + 1);
    if (full == "client|pause" || full == "script|kill" || full == "function|kill") continue;  // (they act)
    const std::string reply = c.command("%s %s", container.c_str(), sub.c_str());
    const std::string error = reply.starts_with("(error)") ? reply : "";
    INFO(full << " answered " << error);
    CHECK(error.find("unknown subcommand '") == std::string::npos);
    CHECK(error.find("unknown command") == std::string::npos);
    CHECK(error.find("not modelled") == std::string::npos);
  }
  CHECK(c.command("COMMAND LIST FILTERBY PATTERN client|k*") == "[\"client|kill\"]");
}

TEST_CASE("MEMORY STATS, MODULE, REPLICAOF NO ONE, CLUSTER and LOLWUT answer as a standalone Redis", "[server][admin]") {
  RunningServer s;
  Hiredis c(s.port());
  c.command("SET k v");
  const std::string stats = c.command("MEMORY STATS");
  CHECK(stats.find("\"keys.count\", (integer) 1") != std::string::npos);
  CHECK(stats.find("\"db.0\", [\"overhead.hashtable.main\"") != std::string::npos);
  CHECK(c.command("MEMORY MALLOC-STATS") == "\"Stats not supported for the current allocator\"");
  CHECK(c.command("MEMORY DOCTOR").find("Hi Sam") != std::string::npos);
  CHECK(c.command("MEMORY PURGE") == "OK");
  CHECK(c.command("MEMORY NOSUCH") == "(error) ERR unknown subcommand 'NOSUCH'. Try MEMORY HELP.");
  CHECK(c.command("MODULE LIST") == "[]");
  CHECK(c.command("MODULE LOAD /x.so").starts_with("(error) ERR MODULE command not allowed."));
  CHECK(c.command("REPLICAOF NO ONE") == "OK");
  CHECK(c.command("REPLICAOF %s", "NO ONE") == "(error) ERR wrong number of arguments for 'replicaof' command");
  CHECK(c.command("REPLICAOF 127.0.0.1 6379").find("not modelled") != std::string::npos);
  CHECK(c.command("CLUSTER INFO") == "(error) ERR This instance has cluster support disabled");
  CHECK(c.command("LOLWUT VERSION 5").find("Redis ver. 7.0.15") != std::string::npos);
  CHECK(c.command("MULTI") == "OK");  // queued like Redis's own, answered at EXEC
  CHECK(c.command("MODULE LIST") == "QUEUED");
  CHECK(c.command("EXEC") == "[[]]");
}

TEST_CASE("maxmemory counts the clients' unread replies, as Redis's used_memory does", "[server][admin]") {
  RunningServer s;
  Hiredis c(s.port());
  CHECK(c.command("SET big %s", std::string(100'000, 'v').c_str()) == "OK");
  CHECK(c.command("CONFIG SET maxmemory 2mb") == "OK");
  CHECK(c.command("SET k v") == "OK");
  {
    // One MGET of the 100 KB key 200 times (a 20 MB reply) that nobody reads: what the
    // kernel does not take waits in the server's output buffer, far past the cap.
    RawClient hoarder(s.port());
    std::string request = "*201\r\n$4\r\nMGET\r\n";
    for (int i = 0; i < 200; ++i) request += "$3\r\nbig\r\n";
    hoarder.send(request);
    bool refused = false;
    for (int attempt = 0; attempt < 100 && !refused; ++attempt) {  // until the server has answered them all
      refused = c.command("SET k v") == "(error) OOM command not allowed when used memory > 'maxmemory'.";
      if (!refused) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    CHECK(refused);
    CHECK(std::stoll(info_value(c, "memory", "used_memory")) > 2 * 1024 * 1024);
  }
  // The hoarder gone, its buffers go with it, and writes pass again.
  bool passed = false;
  for (int attempt = 0; attempt < 100 && !passed; ++attempt) {
    passed = c.command("SET k v") == "OK";
    if (!passed) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(passed);
}

TEST_CASE("CONFIG SET maxmemory moves the model's cap, with Redis's units", "[server][admin]") {
  RunningServer s;
  Hiredis c(s.port());
  CHECK(c.command("CONFIG SET maxmemory 100") == "OK");
  CHECK(c.command("CONFIG GET maxmemory") == "[\"maxmemory\", \"100\"]");
  // serve counts what Redis's used_memory counts (an empty server's bytes, the clients'
  // buffers, the data set): under a 100-byte cap the first write is refused, as in Redis.
  CHECK(c.command("SET k %s", std::string(200, 'v').c_str()) == "(error) OOM command not allowed when used memory > 'maxmemory'.");
  CHECK(c.command("GET k") == "(nil)");  // reads still pass
  CHECK(info_value(c, "memory", "maxmemory") == "100");
  CHECK(c.command("CONFIG SET maxmemory 1mb") == "OK");
  CHECK(c.command("CONFIG GET maxmemory") == "[\"maxmemory\", \"1048576\"]");
  CHECK(c.command("SET k2 v") == "OK");
  CHECK(std::stoll(info_value(c, "memory", "used_memory")) >= 880'000);
  CHECK(c.command("CONFIG SET maxmemory lots") ==
        "(error) ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value");
  CHECK(c.command("CONFIG SET maxmemory 0 timeout 70") == "OK");  // 0: no cap, as in Redis
  CHECK(c.command("CONFIG GET maxmemory") == "[\"maxmemory\", \"0\"]");
}
