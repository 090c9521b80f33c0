#pragma once
// A blocking hiredis connection to a real redis-server, speaking our Command
// and Reply types: for setting servers up, reading them at the end of a run,
// differential tests and benchmarks.
#include <hiredis/hiredis.h>

#include <string>

#include "locksim/sim/redis/reply.hpp"
#include "locksim/sim/redis/resp.hpp"

namespace locksim::real {

// The reply hiredis read, as a model Reply (a null array reads as nil: RESP2
// does not tell them apart).
redis::Reply from_hiredis(const redisReply* reply);

// One command on a blocking hiredis context, its reply; throws std::runtime_error if the connection failed.
redis::Reply execute(redisContext* ctx, const redis::Command& command);
// Queues a command on the context without reading its reply (pipelining).
void append(redisContext* ctx, const redis::Command& command);

class SyncClient {
 public:
  // Throws std::runtime_error naming the socket on failure.
  static SyncClient unix_socket(const std::string& path);
  static SyncClient loopback(int port);
  ~SyncClient();
  SyncClient(SyncClient&& other) noexcept;
  SyncClient& operator=(SyncClient&&) = delete;
  SyncClient(const SyncClient&) = delete;

  // One command, its reply; throws std::runtime_error if the connection failed.
  redis::Reply execute(const redis::Command& command);
  // Pipelining: queue a command, then read `count` replies (discarded).
  void append(const redis::Command& command);
  void drain(int count);
  redisContext* context() { return ctx_; }

 private:
  explicit SyncClient(redisContext* ctx) : ctx_(ctx) {}
  redisContext* ctx_;
};

}  // namespace locksim::real
