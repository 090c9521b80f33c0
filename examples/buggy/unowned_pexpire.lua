-- BUG: the watchdog renews with a plain PEXPIRE, whoever holds the key now:
-- after a pause longer than the lease it re-arms another client's lock (and
-- believes it still holds its own).
-- Found: owner-only-release (a renewal changed another's lock), by check --faults pause.
name = "buggy-unowned-pexpire"
local held, watchdog
local function renew()
  while true do
    sleep(param("lease") / 3)
    if call("PEXPIRE", param("key"), param("lease")) ~= 1 then return end
  end
end
local function plain_acquire()
  local deadline = now() + param("wait-limit")
  while true do
    local attempt = token()
    local reply = call("SET", param("key"), attempt, "NX", "PX", param("lease"))
    if reply and reply.ok == "OK" then
      held = attempt
      return true
    end
    if now() >= deadline then return false end
    sleep(param("retry"))
  end
end

function acquire()
  local took = plain_acquire()
  if took then watchdog = spawn(renew) end
  return took
end

function release()
  if watchdog then cancel(watchdog) end
  return call("EVAL", "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end",
              1, param("key"), held) == 1
end
