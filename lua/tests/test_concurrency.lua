-- flickr.map / flickr.parallel: results in order, errors, nesting. (Timing: FlickrLuaTests.)
package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path  -- check.lua sits beside us
local check = require "check"
local eq, ok = check.eq, check.ok

local photos = flickr.photos.search{ user_id = "me", per_page = 20 }.photos.photo
local ids = {}
for i, p in ipairs(photos) do ids[i] = p.id end

local infos = flickr.map(ids, function(id, i)
  eq(id, ids[i])
  return flickr.photos.getInfo{ photo_id = id }
end, { concurrency = 8 })
eq(#infos, #ids)
for i, info in ipairs(infos) do eq(info.photo.id, ids[i]) end

-- Default concurrency, a plain function, an empty list.
eq(table.concat(flickr.map({ 1, 2, 3 }, function(x) return x * 2 end), ","), "2,4,6")
eq(#flickr.map({}, function() error("never") end), 0)

-- parallel: all results, in argument order.
local a, b, c = flickr.parallel(
  function() return flickr.test.echo{ n = "1" }.n._text end,
  function() return #flickr.photos.search{ user_id = "me", per_page = 3 }.photos.photo end,
  function() return "plain" end)
eq(a, "1"); eq(b, 3); eq(c, "plain")

-- Calls inside walk, pcall, metamethods and sort comparators work inside map (yield or block).
local counts = flickr.map({ 2, 3 }, function(pages)
  local n = 0
  for _ in flickr.walk("flickr.photos.search", { user_id = "me", per_page = 2 }, { max_pages = pages }) do n = n + 1 end
  local okp, echoed = pcall(flickr.test.echo, { x = "p" })
  assert(okp and echoed.x._text == "p")
  local lazy = setmetatable({}, { __index = function(_, k) return flickr.test.echo{ k = k }.k._text end })
  assert(lazy.key == "key")
  local t = { "b", "a", "c" }
  table.sort(t, function(x, y) return flickr.test.echo{ v = x }.v._text < y end)
  assert(table.concat(t) == "abc")
  return n
end)
eq(counts[1], 4); eq(counts[2], 6)

-- Nested map, and user coroutines inside map (their calls block instead of yielding).
local nested = flickr.map({ 1, 2 }, function(i)
  local inner = flickr.map({ 1, 2 }, function(j) return flickr.test.echo{ v = i * 10 + j }.v._text end)
  local co = coroutine.wrap(function() return flickr.test.echo{ v = "co" }.v._text end)
  return table.concat(inner, "+") .. co()
end)
eq(nested[1], "11+12co"); eq(nested[2], "21+22co")

-- Usage errors.
check.flickr_error("usage", flickr.map, ids, "not a function")
check.flickr_error("usage", flickr.map, ids, function() end, { concurrency = 0 })
check.flickr_error("usage", flickr.parallel, print, 42)

-- A coroutine.yield of the user's own inside map is refused, not misrouted.
local ok2, err = pcall(flickr.map, { 1 }, function() coroutine.yield(1) end)
ok(not ok2 and tostring(err):find("yield", 1, true), tostring(err))

check.done("test_concurrency")
