-- randqa's driver for Lua 5.4's math.random():
--
--   lua5.4 lua_driver.lua stream BACKEND SEED       math.randomseed(SEED), then the
--                                                   53 bits of each math.random()
--                                                   float (x * 2^53) to stdout, eight
--                                                   packed into 53 bytes (the first
--                                                   value in the lowest bits), until
--                                                   the reader closes the pipe
--   lua5.4 lua_driver.lua time BACKEND SEED CALLS   CALLS calls of math.random() in a
--                                                   plain loop; prints the seconds
--                                                   (os.clock: the process's CPU time)
--
-- BACKEND is lua-math-random; SEED, in [0, 2^64), is given to math.randomseed
-- as the 64-bit integer of the same bits.
local mode, backend, seed_text, calls = ...

local function usage()
  io.stderr:write("usage: lua_driver.lua stream BACKEND SEED | time BACKEND SEED CALLS\n")
  os.exit(2)
end

-- decimal digits read with Lua's integer arithmetic, which wraps around
-- mod 2^64: "18446744073709551615" becomes -1
local function integer_bits(text)
  if text == nil or not text:match("^%d+$") then return nil end
  local n = 0
  for digit in text:gmatch("%d") do n = n * 10 + (digit:byte() - 48) end
  return n
end

local seed = integer_bits(seed_text)
if backend ~= "lua-math-random" or seed == nil then usage() end
math.randomseed(seed)

local random, tointeger, char, unpack = math.random, math.tointeger, string.char, table.unpack
local TWO_53 = 9007199254740992.0

if mode == "stream" and calls == nil then
  local out = io.stdout
  out:setvbuf("full", 1 << 16)
  local bytes = {}
  while true do
    local n = 0
    for _ = 1, 64 do  -- 64 groups of eight values: 53 * 64 bytes
      local acc, have = 0, 0
      for _ = 1, 8 do
        acc = acc | (tointeger(random() * TWO_53) << have)
        have = have + 53
        while have >= 8 do
          n = n + 1
          bytes[n] = acc & 0xff
          acc = acc >> 8
          have = have - 8
        end
      end
    end
    for i = 1, n, 1024 do
      if not out:write(char(unpack(bytes, i, math.min(i + 1023, n)))) then os.exit(0) end
    end
  end
elseif mode == "time" and math.tointeger(tonumber(calls or "")) then
  local count, sum = math.tointeger(tonumber(calls)), 0.0
  local start = os.clock()
  for _ = 1, count do
    sum = sum + random()
  end
  local seconds = os.clock() - start
  if sum < 0 then io.stderr:write(sum) end  -- keeps the calls observable
  io.write(string.format("%.6f\n", seconds))
else
  usage()
end
