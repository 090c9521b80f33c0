-- Redlock whose quorum is a majority of the masters the client reached, not of the
-- deployment's: an early redlock-py computed it over the servers it had connected to
-- (`len(self.servers) // 2 + 1`, servers that failed to connect left out). A client that reaches
-- one master of three needs that one vote only, so two clients each cut off from a
-- different two masters (a crash, a partition) both enter, each on one master.
--   locksim check redlock-connected-quorum --variant examples/buggy/redlock_connected_quorum.lua
-- Expected: mutual-exclusion, entered-without-quorum (each entered on fewer than 2 of 3 masters).
-- Here each acquire PINGs every master first and counts only those that answered.
name = "redlock-connected-quorum"
summary = "Redlock whose quorum is a majority of the masters that answered a PING"
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
  local connected = {}
  for _, i in ipairs(servers()) do
    local ok, pong = pcall(call_on, i, "PING")
    if ok and pong then connected[#connected + 1] = i end
  end
  if #connected == 0 then return false end
  local value, start = token(), monotonic_ms()
  local granted = 0
  for _, i in ipairs(connected) do
    local reply = call_on(i, "SET", param("key"), value, "NX", "PX", param("lease"))
    if reply and reply.ok == "OK" then granted = granted + 1 end
  end
  local validity = param("lease") - (monotonic_ms() - start) - (param("lease") * 0.01 + 2)
  if granted >= math.floor(#connected / 2) + 1 and validity > 0 then held = value return true end  -- the bug
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
