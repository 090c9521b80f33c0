-- Redlock asking its masters in parallel, as node-redlock and redsync do: one
-- spawned task per master sends SET NX PX, and acquire waits until every
-- master answered (or its call gave up); held when a quorum (N/2 + 1) granted
-- it and time is left of the validity (lease - elapsed - drift, drift = 1% +
-- 2ms); otherwise it gives back what it got, in parallel too, and retries
-- after a random 50-250ms delay. The spawned tasks acquire and release: none
-- of their commands renews anything.
--   locksim check parallel-redlock --variant tests/props/variants/parallel_redlock.lua --masters 3
name = "parallel-redlock"
summary = "Redlock with the masters asked in parallel from spawned tasks, quorum within the validity time"

local DELETE = [[
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
else
  return 0
end]]

local held

-- Runs ask(i) on every master at once; returns how many answered true.
local function on_every_master(ask)
  local yes, pending = 0, 0
  for _, i in ipairs(servers()) do
    pending = pending + 1
    spawn(function()
      if ask(i) then yes = yes + 1 end
      pending = pending - 1
    end)
  end
  while pending > 0 do sleep(1) end
  return yes
end

local function release_all(value)
  return on_every_master(function(i) return call_on(i, "EVAL", DELETE, 1, param("key"), value) == 1 end)
end

local function try_once()
  local value = token()
  local start = now()
  local granted = on_every_master(function(i)
    local reply = call_on(i, "SET", param("key"), value, "NX", "PX", param("lease"))
    return reply and reply.ok == "OK"
  end)
  local drift = param("lease") * 0.01 + 2
  local validity = param("lease") - (now() - start) - drift
  if granted >= math.floor(#servers() / 2) + 1 and validity > 0 then
    held = value
    return true
  end
  release_all(value)
  return false
end

function acquire()
  local deadline = now() + param("wait-limit")
  while true do
    if try_once() then return true end
    if now() >= deadline then return false end
    sleep(math.random(50, 250))
  end
end

function release()
  return release_all(held) > 0
end
