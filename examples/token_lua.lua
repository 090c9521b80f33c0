-- token-lua written as a variant: SET key <token> NX PX lease, retried every
-- retry interval; released by an atomic Lua compare-and-delete. The twin of
-- the built-in token-lua (bench_lock compares their speed).
--   locksim check lua-token-lua --variant examples/token_lua.lua
-- Expected: F10 (mutual-exclusion under --faults slow-work: the lease ends
-- while the holder works), as the built-in token-lua; its release never
-- deletes another's lock (owner-only-release holds). Its wait is timed on
-- monotonic_ms(), as the built-in's is: a jump of the wall clock (now()) does
-- not stretch it (examples/buggy/wall_clock_wait.lua is the same lock on now()).
name = "lua-token-lua"
summary = "unique token; release = atomic Lua compare-and-delete (the built-in token-lua in Lua)"

local RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"
local held

function acquire()
  local key, lease, retry, jitter = param("key"), param("lease"), param("retry"), param("retry-jitter")
  local deadline = monotonic_ms() + param("wait-limit")
  while true do
    local attempt = token()
    local reply = call("SET", key, attempt, "NX", "PX", lease)
    if reply and reply.ok == "OK" then
      held = attempt
      return true
    end
    if monotonic_ms() >= deadline then return false end
    if jitter > 0 then sleep(retry + math.random(0, jitter)) else sleep(retry) end
  end
end

function release()
  return call("EVAL", RELEASE, 1, param("key"), held) == 1
end
