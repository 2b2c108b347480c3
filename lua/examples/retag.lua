-- Batch retagging: rename tags across all of a user's photos.
--
--   flickr retag.lua [--dry-run] [--user NSID] old=new [old2=new2 ...]
--
-- Walks the photos with extras=tags (one page call per 500 photos), picks those carrying an old
-- tag, then for each (8 at a time, with flickr.map) reads the raw tags, swaps the renamed ones and
-- writes them back with setTags. --dry-run prints the diff and changes nothing.
-- Multi-word tags: write them as they are, e.g. "black cat=black kitten".

local flickr = require "flickr"

local dry_run, user, renames = false, "me", {}
local i = 1
while i <= #arg do
  local a = arg[i]
  if a == "--dry-run" then dry_run = true
  elseif a == "--user" then i = i + 1; user = arg[i]
  else
    local old, new = a:match("^(.-)=(.*)$")
    if not old or old == "" then
      io.stderr:write("usage: retag.lua [--dry-run] [--user NSID] old=new ...\n")
      os.exit(2)
    end
    renames[old] = new
  end
  i = i + 1
end
if next(renames) == nil then
  io.stderr:write("retag.lua: nothing to rename (give old=new pairs)\n")
  os.exit(2)
end

-- Flickr's clean form: lower case, letters and digits only (what extras=tags lists).
local function clean(raw) return (raw:lower():gsub("[%s%p]", "")) end
do  -- key the renames by clean form
  local by_clean = {}
  for old, new in pairs(renames) do by_clean[clean(old)] = new end
  renames = by_clean
end

-- 1. Which photos carry an old tag? extras=tags gives the clean forms, space-separated.
local candidates = {}
for photo in flickr.walk("flickr.photos.search", { user_id = user, extras = "tags", per_page = 500 }) do
  for t in (photo.tags or ""):gmatch("%S+") do
    if renames[t] then candidates[#candidates + 1] = photo.id; break end
  end
end
print(("%d photo(s) carry a tag to rename"):format(#candidates))

-- 2. Compute and (unless dry-run) apply the new tag lists, 8 photos at a time.
local function quote(tag) return tag:find(" ") and ('"' .. tag .. '"') or tag end

local results = flickr.map(candidates, function(id)
  local info = flickr.photos.getInfo{ photo_id = id }.photo
  local old, new, changed = {}, {}, false
  for _, tag in ipairs(info.tags.tag) do
    if tag.author == info.owner.nsid then
      old[#old + 1] = tag.raw
      local renamed = renames[clean(tag.raw)]
      if renamed then changed = true end
      new[#new + 1] = renamed or tag.raw
    end
  end
  if changed and not dry_run then
    local parts = {}
    for n, tag in ipairs(new) do parts[n] = quote(tag) end
    flickr.photos.setTags{ photo_id = id, tags = table.concat(parts, " ") }
  end
  return { id = id, title = flickr.text(info.title), old = old, new = new, changed = changed }
end, { concurrency = 8 })

local count = 0
for _, r in ipairs(results) do
  if r.changed then
    count = count + 1
    print(("%s %s %q"):format(dry_run and "would retag" or "retagged", r.id, r.title or ""))
    print("   - " .. table.concat(r.old, ", "))
    print("   + " .. table.concat(r.new, ", "))
  end
end
print(("%s %d photo(s)%s"):format(dry_run and "would change" or "changed", count, dry_run and " (dry run)" or ""))
