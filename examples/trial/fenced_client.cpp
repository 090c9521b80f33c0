// A C++ lock client on trial, with a fencing token: SET NX PX to acquire, a Lua script
// that deletes only its own value to release, and INCR for a token that every write to
// the protected resource carries (LOCKSIM.WRITE refuses a token older than one it has
// accepted). Under pauses beyond the lease two clients may believe they hold the lock
// (mutual exclusion fails, as for every lease), but a stale holder's writes are refused:
// fenced writes hold.
//
//   locksim trial -- build/examples/trial/trial_fenced_client [lease-ms] [work-ms]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>

#include "locksim_trial.hpp"

namespace {
constexpr const char* kRelease =
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

struct Reply {
  redisReply* r;
  explicit Reply(void* p) : r(static_cast<redisReply*>(p)) {}
  ~Reply() {
    if (r) freeReplyObject(r);
  }
};
}  // namespace

int main(int argc, char** argv) {
  const long lease_ms = argc > 1 ? std::atol(argv[1]) : 2000;
  const long work_ms = argc > 2 ? std::atol(argv[2]) : 50;
  locksim_trial::Trial trial;
  std::mt19937_64 random(static_cast<uint64_t>(::getpid()));
  redisContext* redis = nullptr;
  long writes = 0;
  while (trial.running()) {
    if (!redis && !(redis = trial.connect(0))) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    const std::string value = trial.client() + ":" + std::to_string(random());
    Reply set(redisCommand(redis, "SET lock:orders %s NX PX %ld", value.c_str(), lease_ms));
    if (!set.r) {  // the connection failed or timed out: a new one
      redisFree(redis);
      redis = nullptr;
      continue;
    }
    if (set.r->type != REDIS_REPLY_STATUS) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    Reply token(redisCommand(redis, "INCR fence:orders"));
    if (!token.r || token.r->type != REDIS_REPLY_INTEGER) continue;  // its lease ends it
    trial.enter("orders", token.r->integer);
    for (int step = 0; step < 2; ++step) {
      std::this_thread::sleep_for(std::chrono::milliseconds(work_ms / 2));
      if (trial.write("orders", token.r->integer, value)) ++writes;
    }
    trial.exit("orders");
    Reply released(redisCommand(redis, "EVAL %s 1 lock:orders %s", kRelease, value.c_str()));
  }
  std::printf("%s: %ld writes accepted\n", trial.client().c_str(), writes);
  if (redis) redisFree(redis);
  return 0;
}
