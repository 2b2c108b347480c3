-- Upload, replace, async tickets, progress callbacks.
package.path = (arg[0]:match("^(.*)/") or ".") .. "/?.lua;" .. package.path  -- check.lua sits beside us
local check = require "check"
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

-- flickr.download: the original's bytes come back (by id, to a path, with progress), a file of
-- the same size is skipped, a photo table's url_* extras are used, a directory takes the default name.
local want = assert(io.open(path, "rb")):read("a")
local target = os.tmpname()
local seen = 0
local got = flickr.download(id, { size = "o", path = target, progress = function(done, total)
  seen = seen + 1
  ok(done <= total, "progress within the total")
end })
eq(got.path, target)
eq(got.size, "o")
eq(got.skipped, false)
eq(got.bytes, #want)
ok(seen >= 1, "progress was reported")
eq(assert(io.open(target, "rb")):read("a"), want)
eq(flickr.download(id, { path = target }).skipped, true)
os.remove(target)
local listed = flickr.photos.search{ user_id = "me", extras = "url_q", per_page = 1 }.photos.photo[1]
local dir = os.tmpname(); os.remove(dir)
ok(os.execute("mkdir " .. dir), "mkdir")
local small = flickr.download(listed, { size = "q", dir = dir })
eq(small.path, dir .. "/" .. listed.id .. "_q.jpg")
eq(small.url, listed.url_q)
os.remove(small.path)
local into = flickr.download(id, { size = "q", path = dir .. "/" })
eq(into.path, dir .. "/" .. id .. "_q.jpg")
os.remove(into.path)
-- A `dir` that does not exist yet is created (as `flickr download --dir` does).
local fresh = dir .. "/new/deeper"
local made = flickr.download(listed, { size = "q", dir = fresh })
eq(made.path, fresh .. "/" .. listed.id .. "_q.jpg")
ok(io.open(made.path, "rb"), "the file in the created folder")
os.remove(made.path); os.remove(fresh); os.remove(dir .. "/new")
os.remove(dir)
check.flickr_error("usage", flickr.download, id, { size = "huge" })
check.flickr_error("usage", flickr.download, "abc")
check.flickr_error("usage", flickr.download, id, { size = "6k" })  -- the photo has no 6k size

-- Bad uploads are usage errors.
e = check.flickr_error("usage", flickr.upload, { file = path .. ".missing" })
ok(e.message:find("cannot read", 1, true), e.message)
-- A directory and a file Flickr would not take are refused before anything is sent (the
-- sandbox counts no request).
local before = sandbox.requests()
e = check.flickr_error("usage", flickr.upload, { file = "/tmp" })
ok(e.message:find("a directory", 1, true), e.message)
local text = os.tmpname()
local tf = assert(io.open(text, "w"))
tf:write("just words")
tf:close()
e = check.flickr_error("usage", flickr.upload, { file = text })
ok(e.message:find("not a photo or video", 1, true), e.message)
os.remove(text)
eq(sandbox.requests(), before, "requests made by refused uploads")

-- Progress of a small file: at least every 1 % (or 256 KiB), never a jump from 0 to the end.
local small = os.tmpname()
local sf = assert(io.open(small, "wb"))
sf:write("\255\216\255\224\0\16JFIF\0\1\1\0\0\1\0\1\0\0" .. string.rep("y", 180 * 1024) .. tostring(math.random()))
sf:close()
local sent_values = {}
flickr.upload{ file = small, title = "small", progress = function(sent, total)
  sent_values[#sent_values + 1] = sent
  last_total = total
end }
os.remove(small)
ok(#sent_values >= 100, "progress reported " .. #sent_values .. " times for 180 KiB")
local step = math.max(last_total // 100 + 1, 256 * 1024 < last_total and 256 * 1024 or 0)
local previous = 0
for i, sent in ipairs(sent_values) do
  ok(sent - previous <= math.max(step, 2048), "progress step " .. i .. ": " .. previous .. " → " .. sent .. " of " .. last_total)
  previous = sent
end
eq(previous, last_total)
check.flickr_error("usage", flickr.upload, { title = "no file" })
check.flickr_error("usage", flickr.replace, { file = path })
os.remove(path)

check.done("test_upload")
