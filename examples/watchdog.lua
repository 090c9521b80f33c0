-- token + Lua compare-and-delete, kept alive by an owner-checked watchdog.
--   locksim check lua-watchdog --variant examples/watchdog.lua
-- Expected (docs/variants.md): no failure of its own. Under --faults slow-work
-- every property holds (the watchdog outlives any critical section); the
-- failures that remain are the deployment's (F13 a pause longer than the lease,
-- F14 a cut, a Redis restart without persistence, a jump of Redis's clock).
-- The wait is timed on monotonic_ms(), as the built-in watchdog's is.
name = "lua-watchdog"
summary = "unique token, Lua compare-and-delete, renewed every lease/3 by an owner-checked PEXPIRE"

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

local held, watchdog, lost = nil, nil, false

-- Re-arms the lease while the key still holds our token; stops at the first
-- refusal or unanswered call (the lease may be gone: still_held() says so).
local function renew(my_token, every)
  while true do
    sleep(every)
    local renewed = call("EVAL", RENEW, 1, param("key"), my_token, param("lease"))
    if renewed ~= 1 then
      lost = true
      log("renewal failed: the lease may be gone")
      return
    end
  end
end

function acquire()
  local deadline = monotonic_ms() + param("wait-limit")
  while true do
    local attempt = token()
    local reply = call("SET", param("key"), attempt, "NX", "PX", param("lease"))
    if reply and reply.ok == "OK" then
      held, lost = attempt, false
      local every = param("renew-interval")
      if every == 0 then every = param("lease") / 3 end
      watchdog = spawn(renew, attempt, every)
      return true
    end
    if monotonic_ms() >= deadline then return false end
    sleep(param("retry") + math.random() * param("retry-jitter"))
  end
end

function release()
  if watchdog then cancel(watchdog) end
  watchdog = nil
  local deleted = call("EVAL", RELEASE, 1, param("key"), held)
  return deleted == 1
end

function still_held()
  return not lost
end
