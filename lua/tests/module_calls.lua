-- N signed calls (flickr.test.echo, default 10,000) from whatever runs this: Debian's lua5.4
-- with flickr.so on its cpath, or the flickr command. After every 1,000th call, a full
-- collection and the resident set from /proc/self/status. Read by LuaModuleTests (the leak
-- bound) and scripts/bench --lua-module (scripts/lib/bench_lua_module.py). Prints one line:
--   calls=N rss_kib=R1,R2,…   (Rk: VmRSS in KiB after k × 1,000 calls)
local flickr = require "flickr"
local n = tonumber(arg and arg[1]) or 10000

local function rss_kib()
  for line in io.lines("/proc/self/status") do
    local kib = line:match("^VmRSS:%s+(%d+)")
    if kib then return tonumber(kib) end
  end
  error("no VmRSS in /proc/self/status")
end

local marks = {}
for i = 1, n do
  local rsp = flickr.test.echo{ i = i, text = "the same few words each time" }
  if rsp.i._text ~= tostring(i) then error("call " .. i .. " answered " .. tostring(rsp.i._text)) end
  if i % 1000 == 0 then
    collectgarbage()
    marks[#marks + 1] = rss_kib()
  end
end
print(("calls=%d rss_kib=%s"):format(n, table.concat(marks, ",")))
