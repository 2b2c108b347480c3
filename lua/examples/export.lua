-- Export a photoset's photo metadata to CSV.
--
--   flickr export.lua [SET_ID] [out.csv]
--
-- Without SET_ID the first set of the logged-in user is exported; without out.csv the CSV goes to
-- standard output. Columns: id, title, date_taken, date_upload, views, tags, url (640 px), page.

local flickr = require "flickr"

local set_id, out_path = arg[1], arg[2]
if not set_id then
  local sets = flickr.photosets.getList{}.photosets.photoset
  if #sets == 0 then
    io.stderr:write("export.lua: you have no photosets\n")
    os.exit(1)
  end
  set_id = sets[1].id
end

-- Photos in a set carry no owner attribute: the set's owner is theirs.
local owner = flickr.photosets.getInfo{ photoset_id = set_id }.photoset.owner

local function csv(value)
  value = tostring(value or "")
  if value:find('[",\n\r]') then value = '"' .. value:gsub('"', '""') .. '"' end
  return value
end

local out = out_path and assert(io.open(out_path, "w")) or io.stdout
out:write("id,title,date_taken,date_upload,views,tags,url,page\n")
local n = 0
for photo in flickr.walk("flickr.photosets.getPhotos", { photoset_id = set_id, per_page = 500,
                          extras = "date_taken,date_upload,views,tags,path_alias,owner_name" }) do
  n = n + 1
  photo.owner = photo.owner or owner
  out:write(table.concat({
    csv(photo.id), csv(photo.title), csv(photo.datetaken), csv(photo.dateupload), csv(photo.views),
    csv(photo.tags), csv(flickr.photo_url(photo, "z")), csv(flickr.photo_page_url(photo)),
  }, ","), "\n")
end
if out ~= io.stdout then out:close() end
io.stderr:write(("exported %d photo(s) of set %s%s\n"):format(n, set_id, out_path and (" to " .. out_path) or ""))
