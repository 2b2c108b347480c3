-- Upload, replace, async tickets, progress callbacks.
local check = require "tests.check"
local eq, ok = check.eq, check.ok

-- A 3 MB "JPEG" (the sandbox looks at the header only).
local path = os.tmpname()
local f = assert(io.open(path, "wb"))
f:write("\255\216\255\224\0\16JFIF\0\1\1\0\0\1\0\1\0\0")
local block = string.rep("x", 1024 * 1024)
for _ = 1, 3 do f:write(block) end
f:write(tostring(os.time()) .. tostring(math.random()))
f:close()

local calls, last_sent, last_total = 0, 0, nil
local id = flickr.upload{ file = path, title = "Cat", description = "a cat", tags = { "cat", "black cat" },
                          is_public = 0, dedup_check = 1,
                          progress = function(sent, total)
                            calls = calls + 1
                            ok(sent >= last_sent, "progress grows")
                            last_sent, last_total = sent, total
                          end }
eq(type(id), "string")
ok(calls >= 2, "progress called " .. calls .. " times")
eq(last_sent, last_total)
ok(last_total > 3 * 1024 * 1024, "total is the body size")

local info = flickr.photos.getInfo{ photo_id = id }.photo
eq(flickr.text(info.title), "Cat")
eq(info.visibility.ispublic, "0")
local raws = {}
for _, t in ipairs(info.tags.tag) do raws[t.raw] = true end
ok(raws["cat"] and raws["black cat"], "multi-word tag kept whole")

-- The same bytes again with dedup_check: code 9 carries the duplicate's id.
local e = check.flickr_error("api", flickr.upload, { file = path, dedup_check = 1 })
eq(e.code, 9)
eq(e.duplicate_photo_id, id)

-- Replace, then async upload with a ticket.
f = assert(io.open(path, "ab")); f:write("more"); f:close()
eq(flickr.replace{ file = path, photo_id = id }, id)
local ticket = flickr.upload{ data = "\255\216\255\224 tiny", filename = "tiny.jpg", async = true, title = "async" }
eq(type(ticket), "string")
local done = flickr.wait_tickets({ ticket }, { interval = 0.1, timeout = 30 })
eq(done[1].id, ticket)
eq(done[1].status, "complete")
eq(flickr.text(flickr.photos.getInfo{ photo_id = done[1].photo_id }.photo.title), "async")
eq(flickr.check_tickets(ticket)[1].status, "complete")

-- A failing progress callback fails the upload with its own error.
local boom = setmetatable({}, { __tostring = function() return "boom" end })
local ok2, got = pcall(flickr.upload, { data = "\255\216\255\224 x", filename = "x.jpg",
                                         progress = function() error(boom) end })
ok(not ok2 and rawequal(got, boom), "the callback's error value: " .. tostring(got))

-- Bad uploads are usage errors.
e = check.flickr_error("usage", flickr.upload, { file = path .. ".missing" })
ok(e.message:find("cannot read", 1, true), e.message)
check.flickr_error("usage", flickr.upload, { title = "no file" })
check.flickr_error("usage", flickr.replace, { file = path })
os.remove(path)

check.done("test_upload")
