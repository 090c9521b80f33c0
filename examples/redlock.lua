-- Redlock over N independent masters, as redsync does it: SET key value NX PX
-- expiry on each master in turn; held when a quorum (N/2 + 1) granted it and
-- time is left of the validity (expiry - elapsed - drift, drift = 1% + 2ms);
-- otherwise release everywhere and retry after a random 50-250ms delay.
-- Release (and the give-back) is the compare-and-delete script on every master.
-- Elapsed time and the wait are monotonic (monotonic_ms()), as the Redlock spec
-- asks and Go's time.Since gives redsync.
--   locksim check redlock-lua --variant examples/redlock.lua --masters 3
-- Expected: survives one master failing; shows F18 under --faults
-- redis-restart (a master restarting without persistence forgets its part of
-- the majority): a failure of the deployment, not of the variant.
name = "redlock-lua"
summary = "redsync's Redlock: SET NX PX on N masters, quorum within the validity time, random retry delay"

local DELETE = [[
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
else
  return 0
end]]

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
    local reply = call_on(i, "SET", param("key"), value, "NX", "PX", param("lease"))
    if reply and reply.ok == "OK" then granted = granted + 1 end
  end
  local drift = param("lease") * 0.01 + 2
  local validity = param("lease") - (monotonic_ms() - start) - drift
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

function release()
  return release_all(held) > 0
end
