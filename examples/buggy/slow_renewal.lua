-- BUG: a watchdog that renews once a lease (period = lease, not lease/3): each
-- renewal goes out as the key expires, so a holder whose work outlasts the lease
-- loses its key before the renewal reaches Redis. The same bug comes from a
-- renewal period computed in the wrong unit, or from a fixed period that a
-- shorter lease, configured later, undercuts.
-- Found: mutual-exclusion (renewal-too-late), by the default check.
name = "buggy-slow-renewal"
summary = "watchdog renewal once a lease: the key expires before each renewal arrives"

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

local function renew(my_token)
  while true do
    sleep(param("lease"))  -- the bug: lease/3 leaves room for the round trip
    if call("EVAL", RENEW, 1, param("key"), my_token, param("lease")) ~= 1 then return end
  end
end

function acquire()
  local deadline = monotonic_ms() + param("wait-limit")
  while true do
    local attempt = token()
    local reply = call("SET", param("key"), attempt, "NX", "PX", param("lease"))
    if reply and reply.ok == "OK" then
      held = attempt
      watchdog = spawn(renew, attempt)
      return true
    end
    if monotonic_ms() >= deadline then return false end
    sleep(param("retry"))
  end
end

function release()
  if watchdog then cancel(watchdog) end
  watchdog = nil
  return call("EVAL", RELEASE, 1, param("key"), held) == 1
end
