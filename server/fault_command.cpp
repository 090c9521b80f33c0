// LOCKSIM.FAULT: faults aimed at chosen clients and commands (the other LOCKSIM.* faults
// hit every client alike).
//   ADD <kind> [CLIENT id] [NAME glob] [ADDR glob] [COMMAND glob] [KEY glob]
//       [COUNT n] [FOR ms] [HANDSHAKES]                         -> the rule's id
//     kinds: DELAY ms (the reply waits), DROP-REPLY (runs, no reply), DROP-REQUEST
//     (neither runs nor answers), CLOSE (the connection closes, the command unrun),
//     ERROR "CODE message" (answered instead of running)
//   LIST -> one line per rule;  CLEAR [id ...] -> rules removed;  REFUSE ms -> OK
// The first rule that selects a command applies. Handshake commands (HELLO AUTH SELECT
// CLIENT SETNAME/SETINFO/ID/GETNAME) are spared unless the rule says HANDSHAKES.
#include "locksim/server/connection.hpp"
#include "locksim/server/lower.hpp"
#include "locksim/server/traffic.hpp"
#include "locksim/sim/redis/arguments.hpp"

namespace locksim::server {

using redis::Command;
using redis::Reply;

namespace {
constexpr size_t kMaxRules = 1024;

Reply usage() {
  return Reply::error(
      "ERR usage: LOCKSIM.FAULT ADD DELAY ms|DROP-REPLY|DROP-REQUEST|CLOSE|ERROR msg [CLIENT id] [NAME glob] "
      "[ADDR glob] [COMMAND glob] [KEY glob] [COUNT n] [FOR ms] [HANDSHAKES] | LIST | CLEAR [id ...] | REFUSE ms");
}

std::optional<int64_t> non_negative(const std::string& text) {
  int64_t v = 0;
  if (!redis::parse_int64(text, v) || v < 0) return std::nullopt;
  return v;
}

// A duration: at most kMaxDurationMs, so a deadline (now + ms) or a timer cannot overflow.
std::optional<int64_t> duration_ms(const std::string& text) {
  auto ms = non_negative(text);
  return ms && *ms <= kMaxDurationMs ? ms : std::nullopt;
}

Reply add_rule(Traffic& traffic, const Command& argv) {
  if (argv.size() < 3) return usage();
  if (traffic.rules.size() >= kMaxRules) return Reply::error("ERR too many fault rules (1024): CLEAR some first");
  FaultRule rule;
  const std::string kind = lower(argv[2]);
  size_t i = 3;
  if (kind == "delay") {
    auto ms = i < argv.size() ? duration_ms(argv[i]) : std::nullopt;
    if (!ms) return Reply::error("ERR DELAY wants a number of milliseconds from 0 to 31536000000 (a year)");
    rule.kind = FaultRule::Kind::Delay;
    rule.delay_ms = *ms;
    ++i;
  } else if (kind == "drop-reply") {
    rule.kind = FaultRule::Kind::DropReply;
  } else if (kind == "drop-request") {
    rule.kind = FaultRule::Kind::DropRequest;
  } else if (kind == "close") {
    rule.kind = FaultRule::Kind::Close;
  } else if (kind == "error") {
    if (i >= argv.size() || argv[i].empty()) return Reply::error("ERR ERROR wants the error reply's text");
    rule.kind = FaultRule::Kind::Error;
    rule.error = argv[i++];
    for (char& c : rule.error)
      if (c == '\r' || c == '\n') c = ' ';  // one line on the wire
  } else {
    return usage();
  }
  for (; i < argv.size(); ++i) {
    const std::string option = lower(argv[i]);
    if (option == "handshakes") {
      rule.handshakes = true;
      continue;
    }
    if (i + 1 >= argv.size()) return usage();
    const std::string& value = argv[++i];
    if (option == "client" || option == "id") {
      auto id = non_negative(value);
      if (!id || *id == 0) return Reply::error("ERR CLIENT wants a client id (CLIENT ID tells it)");
      rule.client = static_cast<redis::ConnectionId>(*id);
    } else if (option == "name") {
      rule.name = value;
    } else if (option == "addr") {
      rule.addr = value;
    } else if (option == "command") {
      rule.command = lower(value);
    } else if (option == "key") {
      rule.key = value;
    } else if (option == "count") {
      auto n = non_negative(value);
      if (!n || *n == 0) return Reply::error("ERR COUNT wants a number of commands > 0");
      rule.remaining = *n;
    } else if (option == "for") {
      auto ms = duration_ms(value);
      if (!ms) return Reply::error("ERR FOR wants a number of milliseconds from 0 to 31536000000 (a year)");
      rule.until_ms = Clock::host_ms() + *ms;
    } else {
      return usage();
    }
  }
  rule.id = traffic.next_rule_id++;
  traffic.rules.push_back(std::move(rule));
  return Reply::integer_(static_cast<int64_t>(traffic.rules.back().id));
}

Reply clear_rules(Traffic& traffic, const Command& argv) {
  if (argv.size() == 2) {
    const size_t n = traffic.rules.size();
    traffic.rules.clear();
    traffic.refuse_until_ms = 0;
    return Reply::integer_(static_cast<int64_t>(n));
  }
  int64_t removed = 0;
  for (size_t i = 2; i < argv.size(); ++i) {
    auto id = non_negative(argv[i]);
    if (!id) return Reply::error("ERR CLEAR wants rule ids (LIST shows them)");
    removed += static_cast<int64_t>(std::erase_if(traffic.rules, [&](const FaultRule& r) { return r.id == uint64_t(*id); }));
  }
  return Reply::integer_(removed);
}
}  // namespace

Reply run_fault_command(Server::Core& core, const Command& argv) {
  Traffic& traffic = core.traffic;
  if (argv.size() < 2) return usage();
  const std::string sub = lower(argv[1]);
  if (sub == "add") return add_rule(traffic, argv);
  if (sub == "clear") return clear_rules(traffic, argv);
  if (sub == "list" && argv.size() == 2) {
    const int64_t now = Clock::host_ms();
    std::vector<Reply> lines;
    for (const FaultRule& rule : traffic.rules)
      if (rule.remaining != 0 && (rule.until_ms < 0 || rule.until_ms > now)) lines.push_back(Reply::bulk(rule.describe(now)));
    if (traffic.refuse_until_ms > now)
      lines.push_back(Reply::bulk("refuse-connections for-ms=" + std::to_string(traffic.refuse_until_ms - now)));
    return Reply::array(std::move(lines));
  }
  if (sub == "refuse" && argv.size() == 3) {
    auto ms = duration_ms(argv[2]);
    if (!ms) return Reply::error("ERR REFUSE wants a number of milliseconds from 0 to 31536000000 (a year)");
    traffic.refuse_until_ms = *ms == 0 ? 0 : Clock::host_ms() + *ms;
    return Reply::ok();
  }
  return usage();
}

}  // namespace locksim::server
