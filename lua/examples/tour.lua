-- A tour of the flickr module: run it against the sandbox with
--   scripts/flickr --sandbox lua/examples/tour.lua
-- (or against Flickr itself once `flickr login` has stored your credentials).

local flickr = require "flickr"

local function step(n, text) print(("%d. %s"):format(n, text)) end

-- 1. A call that needs no login: test.echo returns what it was sent.
local echo = flickr.test.echo{ greeting = "hello, Flickr" }
step(1, "test.echo → greeting = " .. flickr.text(echo.greeting))

-- 2. Who am I? (needs a token with read permission)
local login = flickr.test.login()
step(2, ("test.login → %s (%s)"):format(flickr.text(login.user.username), login.user.id))

-- 3. Search my photos, asking for extras so that one call says enough.
local rsp = flickr.photos.search{ user_id = "me", extras = "tags,url_q,date_upload", per_page = 3,
                                  sort = "date-posted-desc" }
step(3, ("photos.search → %s photos; the newest %d:"):format(rsp.photos.total, #rsp.photos.photo))
for _, p in ipairs(rsp.photos.photo) do
  print(("   %s  %-40s [%s]"):format(p.id, p.title, p.tags))
end
local photo = rsp.photos.photo[1]

-- 4. Everything about one photo.
local info = flickr.photos.getInfo{ photo_id = photo.id }.photo
step(4, ("photos.getInfo %s → %q, %d tags, taken %s"):format(
  info.id, flickr.text(info.title), #info.tags.tag, info.dates.taken))

-- 5. URLs: sizes up to b come from the shared secret; the page and the short link.
step(5, "URLs:")
for _, size in ipairs{ "q", "n", "z", "b" } do
  print(("   %s: %s"):format(size, flickr.photo_url(photo, size)))
end
print("   page:  " .. flickr.photo_page_url(info))
print("   short: " .. flickr.short_url(photo.id))

-- 6. Add a multi-word tag, find its id, remove it again.
flickr.photos.addTags{ photo_id = photo.id, tags = '"swiftflickr tour"' }
local added
for _, tag in ipairs(flickr.tags.getListPhoto{ photo_id = photo.id }.photo.tags.tag) do
  if tag.raw == "swiftflickr tour" then added = tag end
end
step(6, ("addTags → %q is %s (id %s)"):format(added.raw, flickr.text(added), added.id))
flickr.photos.removeTag{ tag_id = added.id }
print("   removeTag → done")

-- 7. Upload a small image with a progress callback, then replace it.
local path = os.tmpname() .. ".jpg"
local f = assert(io.open(path, "wb"))
f:write("\255\216\255\224\0\16JFIF\0\1\1\0\0\1\0\1\0\0", ("tour"):rep(512), "\255\217")
f:close()
local id = flickr.upload{ file = path, title = "Tour upload", tags = { "tour", "swift flickr" }, is_public = 0,
                          progress = function(sent, total) print(("   sent %d of %d bytes"):format(sent, total)) end }
step(7, "upload → photo " .. id)
flickr.replace{ file = path, photo_id = id }
local replaced = flickr.photos.getInfo{ photo_id = id }.photo
step(8, ("replace → photo %s keeps its title %q, new secret %s"):format(
  id, flickr.text(replaced.title), replaced.secret))
os.remove(path)
print("done.")
