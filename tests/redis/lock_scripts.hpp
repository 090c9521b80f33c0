#pragma once
// The Lua scripts of the lock algorithms in failures.md, as clients send them.
namespace locksim::redis::testing {

// token-lua release: delete only if the key still holds our token.
inline constexpr const char* kCompareAndDelete =
    "if redis.call('get',KEYS[1])==ARGV[1] then return redis.call('del',KEYS[1]) else return 0 end";

// watchdog renewal: re-arm the lease only if the key still holds our token.
inline constexpr const char* kCompareAndPexpire =
    "if redis.call('get',KEYS[1])==ARGV[1] then return redis.call('pexpire',KEYS[1],ARGV[2]) else return 0 end";

// Redisson RedissonLock.tryLockInnerAsync: KEYS[1]=lock, ARGV[1]=lease ms, ARGV[2]=owner id.
inline constexpr const char* kRedissonLock =
    "if ((redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then "
    "redis.call('hincrby', KEYS[1], ARGV[2], 1); "
    "redis.call('pexpire', KEYS[1], ARGV[1]); "
    "return nil; "
    "end; "
    "return redis.call('pttl', KEYS[1]);";

// Redisson RedissonLock.unlockInnerAsync: KEYS[1]=lock, KEYS[2]=channel,
// ARGV[1]=unlock message, ARGV[2]=lease ms, ARGV[3]=owner id.
inline constexpr const char* kRedissonUnlock =
    "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then "
    "return nil;"
    "end; "
    "local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); "
    "if (counter > 0) then "
    "redis.call('pexpire', KEYS[1], ARGV[2]); "
    "return 0; "
    "else "
    "redis.call('del', KEYS[1]); "
    "redis.call('publish', KEYS[2], ARGV[1]); "
    "return 1; "
    "end; "
    "return nil;";

// Redisson RedissonBaseLock.renewExpirationAsync: KEYS[1]=lock, ARGV[1]=lease ms, ARGV[2]=owner id.
inline constexpr const char* kRedissonRenew =
    "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then "
    "redis.call('pexpire', KEYS[1], ARGV[1]); "
    "return 1; "
    "end; "
    "return 0;";

}  // namespace locksim::redis::testing
