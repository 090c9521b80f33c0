-- redis-py's Lock, from its documentation: SET name token NX PX timeout,
-- retried every `sleep` (0.1s) until blocking_timeout; release() runs a Lua
-- script that deletes the key only if it holds our token (else it raises
-- LockNotOwnedError); extend(additional_time) adds to the TTL and reacquire()
-- resets it, both only while the token is ours. redis-py renews nothing by
-- itself: here a task of the client calls reacquire() every lease/3, as an
-- application thread would; the critical section's owner calls extend() once.
-- blocking_timeout is timed on time.monotonic(), as redis-py does: monotonic_ms().
--   locksim check redis-py --variant examples/redis_py.lua
-- Expected: no failure of its own; the deployment's failures remain (a pause
-- longer than the lease, a cut, Redis restarting without persistence).
name = "redis-py"
summary = "redis-py Lock: token SET NX PX, Lua release, extend() and reacquire() by owner-checked scripts"
params = { retry = 100 }

local RELEASE = [[
local token = redis.call('get', KEYS[1])
if not token or token ~= ARGV[1] then
  return 0
end
redis.call('del', KEYS[1])
return 1]]

local EXTEND = [[
local token = redis.call('get', KEYS[1])
if not token or token ~= ARGV[1] then
  return 0
end
local expiration = redis.call('pttl', KEYS[1])
if not expiration then
  expiration = 0
end
if expiration < 0 then
  return 0
end
local newttl = ARGV[2]
if ARGV[3] == "0" then
  newttl = ARGV[2] + expiration
end
redis.call('pexpire', KEYS[1], newttl)
return 1]]

local REACQUIRE = [[
local token = redis.call('get', KEYS[1])
if not token or token ~= ARGV[1] then
  return 0
end
redis.call('pexpire', KEYS[1], ARGV[2])
return 1]]

local held, keeper, lost = nil, nil, false

local function extend(additional_ms, replace_ttl)
  return call("EVAL", EXTEND, 1, param("key"), held, additional_ms, replace_ttl and "1" or "0") == 1
end

local function reacquire()
  return call("EVAL", REACQUIRE, 1, param("key"), held, param("lease")) == 1
end

local function keep_alive(every)
  while true do
    sleep(every)
    if not reacquire() then
      lost = true
      return
    end
  end
end

function acquire()
  local deadline = monotonic_ms() + param("wait-limit")
  while true do
    local attempt = token()
    local reply = call("SET", param("key"), attempt, "NX", "PX", param("lease"))
    if reply and reply.ok == "OK" then
      held, lost = attempt, false
      -- extend() once at once (adds a tenth of the lease), then keep it alive.
      if not extend(param("lease") / 10, false) then lost = true end
      keeper = spawn(keep_alive, param("lease") / 3)
      return true
    end
    if monotonic_ms() >= deadline then return false end
    sleep(param("retry"))
  end
end

function release()
  if keeper then cancel(keeper) end
  keeper = nil
  -- LockNotOwnedError in redis-py: here, false.
  return call("EVAL", RELEASE, 1, param("key"), held) == 1
end

function still_held()
  return not lost
end
