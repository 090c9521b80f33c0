-- Redisson's RLock protocol, from its documentation: the lock is a hash; the
-- field is the owner's "client-id:thread-id" and its value the hold count, so
-- the owner may lock again (HINCRBY) and must unlock as many times. The hash
-- carries a PEXPIRE lease, re-armed every lease/3 by a watchdog that checks the
-- owner's field first. Unlock decrements; at zero it deletes the hash and
-- PUBLISHes on the lock's channel for the waiters.
--   locksim check redisson --variant examples/redisson.lua
-- Expected: reentrancy holds (nested acquires are drawn: reentrant = true);
-- no failure of its own; the deployment's failures remain (a pause longer than
-- the lease, a cut, Redis restarting without persistence). tryLock's wait is
-- timed on now(), the wall clock, as Redisson times it (currentTimeMillis); a
-- reentrant lock's nested acquire never waits on itself, so it does not show
-- here (examples/buggy/wall_clock_wait.lua shows what it does to a lock that does).
name = "redisson"
summary = "Redisson RLock: hash of hold counts per client-id:thread, HINCRBY, PEXPIRE lease, owner-checked watchdog"
reentrant = true

local LOCK = [[
if (redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
  redis.call('hincrby', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  return nil
end
return redis.call('pttl', KEYS[1])]]

local UNLOCK = [[
if redis.call('hexists', KEYS[1], ARGV[3]) == 0 then
  return nil
end
local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1)
if counter > 0 then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 0
end
redis.call('del', KEYS[1])
redis.call('publish', KEYS[2], ARGV[1])
return 1]]

local RENEW = [[
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
  redis.call('pexpire', KEYS[1], ARGV[1])
  return 1
end
return 0]]

local holds, watchdog, lost = 0, nil, false

local function channel() return "redisson_lock__channel:{" .. param("key") .. "}" end

local function renew(owner, every)
  while true do
    sleep(every)
    if call("EVAL", RENEW, 1, param("key"), param("lease"), owner) ~= 1 then
      lost = true
      return
    end
  end
end

function acquire()
  local owner = client_id()
  local deadline = now() + param("wait-limit")
  while true do
    local ttl, problem = call("EVAL", LOCK, 1, param("key"), param("lease"), owner)
    if ttl == false then  -- nil from the script: acquired (or acquired again)
      holds = holds + 1
      if holds == 1 then
        lost = false
        watchdog = spawn(renew, owner, param("lease") / 3)
      end
      return true
    end
    if now() >= deadline then return false end
    -- Redisson waits for the unlock message or the remaining TTL; a retry
    -- interval bounds the wait here (a timeout gives no TTL at all).
    local wait = param("retry")
    if problem == nil and ttl > 0 and ttl < wait then wait = ttl end
    sleep(wait)
  end
end

function release()
  local result = call("EVAL", UNLOCK, 2, param("key"), channel(), 0, param("lease"), client_id())
  -- As Redisson: the local count goes down whatever the reply (the lease ends anyway).
  if holds > 0 then holds = holds - 1 end
  if result == 1 then holds = 0 end
  if holds == 0 and watchdog then
    cancel(watchdog)
    watchdog = nil
  end
  return type(result) == "number"  -- nil (false here): not the owner
end

function still_held()
  return not lost
end
