-- BUG: the release script's comparison is inverted (~= for ==): it never
-- deletes its own lock, and deletes another client's.
-- Found: owner-only-release, by check --faults slow-work.
name = "buggy-inverted-compare"
local RELEASE = "if redis.call('get', KEYS[1]) ~= ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"
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
