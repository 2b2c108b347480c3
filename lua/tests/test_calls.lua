-- Calling methods: namespaces, arguments, the mapped <rsp>, JSON format.
package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path  -- check.lua sits beside us
local check = require "check"
local eq, ok = check.eq, check.ok

-- Every catalog method is a function at its dotted path, before any network call.
local names = flickr.methods()
eq(#names, 223, "catalog size")
for _, name in ipairs(names) do
  local node = flickr
  for part in name:gsub("^flickr%.", ""):gmatch("[^.]+") do node = rawget(node, part) end
  eq(type(node), "function", name)
end
eq(require("flickr"), flickr, "require returns the global")

-- Echo: element text in _text, stat kept, the leading "flickr." implied by flickr.call.
local rsp = flickr.test.echo{ foo = "bar" }
eq(rsp.stat, "ok")
eq(flickr.text(rsp.foo), "bar")
eq(rsp.foo._text, "bar")
eq(flickr.text(flickr.call("test.echo", { x = "y" }).x), "y")
eq(flickr.text(flickr.call("flickr.test.echo", { x = "post" }, { verb = "POST", timeout = 5 }).x), "post")

-- Argument conversion.
local r = flickr.test.echo{ int = 5, float = 2.5, whole = 250.0, yes = true, no = false,
                            list = { "a", "b", 3 }, big = 9007199254740993, bytes = "caf\u{e9} \u{1F600}" }
eq(flickr.text(r.int), "5")
eq(flickr.text(r.float), "2.5")
eq(flickr.text(r.whole), "250")
eq(flickr.text(r.yes), "1")
eq(flickr.text(r.no), "0")
eq(flickr.text(r.list), "a,b,3")
eq(flickr.text(r.big), "9007199254740993")
eq(flickr.text(r.bytes), "café 😀")

-- Bad arguments are usage errors that name the argument.
local e = check.flickr_error("usage", flickr.test.echo, { nested = { a = 1 } })
ok(tostring(e):find("'nested'", 1, true), tostring(e))
eq(e.method, "flickr.test.echo")
e = check.flickr_error("usage", flickr.test.echo, { fn = print })
ok(tostring(e):find("'fn'", 1, true), tostring(e))
e = check.flickr_error("usage", flickr.test.echo, { { 1 } })
ok(tostring(e):find("names must be strings", 1, true), tostring(e))
check.flickr_error("usage", flickr.test.echo, "not a table")
check.flickr_error("usage", flickr.call, nil)

-- A search: repeated elements are arrays, attributes strings.
local me = sandbox.credentials.user_nsid
rsp = flickr.photos.search{ user_id = "me", extras = "tags,url_z,date_upload", per_page = 5 }
eq(#rsp.photos.photo, 5)
eq(type(rsp.photos.photo[1].id), "string")
eq(rsp.photos.photo[1].owner, me)
eq(rsp.photos.perpage, "5")
ok(rsp.photos.photo[1].url_z:find(sandbox.url, 1, true) == 1, "url_z on the sandbox")

-- A plural parent gives an array even for one child.
rsp = flickr.photos.search{ user_id = "me", per_page = 1 }
eq(#rsp.photos.photo, 1)

-- The catalog's examples teach which elements repeat: item.activity.event is always an array.
rsp = flickr.activity.userPhotos{}
local item = rsp.items.item[1]
eq(type(item.activity.event), "table")
ok(item.activity.event[1] ~= nil, "event is an array")

-- getInfo: nested maps, text, tag arrays.
local id = flickr.photos.search{ user_id = "me", per_page = 1 }.photos.photo[1].id
local info = flickr.photos.getInfo{ photo_id = id }
eq(info.photo.id, id)
ok(flickr.text(info.photo.title) ~= nil, "title text")
eq(type(info.photo.tags.tag), "table")

-- Unknown methods are refused before the wire; with strict = false they go and fail the way
-- Flickr does.
e = check.flickr_error("api", flickr.call, "flickr.no.such.method", nil, { strict = false })
eq(e.code, 112)

-- JSON format: the shape follows Flickr's JSON (_content for text).
flickr.configure{ format = "json" }
rsp = flickr.test.echo{ foo = "bar" }
eq(rsp.stat, "ok")
eq(rsp.foo._content, "bar")
eq(flickr.text(rsp.foo), "bar")
flickr.configure{ format = "xml" }
eq(flickr.test.echo{ foo = "x" }.foo._text, "x")

check.done("test_calls")
