#pragma once
// A real redis-server for differential tests: started on a Unix socket in a
// private temporary directory, persistence off, killed when the object dies
// (and by the kernel if this process dies first).
#include <hiredis/hiredis.h>

#include <memory>
#include <string>

#include "sim/redis/server.hpp"

namespace locksim::redis::testing {

class RealRedis {
 public:
  // Throws std::runtime_error with a clear message if redis-server cannot be started.
  RealRedis();
  ~RealRedis();
  RealRedis(const RealRedis&) = delete;
  RealRedis& operator=(const RealRedis&) = delete;

  const std::string& socket_path() const { return socket_; }
  // A new hiredis connection; throws on failure.
  redisContext* connect();

 private:
  std::string dir_;
  std::string socket_;
  int pid_ = -1;
};

// The reply a hiredis connection read, as a model Reply (a null array reads as nil:
// hiredis does not tell them apart in RESP2).
Reply from_hiredis(const redisReply* reply);
// Sends one command and converts the reply; throws if the connection failed.
Reply hiredis_execute(redisContext* ctx, const Command& command);

// The first redis-server on PATH, or empty.
std::string find_redis_server();

}  // namespace locksim::redis::testing
