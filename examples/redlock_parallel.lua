-- Redlock as node-redlock and redsync run it: the SET NX PX goes to every master
-- at once (parallel), the lock is held when a quorum granted it and time is left
-- of the validity (lease - elapsed - drift); otherwise it is given back
-- everywhere, again in parallel. The deployment is declared here: three masters.
-- Elapsed time and the wait are monotonic, as the Redlock spec asks (node-redlock
-- reads Date.now(), the wall clock: a jump back then inflates the validity).
--   locksim check redlock-parallel --variant examples/redlock_parallel.lua
-- Expected: no failure of its own; the deployment's remain (a master restarting
-- without persistence, F18; a pause longer than the validity, F13).
name = "redlock-parallel"
summary = "Redlock asking its masters in parallel, quorum within the validity time, given back in parallel"
params = {
  masters = 3,
  ["clock-drift-factor"] = { default = 0.01, help = "validity loses this share of the lease to clock drift" },
}

local DELETE = [[
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0]]

local held

-- One function per master, each doing `command(i)`; run together, their first
-- results in master order.
local function on_every_master(command)
  local branches = {}
  for _, i in ipairs(servers()) do
    branches[#branches + 1] = function() return command(i) end
  end
  return { parallel(unpack(branches)) }
end

local function give_back(value)
  local replies = on_every_master(function(i) return call_on(i, "EVAL", DELETE, 1, param("key"), value) end)
  local released = 0
  for _, i in ipairs(servers()) do
    if replies[i] == 1 then released = released + 1 end
  end
  return released
end

local function try_once()
  local value = token()
  local start = monotonic_ms()
  local replies = on_every_master(function(i)
    local reply = call_on(i, "SET", param("key"), value, "NX", "PX", param("lease"))
    return reply and reply.ok == "OK"
  end)
  local granted = 0
  for _, i in ipairs(servers()) do
    if replies[i] then granted = granted + 1 end
  end
  local drift = param("lease") * param("clock-drift-factor") + 2
  local validity = param("lease") - (monotonic_ms() - start) - drift
  if granted >= math.floor(#servers() / 2) + 1 and validity > 0 then
    held = value
    return true
  end
  give_back(value)
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
  return give_back(held) > 0
end
