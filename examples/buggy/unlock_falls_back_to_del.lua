-- BUG: the unlock is the atomic compare-and-delete, but when it gets no answer
-- (a timeout, a lost connection) the client "makes sure" with a plain DEL of
-- the key, as lock helpers that retry a failed unlock by key have shipped. The
-- compare-and-delete may have run: the lock was already gone, another client
-- took it, and the DEL removes that client's lock.
--   locksim check unlock-falls-back-to-del --variant examples/buggy/unlock_falls_back_to_del.lua
-- Expected: owner-only-release (stale-release), needing an unlock whose answer
-- a fault kept from the client (a lost reply, a call held in flight, a cut).
name = "unlock-falls-back-to-del"
summary = "token + Lua compare-and-delete, but an unanswered unlock is retried as a plain DEL"

local DELETE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"
local held

function acquire()
  local deadline = monotonic_ms() + param("wait-limit")
  while true do
    local attempt = token()
    local reply = call("SET", param("key"), attempt, "NX", "PX", param("lease"))
    if reply and reply.ok == "OK" then
      held = attempt
      return true
    end
    if monotonic_ms() >= deadline then return false end
    sleep(param("retry"))
  end
end

function release()
  local reply, err = call("EVAL", DELETE, 1, param("key"), held)
  if reply == nil then
    -- the bug: no answer, so delete by key, whoever holds it now
    return call("DEL", param("key")) == 1
  end
  return reply == 1
end
