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

  // After a command ran; `slower_than_us` and `max_len` are the configured values.
  void record(const redis::Command& argv, int64_t duration_us, const std::string& peer, const std::string& name,
              int64_t slower_than_us, int64_t max_len);
  // SLOWLOG GET [count] | LEN | RESET | HELP.
  redis::Reply command(const redis::Command& argv);

 private:
  std::deque<Entry> entries_;  // newest first
  uint64_t next_id_ = 0;
};

}  // namespace locksim::server
