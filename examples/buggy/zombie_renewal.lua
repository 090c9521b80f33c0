-- A watchdog whose renewal is cancelled only when the unlock succeeds (Redisson's
-- renewal that kept running after a timed-out unlock). When the unlock gets no
-- answer — a cut, a reset, a slow link — and did not run, the renewal goes on
-- re-arming a lock nobody holds: every other client waits for ever (a zombie).
--   locksim check zombie-renewal --variant examples/buggy/zombie_renewal.lua
-- Expected: no-zombie-lock (F24, renewal-outlived-release).
name = "zombie-renewal"
summary = "watchdog renewal cancelled only after a successful unlock: a failed unlock leaves it running"

local RELEASE = [[
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0]]

local RENEW = [[
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0]]

local held, watchdog

-- Retries an unanswered renewal; stops only when the key is someone else's.
local function renew(my_token)
  while true do
    sleep(param("lease") / 3)
    if call("EVAL", RENEW, 1, param("key"), my_token, param("lease")) == 0 then return end
  end
end

function acquire()
  local deadline = now() + param("wait-limit")
  while true do
    local attempt = token()
    local reply = call("SET", param("key"), attempt, "NX", "PX", param("lease"))
    if reply and reply.ok == "OK" then
      held = attempt
      watchdog = spawn(renew, attempt)
      return true
    end
    if now() >= deadline then return false end
    sleep(param("retry"))
  end
end

function release()
  local deleted = call("EVAL", RELEASE, 1, param("key"), held)
  if deleted == 1 then
    cancel(watchdog)  -- the bug: only here, not when the unlock went unanswered
    return true
  end
  return false
end
