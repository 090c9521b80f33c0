-- Redlock over three masters that counts a master which did not answer in time
-- as a vote (a client that treats "no error" as "granted"): one real grant and
-- one timeout make a "majority" while another client holds two masters.
--   locksim check buggy-redlock-timeout-counts --variant examples/buggy/redlock_timeout_counts.lua
-- Expected: mutual-exclusion, entered-without-quorum (a call held in flight or lost times out).
name = "buggy-redlock-timeout-counts"
summary = "Redlock over 3 masters that counts a timed-out SET as granted"
params = { masters = 3 }

local DELETE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"
local held

local function release_all(value)
  local released = 0
  for _, i in ipairs(servers()) do
    if call_on(i, "EVAL", DELETE, 1, param("key"), value) == 1 then released = released + 1 end
  end
  return released
end

local function try_once()
  local value = token()
  local start = monotonic_ms()
  local granted = 0
  for _, i in ipairs(servers()) do
    local reply, err = call_on(i, "SET", param("key"), value, "NX", "PX", param("lease"))
    if (reply and reply.ok == "OK") or err == "timeout" then granted = granted + 1 end  -- the bug
  end
  local validity = param("lease") - (monotonic_ms() - start) - (param("lease") * 0.01 + 2)
  if granted >= math.floor(#servers() / 2) + 1 and validity > 0 then held = value return true end
  release_all(value)
  return false
end

function acquire()
  local deadline = monotonic_ms() + param("wait-limit")
  while true do
    if try_once() then return true end
    if monotonic_ms() >= deadline then return false end
    sleep(math.random(50, 250))
  end
end

function release()
  return release_all(held) > 0
end
