-- walk, URL helpers, help, methods, config.
package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path  -- check.lua sits beside us
local check = require "check"
local eq, ok = check.eq, check.ok

-- walk: every item of every page, lazily.
local first = flickr.photos.search{ user_id = "me", per_page = 7 }
local total = tonumber(first.photos.total)
ok(total > 14, "the demo world has photos: " .. tostring(total))
local seen, ids = 0, {}
for photo in flickr.walk("flickr.photos.search", { user_id = "me", per_page = 7, extras = "tags" }) do
  seen = seen + 1
  ok(not ids[photo.id], "no photo twice")
  ids[photo.id] = true
end
eq(seen, total, "walk visits every photo")
local limited = 0
for _ in flickr.walk("flickr.photos.search", { user_id = "me", per_page = 5 }, { max_pages = 2 }) do limited = limited + 1 end
eq(limited, 10)
check.flickr_error("usage", flickr.walk, nil)

-- URL helpers.
local p = flickr.photos.search{ user_id = "me", per_page = 1, extras = "original_format,path_alias" }.photos.photo[1]
local base = sandbox.url .. "/static/" .. p.server .. "/" .. p.id .. "_" .. p.secret
eq(flickr.photo_url(p, "z"), base .. "_z.jpg")
eq(flickr.photo_url(p), base .. ".jpg")
eq(flickr.photo_url(p, "s"), base .. "_s.jpg")
eq(flickr.photo_url(p, "o"), sandbox.url .. "/static/" .. p.server .. "/" .. p.id .. "_" .. p.originalsecret .. "_o." .. p.originalformat)
-- h needs its own secret: url_h when present, else one getSizes call.
local h = flickr.photo_url({ id = p.id, server = p.server, secret = p.secret }, "h")
ok(h:find("_h%.jpg$") or h:find("_h%.") , "large 1600 from getSizes: " .. h)
local sizes = flickr.photos.getSizes{ photo_id = p.id }.sizes.size
local from_sizes
for _, s in ipairs(sizes) do if s.label == "Large 1600" then from_sizes = s.source end end
eq(h, from_sizes)
check.flickr_error("usage", flickr.photo_url, p, "xx")
check.flickr_error("usage", flickr.photo_url, "not a table")

local page = flickr.photo_page_url(p)
ok(page == sandbox.url .. "/photos/" .. (p.pathalias ~= "" and p.pathalias or p.owner) .. "/" .. p.id .. "/"
   or page == sandbox.url .. "/photos/" .. p.owner .. "/" .. p.id .. "/", page)
eq(flickr.short_url("49155"), "https://flic.kr/p/fBv") -- 49155 = 14·58² + 35·58 + 29 in Flickr's base58
eq(flickr.photo_id_from_short_url(flickr.short_url(p.id)), p.id)
check.flickr_error("usage", flickr.short_url, "abc")

-- help and methods.
local help = flickr.help("flickr.photos.search")
eq(help.name, "flickr.photos.search")
eq(help.perms, "none")
local text = tostring(help)
ok(text:find("flickr.photos.search", 1, true) and text:find("per_page", 1, true) and text:find("Optional arguments:", 1, true), text)
ok(tostring(flickr.help("photos.addTags")):find("Required arguments:", 1, true), "required arguments listed")
-- One renderer: the text is the catalog's, the same flickr help and :doc print; entities decoded.
ok(not tostring(flickr.help("photos.search")):find("&#", 1, true), "entities decoded")
-- Any case; a group lists its methods; an unknown name suggests the nearest.
eq(flickr.help("PHOTOS.SEARCH").name, "flickr.photos.search")
local group = flickr.help("photos.comments")
ok(tostring(group):find("Methods in photos.comments:", 1, true) and #group.methods >= 4, tostring(group))
local okh, herr = pcall(flickr.help, "photos.serch")
ok(not okh and tostring(herr):find("did you mean flickr.photos.search", 1, true), tostring(herr))
eq(flickr.help("photos.addTags").verb, "POST")
ok(tostring(flickr.help()):find("flickr.map", 1, true), "module overview")
check.flickr_error("usage", flickr.help, "flickr.no.such")
local names = flickr.methods()
for i = 2, #names do ok(names[i - 1] < names[i], "sorted") end
eq(#flickr.methods("flickr.photosets."), #flickr.methods("photosets."))
ok(#flickr.methods("photosets.") > 5, "a group's methods")
-- A group is a dotted path, not a string prefix: photos is not photosets, test not testimonials.
for _, n in ipairs(flickr.methods("flickr.photos")) do
  ok(n:find("^flickr%.photos%.") and not n:find("^flickr%.photosets"), "flickr.photos lists " .. n)
end
for _, n in ipairs(flickr.methods("test")) do ok(n:find("^flickr%.test%."), "test lists " .. n) end
ok(#flickr.methods("flickr.photos") > 40, "photos and its subgroups (comments, geo, …)")
eq(#flickr.methods("flickr.photos.comments"), #flickr.methods("photos.comments"))

-- config: secrets redacted, rate unlimited against the sandbox.
local c = flickr.config()
eq(c.api_key, sandbox.credentials.api_key)
eq(c.rate, "unlimited")
for k, v in pairs(c) do
  for _, secret in ipairs{ sandbox.credentials.api_secret, sandbox.credentials.oauth_token_secret, sandbox.credentials.oauth_token } do
    ok(not tostring(v):find(secret, 1, true), "config." .. k .. " shows a secret")
  end
end
ok(c.secret:find("•••", 1, true) == 1, "secret masked")
flickr.configure{ rate = 2, burst = 3, timeout = 12, retries = 1 }
c = flickr.config()
eq(c.rate, 2)
eq(c.burst, 3)
eq(c.timeout, 12)
eq(c.retries, 1)
flickr.configure{ rate = "unlimited" }
eq(flickr.config().rate, "unlimited")

-- parse_xml: a saved answer maps like a live one.
local parsed = flickr.parse_xml('<rsp stat="ok"><photos page="1" pages="1"><photo id="5" title="a &amp; b"/></photos></rsp>')
eq(parsed.photos.photo[1].title, "a & b")
eq(#parsed.photos.photo, 1)
check.flickr_error("parse", flickr.parse_xml, "<rsp><unclosed></rsp>")
check.flickr_error("usage", flickr.parse_xml, 42)

check.done("test_helpers")
