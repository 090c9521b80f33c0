-- A fair lock as Redisson's RedissonFairLock writes it: waiters queue in a list,
-- each place has a timeout in a sorted set, and stale places are removed from
-- the head of the queue. The bug: every time in the script comes from the
-- caller's clock (Redisson passes System.currentTimeMillis() as ARGV), so the
-- place a waiter takes times out by its clock and is judged stale by the next
-- caller's. A caller whose clock is ahead judges a live waiter's place timed out
-- and removes it; a waiter whose clock is behind writes a timeout already past.
--   locksim check fair-client-clock --variant examples/buggy/fair_client_clock.lua --faults skew
-- Expected: bounded-wait (a live waiter dropped from the queue, overtaken by
-- later arrivals), by the clocks the script read.
name = "fair-client-clock"
summary = "Redisson-style fair lock whose place timeouts are read and written on the callers' clocks"
claims = { "mutual-exclusion", "no-deadlock", "owner-only-release", "no-zombie-lock", "no-stalled-wait", "bounded-wait" }

-- KEYS: lock, queue, timeouts. ARGV: token, lease, place timeout (ms), caller's now (ms).
local ACQUIRE = [[
local now = tonumber(ARGV[4])
while true do
  local first = redis.call('lindex', KEYS[2], 0)
  if first == false then break end
  local timeout = tonumber(redis.call('zscore', KEYS[3], first))
  if timeout ~= nil and timeout > now then break end
  redis.call('zrem', KEYS[3], first)
  redis.call('lpop', KEYS[2])
end
if redis.call('exists', KEYS[1]) == 0 and
   (redis.call('llen', KEYS[2]) == 0 or redis.call('lindex', KEYS[2], 0) == ARGV[1]) then
  redis.call('lpop', KEYS[2])
  redis.call('zrem', KEYS[3], ARGV[1])
  redis.call('set', KEYS[1], ARGV[1], 'px', ARGV[2])
  return 1
end
if redis.call('zscore', KEYS[3], ARGV[1]) == false then
  redis.call('rpush', KEYS[2], ARGV[1])
end
redis.call('zadd', KEYS[3], now + tonumber(ARGV[3]), ARGV[1])
return 0]]

local RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"
local held

local function keys() return param("key"), param("key") .. ":queue", param("key") .. ":timeouts" end

function acquire()
  local deadline = monotonic_ms() + param("wait-limit")
  local me = token()
  local lock, queue, timeouts = keys()
  -- a place outlives two attempts: a retry interval plus a call's timeout each
  local place = 2 * (param("retry") + param("call-timeout"))
  while true do
    if call("EVAL", ACQUIRE, 3, lock, queue, timeouts, me, param("lease"), place, math.floor(now())) == 1 then
      held = me
      return true
    end
    if monotonic_ms() >= deadline then
      call("EVAL", "redis.call('lrem', KEYS[1], 0, ARGV[1]); return redis.call('zrem', KEYS[2], ARGV[1])", 2,
           queue, timeouts, me)
      return false
    end
    sleep(param("retry"))
  end
end

function release()
  return call("EVAL", RELEASE, 1, param("key"), held) == 1
end
