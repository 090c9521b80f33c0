#pragma once
// The Lua scripts of the lock evolution, as the posts (and Redisson) give them
// (docs/failures.md#algorithms).
#include <string_view>

namespace locksim::lock::scripts {

// token-lua's release: delete the key only if it still holds my token.
inline constexpr std::string_view kCompareAndDelete =
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

// pubsub-wait's release (Redisson's unlock without the hold counts): delete the
// key only if it still holds my token, and tell the waiters subscribed to the
// lock's channel. KEYS[1] lock, KEYS[2] channel; ARGV[1] my token.
inline constexpr std::string_view kCompareDeleteAndPublish =
    "if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('del', KEYS[1]) "
    "redis.call('publish', KEYS[2], 'unlocked') return 1 else return 0 end";

// The watchdog's renewal: re-arm the lease only if the key still holds my token.
inline constexpr std::string_view kCompareAndPexpire =
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";

// Redisson RedissonLock.tryLockInnerAsync: a hash of hold counts per owner.
// KEYS[1] lock; ARGV[1] lease ms, ARGV[2] owner. nil = acquired, else the PTTL left.
inline constexpr std::string_view kReentrantLock =
    "if ((redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then "
    "redis.call('hincrby', KEYS[1], ARGV[2], 1); "
    "redis.call('pexpire', KEYS[1], ARGV[1]); "
    "return nil; "
    "end; "
    "return redis.call('pttl', KEYS[1]);";

// Redisson RedissonLock.unlockInnerAsync. KEYS[1] lock, KEYS[2] channel;
// ARGV[1] unlock message, ARGV[2] lease ms, ARGV[3] owner.
// nil = not the owner, 0 = still held (count > 0), 1 = deleted.
inline constexpr std::string_view kReentrantUnlock =
    "if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then "
    "return nil; "
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

// Redisson RedissonBaseLock.renewExpirationAsync. KEYS[1] lock; ARGV[1] lease ms, ARGV[2] owner.
inline constexpr std::string_view kReentrantRenew =
    "if (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then "
    "redis.call('pexpire', KEYS[1], ARGV[1]); "
    "return 1; "
    "end; "
    "return 0;";

// The fair lock: a ticket queue. A waiter refreshes its heartbeat key on every
// attempt; tickets whose waiter vanished (crashed, gave up, or paused past the
// heartbeat) are skipped, as Redisson drops stale waiters after their wait time.
// A ticket the queue no longer knows — already passed, or above every ticket
// issued because Redis restarted and forgot the queue — gets -1: the waiter
// takes a new one instead of waiting forever behind the new queue. The
// heartbeat key holds its waiter's token: after such a restart, a ticket
// drawn before it may carry the number the new queue gave someone else, and
// that ticket also gets -1 instead of taking the other waiter's place.
// A retry whose earlier attempt won but whose reply was lost finds the lock
// holding its own token: it holds the lock (re-armed for a whole lease), instead
// of queueing again behind everyone while its orphaned key blocks them.
// KEYS[1] lock, KEYS[2] now-serving counter, KEYS[3] waiter key prefix,
// KEYS[4] ticket counter; ARGV[1] my ticket, ARGV[2] my token, ARGV[3] lease ms,
// ARGV[4] heartbeat ms.
inline constexpr std::string_view kFairAcquire =
    "if redis.call('get', KEYS[1]) == ARGV[2] then redis.call('pexpire', KEYS[1], ARGV[3]) return 1 end "
    "local me = tonumber(ARGV[1]) "
    "local serving = tonumber(redis.call('get', KEYS[2]) or '1') "
    "if me > tonumber(redis.call('get', KEYS[4]) or '0') or me < serving then return -1 end "
    "local holder = redis.call('get', KEYS[3] .. ARGV[1]) "
    "if holder and holder ~= ARGV[2] then return -1 end "
    "redis.call('set', KEYS[3] .. ARGV[1], ARGV[2], 'PX', ARGV[4]) "
    "while serving < me and redis.call('exists', KEYS[3] .. serving) == 0 do serving = serving + 1 end "
    "redis.call('set', KEYS[2], serving) "
    "if serving == me and redis.call('exists', KEYS[1]) == 0 then "
    "redis.call('set', KEYS[1], ARGV[2], 'PX', ARGV[3]) "
    "redis.call('del', KEYS[3] .. ARGV[1]) "
    "return 1 "
    "end "
    "return 0";

// The fair lock's ticket: drawn and registered as a live waiter (its heartbeat
// key holding the waiter's token) in one atomic step, so no other waiter can
// skip it before its first attempt.
// KEYS[1] ticket counter, KEYS[2] waiter key prefix; ARGV[1] heartbeat ms, ARGV[2] my token.
inline constexpr std::string_view kFairTicket =
    "local t = redis.call('incr', KEYS[1]) "
    "redis.call('set', KEYS[2] .. t, ARGV[2], 'PX', ARGV[1]) "
    "return t";

}  // namespace locksim::lock::scripts
