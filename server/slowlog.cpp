#include "locksim/server/slowlog.hpp"

#include <chrono>

#include "locksim/sim/redis/arguments.hpp"

namespace locksim::server {

using redis::Command;
using redis::Reply;

namespace {
// Redis SLOWLOG_ENTRY_MAX_ARGC and SLOWLOG_ENTRY_MAX_STRING.
constexpr size_t kMaxArgs = 32;
constexpr size_t kMaxString = 128;

// AUTH's and HELLO AUTH's secrets never reach the log (Redis redactClientCommandArgument).
bool redacted(const Command& argv, size_t i) {
  if (redis::equals_lower(argv[0], "auth")) return i > 0;
  if (!redis::equals_lower(argv[0], "hello")) return false;
  for (size_t j = 2; j + 2 < argv.size() && j < i; ++j)
    if (redis::equals_lower(argv[j], "auth") && (i == j + 1 || i == j + 2)) return true;
  return false;
}

std::string shortened(const std::string& arg) {
  if (arg.size() <= kMaxString) return arg;
  return arg.substr(0, kMaxString) + "... (" + std::to_string(arg.size() - kMaxString) + " more bytes)";
}
}  // namespace

void SlowLog::record(const Command& argv, int64_t duration_us, const std::string& peer, const std::string& name) {
  if (slower_than_us < 0 || duration_us < slower_than_us) return;
  Entry entry;
  entry.id = next_id_++;
  entry.unix_seconds =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  entry.duration_us = duration_us;
  const size_t kept = argv.size() > kMaxArgs ? kMaxArgs - 1 : argv.size();
  for (size_t i = 0; i < kept; ++i) entry.args.push_back(redacted(argv, i) ? "(redacted)" : shortened(argv[i]));
  if (kept < argv.size())
    entry.args.push_back("... (" + std::to_string(argv.size() - kept) + " more arguments)");
  entry.peer = peer;
  entry.client_name = name;
  entries_.push_front(std::move(entry));
  while (static_cast<int64_t>(entries_.size()) > max_len) entries_.pop_back();
}

Reply SlowLog::command(const Command& argv) {
  const bool help = argv.size() == 2 && redis::equals_lower(argv[1], "help");
  if (help)
    return Reply::array({Reply::status("SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"),
                         Reply::status("GET [<count>]"),
                         Reply::status("    Return top <count> entries from the slowlog (default: 10, -1 mean all)."),
                         Reply::status("    Entries are made of:"),
                         Reply::status("    id, timestamp, time in microseconds, arguments array, client IP and port,"),
                         Reply::status("    client name"),
                         Reply::status("LEN"),
                         Reply::status("    Return the length of the slowlog."),
                         Reply::status("RESET"),
                         Reply::status("    Reset the slowlog."),
                         Reply::status("HELP"),
                         Reply::status("    Prints this help.")});
  if (argv.size() == 2 && redis::equals_lower(argv[1], "reset")) {
    entries_.clear();
    return Reply::ok();
  }
  if (argv.size() == 2 && redis::equals_lower(argv[1], "len")) return Reply::integer_(static_cast<int64_t>(entries_.size()));
  if ((argv.size() == 2 || argv.size() == 3) && redis::equals_lower(argv[1], "get")) {
    int64_t count = 10;
    if (argv.size() == 3 && (!redis::parse_int64(argv[2], count) || count < -1))
      return Reply::error("ERR count should be greater than or equal to -1");
    if (count == -1) count = static_cast<int64_t>(entries_.size());
    std::vector<Reply> out;
    for (const Entry& e : entries_) {
      if (static_cast<int64_t>(out.size()) >= count) break;
      std::vector<Reply> args;
      for (const std::string& a : e.args) args.push_back(Reply::bulk(a));
      out.push_back(Reply::array({Reply::integer_(static_cast<int64_t>(e.id)), Reply::integer_(e.unix_seconds),
                                  Reply::integer_(e.duration_us), Reply::array(std::move(args)), Reply::bulk(e.peer),
                                  Reply::bulk(e.client_name)}));
    }
    return Reply::array(std::move(out));
  }
  return Reply::error("ERR unknown subcommand or wrong number of arguments for '" + argv[1].substr(0, 128) +
                      "'. Try SLOWLOG HELP.");
}

}  // namespace locksim::server
