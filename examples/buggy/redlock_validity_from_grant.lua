-- Redlock (sequential, as redsync asks its masters) whose validity time leaves
-- out the time the acquire took: validity = lease - clock drift, never minus the
-- elapsed time, as Redlock ports that read the clock only after the quorum came
-- back have shipped. A slow acquire (a pause between masters, a slow master)
-- still counts as held when the keys on the first masters are gone or about to go.
--   locksim check redlock-validity-from-grant --variant examples/buggy/redlock_validity_from_grant.lua
-- Expected: mutual-exclusion, by the lock's own mechanism: it entered with no
-- validity left (by its own clock the acquire had taken the whole lease).
name = "redlock-validity-from-grant"
summary = "Redlock whose validity check forgets the time the acquire took"
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
  local granted = 0
  for _, i in ipairs(servers()) do
    local reply = call_on(i, "SET", param("key"), value, "NX", "PX", param("lease"))
    if reply and reply.ok == "OK" then granted = granted + 1 end
  end
  local drift = param("lease") * 0.01 + 2
  local validity = param("lease") - drift  -- the bug: minus the drift, not the time the acquire took
  if granted >= math.floor(#servers() / 2) + 1 and validity > 0 then
    held = value
    return true
  end
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

function release() return release_all(held) > 0 end
