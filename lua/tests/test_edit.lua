-- flickr.edit and flickr.jobs with edit jobs, against the in-process sandbox.
local check = require "check"
local eq, ok = check.eq, check.ok

local function info(id)
  return flickr.photos.getInfo{ photo_id = id }.photo
end

-- The ids of the sets a photo is in (getAllContexts' `set` is one table when there is one).
local function sets_of(id)
  local s = flickr.photos.getAllContexts{ photo_id = id }.set or {}
  if s.id then s = { s } end
  local out = {}
  for _, x in ipairs(s) do out[x.id] = true end
  return out
end

local function has(text, part)
  ok(text:find(part, 1, true), "expected " .. string.format("%q", part) .. " in:\n" .. text)
end

-- The photos tagged fog, and one set to join.
local fog = {}
for p in flickr.walk("flickr.photos.search", { user_id = "me", tags = "fog", extras = "date_taken" }) do fog[#fog + 1] = p.id end
ok(#fog > 0, "the demo world has fog")
local sets = flickr.photosets.getList{}.photosets.photoset
local travels
for _, s in ipairs(sets) do if flickr.text(s.title) == "Travels" then travels = s.id end end
ok(travels, "the demo world has a set called Travels")
local before = {}
for _, id in ipairs(fog) do
  local p = info(id)
  before[id] = { title = flickr.text(p.title), taken = p.dates.taken, license = p.license, in_travels = sets_of(id)[travels] or false }
end

---------------------------------------------------------------------------------------------
-- Refused before any request: an unknown change key (with a suggestion), an unknown option,
-- a bad value, changes that exclude each other, find without a library.
local function refused(spec, part)
  local requests = sandbox.requests()
  local e = check.flickr_error("usage", flickr.edit.plan, spec)
  has(tostring(e), part)
  eq(sandbox.requests(), requests, "requests made by a refused plan (" .. tostring(e) .. ")")
  return e
end
local e = refused({ query = { tags = "fog" }, changes = { titel = "x" } }, "unknown change 'titel'")
has(tostring(e), "did you mean title")
has(tostring(e), "shift_taken")                       -- the accepted keys are listed
refused({ query = { tags = "fog" }, changes = { privcy = "friends" } }, "did you mean privacy")
refused({ querry = { tags = "fog" }, changes = { title = "x" } }, "did you mean query")
refused({ query = { tags = "fog" }, changes = { safety = "unsafe" } }, "bad change 'safety'")
refused({ query = { tags = "fog" }, changes = { shift_taken = "3 hours" } }, "bad change 'shift_taken'")
refused({ query = { tags = "fog" }, changes = { geo = "95,10" } }, "latitude 95 is outside -90..90")
refused({ query = { tags = "fog" }, changes = { geo = { lat = 64.1 } } }, "bad change 'geo'")
refused({ query = { tags = "fog" }, changes = { title = "{nope}" } }, "{nope} is not a field of a photo")
refused({ query = { tags = "fog" }, changes = { geo = "64.1,-21.9", clear_geo = true } }, "geo and clear_geo exclude each other")
refused({ query = { tags = "fog" }, changes = { add = "📷" } }, "no letter or digit")
refused({ query = { tags = "fog" } }, "no change asked for")
refused({ query = { tags = "fog" }, changes = { title = "x" }, rule = "not a function" }, "bad option 'rule'")
refused({ find = { tag = "fog" }, changes = { title = "x" } }, "did you mean 'tags'")
refused({ query = { tag = "fog" }, changes = { title = "x" } }, "'tag' is not an argument of flickr.photos.search")
refused({ query = { tags = "fog" }, changes = { title = "x" }, find = { tags = "fog" } }, "find and query exclude each other")
refused({ query = { tags = "fog" }, changes = { license = {} } }, "bad change 'license'")
refused({ find = { tags = "fog" }, changes = { title = "x" } }, "find needs the library")

---------------------------------------------------------------------------------------------
-- A plan with several change kinds: nothing is written.
local writes_before = sandbox.requests()
local plan = flickr.edit.plan{
  query = { tags = "fog" },
  changes = {
    title = "{date_taken:%Y-%m-%d} {title}",
    privacy = { "friends", "family" },
    license = "by-sa",
    shift_taken = "+3h",
    geo = { lat = 64.1466, lon = -21.9426, accuracy = 11 },
    add_to_set = "Travels",
    add = "sea fog",
  },
}
ok(type(plan.job) == "string" and plan.job:find("^edit%-"), "a job id: " .. tostring(plan.job))
eq(#plan.photos, #fog)
eq(#plan.refused, 0)
eq(plan.enumerated, #fog)
ok(plan.calls > 0 and plan.apply_calls > 0, "calls counted")
eq(plan.fields.meta, #fog)
eq(plan.fields.dates, #fog)
ok(sandbox.requests() > writes_before, "the plan read")

-- The diff: per photo, per field, `field: "old" → "new"`. The title's {date_taken} is the date
-- the photo will have (3 hours later).
local function day_after_shift(taken)
  local y, m, d, H, M, S = taken:match("(%d+)-(%d+)-(%d+) (%d+):(%d+):(%d+)")
  return os.date("%Y-%m-%d", os.time{ year = y, month = m, day = d, hour = H + 3, min = M, sec = S })
end
local first = plan.photos[1]
local b = before[first.id]
local d = plan:diff()
has(d, "photo " .. first.id)
has(d, ('title: %q → %q'):format(b.title, day_after_shift(b.taken) .. " " .. b.title))
has(d, ('date_taken: %q → '):format(b.taken))
has(d, "privacy: ")
has(d, "→ friends,family")
-- by-sa against today's licence list: CC BY-SA in its newest version.
has(d, "12 (CC BY-SA 4.0)")
has(d, "geo: ")
has(d, "tags: + sea fog")
has(d, "job " .. plan.job .. ": " .. #fog .. " photos to change")
-- The changes as data.
local fields = {}
for _, c in ipairs(first.changes) do fields[c.field] = c end
eq(fields.title.from, b.title)
eq(fields.license.to, 12)
eq(fields.privacy.to, "friends,family")
eq(fields.geo.to.accuracy, 11)

-- :save writes flickr edit plan --out's JSON.
local path = os.tmpname()
eq(plan:save(path), path)
local f = assert(io.open(path))
local json = f:read("a")
f:close()
os.remove(path)
has(json, '"job": "' .. plan.job .. '"')
has(json, '"apply_calls"')

-- The job is listed, planned, beside retag jobs (kind edit).
local listed = flickr.jobs.list()
eq(listed[1].id, plan.job)
eq(listed[1].kind, "edit")
eq(listed[1].state, "planned")

---------------------------------------------------------------------------------------------
-- :apply writes it; the photos read back hold the new values.
local seen, last_total = 0, nil
check.flickr_error("usage", plan.apply, plan, { progres = print })
local summary = plan:apply{ progress = function(done, total) seen = done; last_total = total end }
eq(summary.id, plan.job)
eq(summary.kind, "edit")
eq(summary.state, "done")
eq(summary.done, #fog)
eq(seen, #fog)
eq(last_total, #fog)
for _, id in ipairs(fog) do
  local p, was = info(id), before[id]
  eq(flickr.text(p.title), p.dates.taken:sub(1, 10) .. " " .. was.title, "title of " .. id)
  eq(p.dates.taken:sub(1, 10), day_after_shift(was.taken), "date taken of " .. id)
  eq(p.visibility.ispublic, "0")
  eq(p.visibility.isfriend, "1")
  eq(p.visibility.isfamily, "1")
  eq(p.license, "12")
  ok(p.dates.taken ~= was.taken, "date taken shifted")
  eq(p.location.accuracy, "11")
  local raw = {}
  for _, t in ipairs(p.tags.tag or {}) do raw[t.raw] = true end
  ok(raw["sea fog"], "tag added to " .. id)
  ok(sets_of(id)[travels], id .. " joined Travels")
end
local jobs = flickr.jobs.list()
eq(jobs[1].id, plan.job)
eq(jobs[1].kind, "edit")
eq(jobs[1].state, "done")
has(tostring(check.flickr_error("usage", plan.apply, plan)), "is done; there is nothing to run")
local photos = flickr.jobs._photos(plan.job)
eq(#photos, #fog)
eq(photos[1].status, "done")

-- Undo through flickr.jobs: every field back.
local undone = flickr.jobs.undo(plan.job)
eq(undone.state, "done")
eq(undone.kind, "edit")
eq(undone.undo_of, plan.job)
for _, id in ipairs(fog) do
  local p, was = info(id), before[id]
  eq(flickr.text(p.title), was.title)
  eq(p.dates.taken, was.taken)
  eq(p.license, was.license)
  eq(sets_of(id)[travels] or false, was.in_travels, "Travels of " .. id .. " as before")
end
eq(flickr.jobs.list()[2].state, "undone")
eq(flickr.jobs.list()[2].id, plan.job)

---------------------------------------------------------------------------------------------
-- A rule: called per photo with its fields; its answer (or nil) is the photo's change, over
-- the changes.
local called = 0
local target = fog[1]
local ruled = flickr.edit.plan{
  query = { tags = "fog" },
  changes = { license = 4 },
  rule = function(photo)
    called = called + 1
    ok(type(photo.id) == "string" and type(photo.title) == "string", "photo fields")
    ok(type(photo.tags) == "table" and type(photo.sets) == "table", "lists")
    ok(type(photo.date_taken) == "string" and photo.privacy, "dates and privacy")
    if photo.id ~= target then return nil end
    local tags = {}
    for _, t in ipairs(photo.tags) do if t ~= "fog" then tags[#tags + 1] = t end end
    tags[#tags + 1] = "brume"
    return { title = "{literal} " .. photo.title, tags = tags, date_taken = "2019-07-02 14:03:00", privacy = "private" }
  end,
}
eq(called, #fog)
local expected = 0
for _, id in ipairs(fog) do if before[id].license ~= "4" or id == target then expected = expected + 1 end end
eq(#ruled.photos, expected)                            -- the licence wherever it is not 4 already
local mine
for _, p in ipairs(ruled.photos) do if p.id == target then mine = p end end
ok(mine, "the rule's photo is planned")
local text = table.concat(mine.diff, "\n")
has(text, ('title: %q → %q'):format(before[target].title, "{literal} " .. before[target].title))
has(text, 'date_taken: ' .. ('%q'):format(before[target].taken) .. ' → "2019-07-02 14:03:00"')
has(text, "tags: - fog")
has(text, "tags: + brume")
has(text, "privacy: public → private")
local s2 = ruled:apply()
eq(s2.state, "done")
local p = info(target)
eq(flickr.text(p.title), "{literal} " .. before[target].title)
eq(p.dates.taken, "2019-07-02 14:03:00")
eq(p.license, "4")
eq(p.visibility.ispublic, "0")

-- A rule's value Flickr would refuse — a date taken before 1900 or in the future, a latitude out
-- of range, a licence or a set that does not exist — refuses that photo only (none of its
-- changes), with the reason, in plan.refused and the diff; never sent. The other photos are planned.
local mine_all = {}
for p in flickr.walk("flickr.photos.search", { user_id = "me", extras = "date_taken,license,geo" }) do mine_all[#mine_all + 1] = p.id end
ok(#mine_all >= 6, "the demo world has photos enough")
local asks = {
  [mine_all[1]] = { answer = { title = "never written", date_taken = "1850-06-01" }, field = "dates", why = "date taken 1850-06-01 00:00:00 is before 1900" },
  [mine_all[2]] = { answer = { date_taken = "2999-01-01 10:00:00" }, field = "dates", why = "is in the future" },
  [mine_all[3]] = { answer = { geo = { lat = 95, lon = 10 } }, field = "geo", why = "latitude 95 is outside -90..90" },
  [mine_all[4]] = { answer = { license = 99 }, field = "license", why = "there is no licence 99" },
  [mine_all[5]] = { answer = { add_to_set = "No such set" }, field = "sets", why = "you have no set titled \"No such set\"" },
}
local fine = mine_all[6]
local was = {}
for id in pairs(asks) do local p = info(id); was[id] = { title = flickr.text(p.title), taken = p.dates.taken, license = p.license } end
local checked = flickr.edit.plan{
  query = {},
  rule = function(photo)
    if asks[photo.id] then return asks[photo.id].answer end
    if photo.id == fine then return { title = "fine: " .. photo.title } end
  end,
}
eq(#checked.refused, 5)
for _, r in ipairs(checked.refused) do
  local a = asks[r.id]
  ok(a, "refused " .. r.id .. ", which the rule did not ask anything wrong of: " .. r.reason)
  eq(r.field, a.field, "the refused group of " .. r.id)
  has(r.reason, a.why)
end
eq(#checked.photos, 1)
eq(checked.photos[1].id, fine)
local cd = checked:diff()
has(cd, "photo " .. mine_all[3] .. ": not changed: geo: latitude 95 is outside -90..90")
has(cd, "; 5 refused")
local s3 = checked:apply()
eq(s3.done, 1)
eq(s3.failed, 0, "refused at plan time is not failed")
eq(s3.refused, 5)
eq(s3.state, "done", "refusals alone do not fail the job")
for id, w in pairs(was) do
  local p = info(id)
  eq(flickr.text(p.title), w.title, "title of refused " .. id)
  eq(p.dates.taken, w.taken, "date taken of refused " .. id)
  eq(p.license, w.license, "licence of refused " .. id)
  ok(not p.location or p.location.latitude ~= "95", "location of refused " .. id)
end
ok(flickr.text(info(fine).title):find("^fine: "), "the other photo written")
for _, p in ipairs(flickr.jobs._photos(checked.job)) do
  if asks[p.id] then
    eq(p.status, "refused")
    has(p.detail, "refused at plan time, never sent")
  end
end

-- A rule that raises: the plan fails with its error, nothing planned.
local err = check.raises(flickr.edit.plan, { query = { tags = "brume" }, rule = function() error({ mine = true }) end })
ok(type(err) == "table" and err.mine, "the rule's own error value")
-- A rule's unknown key, with a suggestion.
local e2 = check.flickr_error("usage", flickr.edit.plan, { query = { tags = "brume" }, rule = function() return { titel = "x" } end })
has(tostring(e2), "did you mean title")

---------------------------------------------------------------------------------------------
-- find: the library on disk, after a sync.
flickr.library.sync{}
local found = flickr.edit.plan{ find = { tags = "brume" }, changes = { description = "found: {title}" } }
eq(#found.photos, 1)
eq(found.photos[1].id, target)
eq(found:apply().state, "done")
eq(flickr.text(info(target).description), "found: {literal} " .. before[target].title)

print("test_edit: ok")
