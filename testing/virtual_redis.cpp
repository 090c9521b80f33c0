#include "locksim/testing/virtual_redis.hpp"

#include <stdexcept>

#include "locksim/sim/redis/cli_format.hpp"
#include "locksim/sim/redis/cli_split.hpp"

namespace locksim::testing {

namespace {

std::vector<std::string> split(std::string_view line) {
  auto args = redis::split_cli_line(line);
  if (!args) throw std::invalid_argument("VirtualRedis: unbalanced quotes in '" + std::string(line) + "'");
  return *args;
}

}  // namespace

VirtualRedis::VirtualRedis(int64_t start_ms, redis::ServerOptions options)
    : server_(options), default_conn_(server_.connect()), now_ms_(start_ms) {}

redis::Reply VirtualRedis::run(std::string_view line) { return command(split(line)); }

redis::Reply VirtualRedis::command(const std::vector<std::string>& args) {
  return server_.execute(default_conn_, args, now_ms_);
}

std::string VirtualRedis::text(std::string_view line) {
  std::string printed = redis::format_cli_reply(run(line));
  if (!printed.empty() && printed.back() == '\n') printed.pop_back();
  return printed;
}

redis::ConnectionId VirtualRedis::connect() { return server_.connect(); }

redis::Reply VirtualRedis::run_on(redis::ConnectionId conn, std::string_view line) {
  return server_.execute(conn, split(line), now_ms_);
}

void VirtualRedis::advance_ms(int64_t ms) {
  if (ms < 0) throw std::invalid_argument("VirtualRedis: time only moves forward");
  now_ms_ += ms;
}

}  // namespace locksim::testing
