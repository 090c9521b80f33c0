-- BUG: the watchdog renews with SET key token PX lease, without NX or an owner
-- check: once its lease has lapsed it overwrites whoever took the lock since.
-- Found: owner-only-release (a renewal replaced another's lock), by check --faults pause.
name = "buggy-unconditional-set"
local held, watchdog
local function renew(mine)
  while true do
    sleep(param("lease") / 3)
    local reply = call("SET", param("key"), mine, "PX", param("lease"))
    if not reply then return end
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
  if took then watchdog = spawn(renew, held) end
  return took
end

function release()
  if watchdog then cancel(watchdog) end
  return call("EVAL", "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end",
              1, param("key"), held) == 1
end
