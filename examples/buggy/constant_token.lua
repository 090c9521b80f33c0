-- BUG: every client uses the same "token", so the compare-and-delete cannot
-- tell a late release from the owner's: after a lease ends during the work,
-- the late release deletes the next holder's lock (F08 again).
-- Found: owner-only-release, by check --faults slow-work.
name = "buggy-constant-token"
local RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"

function acquire()
  local deadline = now() + param("wait-limit")
  while true do
    local reply = call("SET", param("key"), "locked", "NX", "PX", param("lease"))
    if reply and reply.ok == "OK" then return true end
    if now() >= deadline then return false end
    sleep(param("retry"))
  end
end

function release()
  return call("EVAL", RELEASE, 1, param("key"), "locked") == 1
end
