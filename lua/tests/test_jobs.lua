-- flickr.retag and flickr.jobs against the in-process sandbox.
local check = require "check"
local eq, ok = check.eq, check.ok

local before = flickr.photos.search{ user_id = "me", tags = "fog", per_page = 500 }.photos.total
ok(tonumber(before) > 0, "the demo world has fog")

local plan = flickr.retag.plan{ rules = { { "rename", "fog", "Sea Fog" }, { "add", "harbour light" } }, query = { tags = "fog" } }
eq(#plan.photos, tonumber(before))
ok(plan:diff():find("+ Sea Fog", 1, true), "diff shows the new raw form")
ok(plan:diff():find("- fog", 1, true), "diff shows the old one")

local seen = 0
local summary = plan:apply{ progress = function(done, total) seen = done; eq(total, #plan.photos) end }
eq(summary.state, "done")
eq(summary.done, #plan.photos)
eq(seen, #plan.photos)
eq(flickr.photos.search{ user_id = "me", tags = "fog", per_page = 1 }.photos.total, "0")

local listed = flickr.jobs.list()
eq(listed[1].id, plan.job)
eq(listed[1].state, "done")

local undone = flickr.jobs.undo(plan.job)
eq(undone.state, "done")
eq(flickr.photos.search{ user_id = "me", tags = "fog", per_page = 1 }.photos.total, before)
eq(flickr.jobs.list()[2].state, "undone")

-- Bad rules are usage errors before any request.
local e = check.flickr_error("usage", flickr.retag.plan, { rules = { { "rename", "x" } } })
ok(tostring(e):find("rule 1", 1, true), tostring(e))
-- The shared budget from a script.
flickr.configure{ budget = "50/1" }
eq(flickr.config().budget, "50/1")
eq(flickr.test.null{}.stat, "ok")
flickr.configure{ budget = false }
eq(flickr.config().budget, "none")
check.flickr_error("usage", flickr.configure, { budget = "fast" })
print("test_jobs: ok")
