#pragma once
// SLOWLOG as Redis 7.0 keeps it (slowlog.c): every command that took at least
// slowlog-log-slower-than microseconds (negative: none, 0: all), newest first, at most
// slowlog-max-len entries, each with its arguments shortened as Redis shortens them
// (internal).
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "locksim/sim/redis/reply.hpp"
#include "locksim/sim/redis/resp.hpp"

namespace locksim::server {

class SlowLog {
 public:
  struct Entry {
    uint64_t id = 0;
    int64_t unix_seconds = 0;
    int64_t duration_us = 0;
    std::vector<std::string> args;
    std::string peer, client_name;
  };

  // After a command ran: kept if it took at least slower_than_us.
  void record(const redis::Command& argv, int64_t duration_us, const std::string& peer, const std::string& name);
  // CONFIG SET's values, kept parsed: every command is measured against them.
  int64_t slower_than_us = 10000;  // slowlog-log-slower-than (negative: none, 0: all)
  int64_t max_len = 128;           // slowlog-max-len
  // SLOWLOG GET [count] | LEN | RESET | HELP.
  redis::Reply command(const redis::Command& argv);

 private:
  std::deque<Entry> entries_;  // newest first
  uint64_t next_id_ = 0;
};

}  // namespace locksim::server
