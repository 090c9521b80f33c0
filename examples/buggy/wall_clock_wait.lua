-- token-lua whose wait limit is read on the wall clock, now(), as node-redlock
-- (Date.now()) and Redisson's tryLock (System.currentTimeMillis()) time theirs.
-- A nested acquire of this non-reentrant lock waits on its own key until the
-- wait limit; if the client's clock is stepped back while it waits, the wait
-- runs that much longer, past the lease, and the lock lapses while the client
-- still holds it. examples/token_lua.lua is the same lock timed on monotonic_ms().
--   locksim check buggy-wall-clock-wait --variant examples/buggy/wall_clock_wait.lua \
--     --lease 30s --nested 1 --assume 'work<=10s,pause<=5s'
-- Expected: mutual-exclusion by client-clock-skew ("B's clock jumped back ...
-- while its nested acquire waited"); examples/token_lua.lua passes the same check.
name = "buggy-wall-clock-wait"
summary = "token-lua whose wait limit is timed on the wall clock: a clock stepped back stretches a nested wait past the lease"

local RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"
local held

function acquire()
  local key, lease, retry, jitter = param("key"), param("lease"), param("retry"), param("retry-jitter")
  local deadline = now() + param("wait-limit")  -- the bug: the wall clock times a wait
  while true do
    local attempt = token()
    local reply = call("SET", key, attempt, "NX", "PX", lease)
    if reply and reply.ok == "OK" then
      held = attempt
      return true
    end
    if now() >= deadline then return false end
    if jitter > 0 then sleep(retry + math.random(0, jitter)) else sleep(retry) end
  end
end

function release()
  return call("EVAL", RELEASE, 1, param("key"), held) == 1
end
