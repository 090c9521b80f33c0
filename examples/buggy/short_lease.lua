-- BUG: a lease (100ms) shorter than the work (up to 200ms) and no renewal:
-- the key expires while its holder still works, and another client gets in
-- without any fault at all (F10).
-- Found: mutual-exclusion, by check --faults none.
name = "buggy-short-lease"
params = { lease = 100 }
local RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"
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
  return call("EVAL", RELEASE, 1, param("key"), held) == 1
end
