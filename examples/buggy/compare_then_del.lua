-- BUG: the release GETs, compares in the client, then DELs: between the two
-- commands the lease may end and another client take the lock, which the DEL
-- then removes (F09).
-- Found: owner-only-release, by check --faults pause-at-call,delay.
name = "buggy-compare-then-del"
local held
function acquire()
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

function release()
  local value = call("GET", param("key"))
  if value ~= held then return false end
  return call("DEL", param("key")) == 1
end
