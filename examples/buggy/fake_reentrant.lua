-- BUG: a plain SET NX PX lock that declares itself reentrant. Its holder's
-- nested acquire meets its own key, is refused like anyone else's, and waits
-- on itself until its wait limit or its own lease's end (F16 in a lock that
-- claims to have fixed it).
-- Found: reentrancy (nested-acquire-waits-on-itself), by the default check
-- (reentrant = true draws nested holds).
name = "buggy-fake-reentrant"
summary = "SET NX PX with a unique token, declared reentrant but not: a nested acquire waits on itself"
reentrant = true

local RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"
local held

function acquire()
  local key, lease, retry = param("key"), param("lease"), param("retry")
  local deadline = monotonic_ms() + param("wait-limit")
  while true do
    local attempt = token()
    local reply = call("SET", key, attempt, "NX", "PX", lease)
    if reply and reply.ok == "OK" then
      held = attempt
      return true
    end
    if monotonic_ms() >= deadline then return false end
    sleep(retry)
  end
end

function release()
  return call("EVAL", RELEASE, 1, param("key"), held) == 1
end
