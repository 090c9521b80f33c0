#pragma once
// A real redis-server for differential tests: real/process.hpp's launcher on
// a Unix socket in a private temporary directory, persistence off, killed
// when the object dies (and by the kernel if this process dies first).
#include <hiredis/hiredis.h>

#include <string>

#include "locksim/real/process.hpp"
#include "locksim/real/sync_client.hpp"
#include "locksim/sim/redis/server.hpp"

namespace locksim::redis::testing {

class RealRedis {
 public:
  // Throws std::runtime_error with a clear message if redis-server cannot be started.
  RealRedis();
  const std::string& socket_path() const { return process_.socket_path(); }
  // A new hiredis connection; throws on failure.
  redisContext* connect();

 private:
  real::TempDir dir_;
  real::RedisProcess process_;
};

using real::find_redis_server;
using real::from_hiredis;
inline Reply hiredis_execute(redisContext* ctx, const Command& command) { return real::execute(ctx, command); }

}  // namespace locksim::redis::testing
