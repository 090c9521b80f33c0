#include "real_redis.hpp"

#include <stdexcept>

namespace locksim::redis::testing {

namespace {
real::RedisOptions options(const std::string& dir) {
  real::RedisOptions o;
  o.binary = real::find_redis_server();
  if (o.binary.empty())
    throw std::runtime_error(
        "redis-server not found on PATH: install the redis-server package (7.0) to run the "
        "differential tests");
  o.dir = dir;
  return o;
}
}  // namespace

RealRedis::RealRedis() : dir_("locksim-redis"), process_(options(dir_.path())) { process_.start(); }

redisContext* RealRedis::connect() {
  redisContext* ctx = redisConnectUnix(socket_path().c_str());
  if (!ctx || ctx->err) {
    std::string why = ctx ? ctx->errstr : "out of memory";
    if (ctx) redisFree(ctx);
    throw std::runtime_error("cannot connect to " + socket_path() + ": " + why);
  }
  // A reply that never comes (a generated command that blocks forever) fails the test instead of hanging it.
  redisSetTimeout(ctx, timeval{30, 0});
  return ctx;
}

}  // namespace locksim::redis::testing
