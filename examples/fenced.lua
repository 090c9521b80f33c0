-- A fenced lock: the watchdog lock plus a fencing token taken with INCR at
-- acquire; fence() hands it to the protected resource, which rejects a token
-- lower than the highest it has seen.
--   locksim check lua-fenced --variant examples/fenced.lua --faults pause
-- Expected: fenced-writes holds even where mutual-exclusion fails (F19): a
-- client paused past its lease may wake inside its critical section, but its
-- late write carries an old token and is refused. The wait is timed on monotonic_ms().
name = "lua-fenced"
summary = "token lock with an owner-checked watchdog and an INCR fencing token checked by the resource"

local RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"
local RENEW = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end"

local held, fencing, watchdog, lost = nil, nil, nil, false

local function renew(my_token)
  while true do
    sleep(param("lease") / 3)
    if call("EVAL", RENEW, 1, param("key"), my_token, param("lease")) ~= 1 then
      lost = true
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
      local number = call("INCR", param("key") .. ":fence")
      if number then
        held, fencing, lost = attempt, number, false
        watchdog = spawn(renew, attempt)
        return true
      end
      -- No token, no safe writes: give the lock back and try again.
      call("EVAL", RELEASE, 1, param("key"), attempt)
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

function fence() return fencing end

function still_held() return not lost end
