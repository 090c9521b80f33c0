-- BUG: SETNX, then PEXPIRE as a second command: a crash between the two leaves
-- a key without a TTL, and nobody gets the lock again (F02).
-- Found: no-deadlock, by check --faults crash-at-call.
name = "buggy-setnx-then-pexpire"
local RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"
local held

function acquire()
  local deadline = now() + param("wait-limit")
  while true do
    local attempt = token()
    if call("SETNX", param("key"), attempt) == 1 then
      call("PEXPIRE", param("key"), param("lease"))
      held = attempt
      return true
    end
    if now() >= deadline then return false end
    sleep(param("retry"))
  end
end

function release()
  return call("EVAL", RELEASE, 1, param("key"), held) == 1
end
