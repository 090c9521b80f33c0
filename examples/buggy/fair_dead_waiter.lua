-- A fair lock whose queue never lets go of a waiter that died: waiters queue in
-- a list and refresh their place's timeout in a sorted set on every attempt, as
-- Redisson's fair lock does, but stale places are never removed (the bug). A
-- waiter that crashes at the head of the queue stalls every waiter behind it,
-- though the lock itself is free.
--   locksim check fair-dead-waiter --variant examples/buggy/fair_dead_waiter.lua
-- Expected: no-stalled-wait (F25, queue-stalled-by-dead-waiter).
name = "fair-dead-waiter"
summary = "a FIFO queue of waiters whose dead waiter is never removed: the queue stalls behind it"

-- KEYS: lock, queue, timeouts. ARGV: token, lease, place timeout (ms, on Redis's clock: TIME).
local ACQUIRE = [[
local t = redis.call('time')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
if redis.call('zscore', KEYS[3], ARGV[1]) == false then
  redis.call('rpush', KEYS[2], ARGV[1])
end
redis.call('zadd', KEYS[3], now + tonumber(ARGV[3]), ARGV[1])
if redis.call('exists', KEYS[1]) == 1 then return 0 end
if redis.call('lindex', KEYS[2], 0) ~= ARGV[1] then return 0 end
redis.call('lpop', KEYS[2])
redis.call('zrem', KEYS[3], ARGV[1])
redis.call('set', KEYS[1], ARGV[1], 'px', ARGV[2])
return 1]]

local RELEASE = [[
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0]]

local held

local function keys() return param("key"), param("key") .. ":queue", param("key") .. ":timeouts" end

function acquire()
  local deadline = now() + param("wait-limit")
  local me = token()
  while true do
    local lock, queue, timeouts = keys()
    if call("EVAL", ACQUIRE, 3, lock, queue, timeouts, me, param("lease"), 5000) == 1 then
      held = me
      return true
    end
    if now() >= deadline then
      -- Gives its place up when it gives up; a crashed waiter cannot.
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
