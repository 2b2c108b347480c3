-- Everyday use of the module: calls checked against the catalog before the wire (each refusal
-- proved to cost no request by the sandbox's request count), long reads as POST, map/parallel
-- error policies, walk's checks and options.
local check = require("check")
local eq, ok = check.eq, check.ok

-- Runs f(...) expecting a usage error that costs no request; returns its text.
local function refused(f, ...)
  local before = sandbox.requests()
  local e = check.flickr_error("usage", f, ...)
  eq(sandbox.requests(), before, "requests made by a refused call (" .. tostring(e) .. ")")
  return tostring(e)
end

local function has(text, part)
  ok(text:find(part, 1, true), "expected " .. string.format("%q", part) .. " in: " .. text)
end

local id = flickr.photos.search{ user_id = "me", per_page = 1 }.photos.photo[1].id

-- Missing required arguments are named.
local t = refused(flickr.photos.getInfo, {})
has(t, "flickr.photos.getInfo: missing required argument photo_id")
-- An unknown argument name: did-you-mean, and the names the method takes.
t = refused(flickr.photos.getInfo, { photoid = id })
has(t, "unknown argument photoid (did you mean photo_id?)")
has(t, "strict = false")
-- Method names in another case are found; a misspelt one suggests the nearest.
eq(flickr.photos.getinfo{ photo_id = id }.photo.id, id)
eq(flickr.call("flickr.photos.GETINFO", { photo_id = id }).photo.id, id)
eq(flickr.call("photos.getInfo", { photo_id = id }).photo.id, id)
t = refused(function() return flickr.photos.getInfos end)
has(t, "flickr.photos.getInfos")
has(t, "did you mean flickr.photos.getInfo")
t = refused(flickr.call, "flickr.photos.getInfoo", { photo_id = id })
has(t, "no such method (did you mean flickr.photos.getInfo")
t = refused(flickr.call, "flickr.photos.getInfo", { photo_id = id, secrett = "x" })
has(t, "did you mean secret?")
-- strict = false sends what the catalog does not know (a newer argument).
eq(flickr.call("flickr.photos.getInfo", { photo_id = id, newer_than_catalog = "1" }, { strict = false }).photo.id, id)
check.flickr_error("usage", flickr.call, "flickr.test.echo", {}, { strict = "no" })
-- flickr.test.echo takes anything; a present but empty required argument counts as given.
eq(flickr.test.echo{ anything = "x" }.anything._text, "x")

-- Arguments must be UTF-8: named, never replaced, nothing sent.
t = refused(flickr.photos.addTags, { photo_id = id, tags = "caf\xe9 next" })
has(t, "bad argument 'tags': not valid UTF-8 (byte 0xE9 at offset 3)")
t = refused(flickr.photos.setMeta, { photo_id = id, title = "ok", description = { "a", "\xff" } })
has(t, "bad argument 'description'")
refused(flickr.call, "flickr.test.echo", { ["k\xc3"] = "v" })

-- user_id=me needs a login to say who "me" is.
local creds = sandbox.credentials
flickr.configure{ token = false, token_secret = false }
t = refused(flickr.photos.search, { user_id = "me" })
has(t, "no login is configured")
has(t, "flickr login")
flickr.configure{ token = creds.oauth_token, token_secret = creds.oauth_token_secret }

-- A read whose URL would pass 8 KiB goes as POST, signed, and is answered.
local long = string.rep("fog ", 25000)
eq(flickr.test.echo{ text = long }.text._text, long)
eq(flickr.photos.search{ user_id = "me", text = long }.stat, "ok")

---------------------------------------------------------------------------------------------
-- flickr.map: on_error = "raise" names the item; calls in flight finish, their results ride on it.
local ids = {}
for i, p in ipairs(flickr.photos.search{ user_id = "me", per_page = 12 }.photos.photo) do ids[i] = p.id end
eq(#ids, 12)
local list = {}
for i = 1, 12 do list[i] = ids[i] end
list[5] = "0"  -- no such photo
local started, failed_at = {}, nil
local function info_of(pid, i)
  started[#started + 1] = i
  local okc, r = pcall(flickr.photos.getInfo, { photo_id = pid })
  if not okc then
    failed_at = #started
    error(r, 0)
  end
  return r
end
local okm, e = pcall(flickr.map, list, info_of, { concurrency = 4 })
ok(not okm, "a bad id fails the map")
eq(e.kind, "api")
eq(e.index, 5)
eq(e.item, "0")
has(tostring(e), "flickr.map item 5: \"0\"")
-- No item started after the failure; every other item that started (those in flight beside
-- item 5 included) finished, and its result rides on the error.
eq(#started, failed_at, "items started after the failure")
for _, i in ipairs(started) do
  if i ~= 5 then eq(e.partial[i] and e.partial[i].photo.id, list[i], "partial result " .. i) end
end
for i = 1, 4 do ok(e.partial[i], "item " .. i .. " started before item 5 and finished") end
eq(e.partial[5], nil)

-- on_error = "collect": every item has a result or an error.
local results, errors = flickr.map(list, function(pid) return flickr.photos.getInfo{ photo_id = pid } end,
                                   { concurrency = 4, on_error = "collect" })
for i = 1, 12 do
  if i == 5 then
    eq(results[i], nil)
    eq(errors[i].code, 1)
  else
    eq(results[i].photo.id, list[i])
    eq(errors[i], nil)
  end
end
check.flickr_error("usage", flickr.map, list, print, { on_error = "ignore" })
check.flickr_error("usage", flickr.map, list, print, { concurency = 2 })

-- flickr.parallel: the same two policies.
local a, b = flickr.parallel(function() return 1 end, function() return 2 end)
eq(a + b, 3)
local pr, pe = flickr.parallel(function() return "x" end, function() error({ code = 7 }) end, { on_error = "collect" })
eq(pr[1], "x")
eq(pe[2].code, 7)
local okp, perr = pcall(flickr.parallel, function() return "x" end, function() error("boom", 0) end)
ok(not okp and perr.kind == "lua" and perr.cause == "boom" and perr.index == 2, tostring(perr))
eq(perr.partial[1], "x")

---------------------------------------------------------------------------------------------
-- flickr.walk: a method without paging is refused before any request; options are checked.
t = refused(flickr.walk, "flickr.test.echo", {})
has(t, "takes no page argument")
refused(flickr.walk, "flickr.people.getPhotos", { user_id = "me" }, { windows = true })
refused(flickr.walk, "flickr.photos.search", {}, { max_page = 2 })
t = refused(flickr.walk, "flickr.photos.getInfo", { photo_id = id })
has(t, "takes no page argument")

-- snapshot: a loop that removes the tag it walks still reaches every photo. Tag 8 photos
-- "walkme", then walk the tag 3 per page removing it as it goes.
local tagged = {}
for i = 1, 8 do
  flickr.photos.addTags{ photo_id = ids[i], tags = "walkme" }
  tagged[ids[i]] = true
end
local function remove_walkme(photo)
  local info = flickr.photos.getInfo{ photo_id = photo.id }
  for _, tag in ipairs(info.photo.tags.tag or {}) do
    if tag._text == "walkme" then flickr.photos.removeTag{ tag_id = tag.id } end
  end
end
local reached = 0
for photo in flickr.walk("flickr.photos.search", { user_id = "me", tags = "walkme", per_page = 3 }) do
  reached = reached + 1
  remove_walkme(photo)
end
ok(reached < 8, "without snapshot a shrinking search skips photos (reached " .. reached .. ")")
local left = tonumber(flickr.photos.search{ user_id = "me", tags = "walkme" }.photos.total)
eq(left, 8 - reached)
for i = 1, 8 do flickr.photos.addTags{ photo_id = ids[i], tags = "walkme" } end
reached = 0
local seen = {}
for photo in flickr.walk("flickr.photos.search", { user_id = "me", tags = "walkme", per_page = 3 }, { snapshot = true }) do
  ok(not seen[photo.id], "each photo once")
  seen[photo.id] = true
  reached = reached + 1
  remove_walkme(photo)
end
eq(reached, 8)
eq(tonumber(flickr.photos.search{ user_id = "me", tags = "walkme" }.photos.total), 0)

check.done("test_everyday")
