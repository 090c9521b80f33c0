-- BUG: a reentrant hash lock (as Redisson's) whose unlock deletes the whole
-- hash instead of decrementing the hold count: the inner release of a nested
-- hold frees the lock while the outer hold still works.
-- Found: mutual-exclusion, by check --faults none (reentrant = true draws nested holds).
name = "buggy-reentrant-del"
reentrant = true
local LOCK = [[
if (redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
  redis.call('hincrby', KEYS[1], ARGV[2], 1)
  redis.call('pexpire', KEYS[1], ARGV[1])
  return nil
end
return redis.call('pttl', KEYS[1])]]
local UNLOCK = [[
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
  return nil
end
redis.call('del', KEYS[1])
return 1]]

function acquire()
  local deadline = now() + param("wait-limit")
  while true do
    if call("EVAL", LOCK, 1, param("key"), param("lease"), client_id()) == false then return true end
    if now() >= deadline then return false end
    sleep(param("retry"))
  end
end

function release()
  return call("EVAL", UNLOCK, 1, param("key"), client_id()) == 1
end
