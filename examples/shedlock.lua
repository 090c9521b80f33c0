-- ShedLock's Redis provider: a scheduled job runs on one node at a time. The
-- lock is SET NX PX lock-at-most-for (the lease); a node that finds it taken
-- skips this run (no retry). Unlocking keeps the lock until lock-at-least-for
-- has passed since the start (so that nodes whose clocks differ a little do
-- not run the same job twice), else deletes it — both only if it is still ours
-- (ShedLock's unlock without that owner check was a bug of its own).
--   locksim check shedlock --variant examples/shedlock.lua
--   locksim run shedlock --variant examples/shedlock.lua --param lock-at-least-for=2s
-- Expected: no failure of its own; lock-at-least-for is drawn in [0s, 3s].
name = "shedlock"
summary = "ShedLock: SET NX PX lock-at-most-for, skip when taken, unlock keeps it lock-at-least-for"
params = {
  lease = "5s",
  wait_limit = 0,
  ["lock-at-least-for"] = { default = "1s", min = "0s", max = "3s", help = "the shortest time a run keeps the lock" },
}

local SHORTEN = [[
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0]]

local DELETE = [[
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0]]

local started, held

function acquire()
  local me = token()
  local reply = call("SET", param("key"), me, "NX", "PX", param("lease"))
  if not (reply and reply.ok == "OK") then return false end
  started, held = now(), me
  return true
end

function release()
  local left = param("lock-at-least-for") - (now() - started)
  if left >= 1 then
    return call("EVAL", SHORTEN, 1, param("key"), held, math.ceil(left)) == 1
  end
  return call("EVAL", DELETE, 1, param("key"), held) == 1
end
